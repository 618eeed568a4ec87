"""Command-line commands on decks and deck files: decks, import, export, lint, schema."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from recall.cli.shared import ProgressLine, now, open_database, print_json, print_table, say
from recall.core.errors import RecallError
from recall.core.i18n import tr

if TYPE_CHECKING:
    from collections.abc import Callable

    from recall.cli.shared import Commands
    from recall.content.lint_warning import LintWarning
    from recall.storage import Database


def add_commands(commands: Commands) -> None:
    """Add the deck commands to the command line's subcommands."""
    decks = commands.add_parser("decks", help=tr("list decks with their new, due and total cards"))
    decks.add_argument("--json", action="store_true", help=tr("print JSON instead of a table"))
    decks.set_defaults(handler=_list_decks)

    add = commands.add_parser(
        "import",
        help=tr(
            "import decks: Recall JSON, Anki text/CSV exports, Anki .apkg packages, Moodle "
            "GIFT (.gift) and Moodle XML (.xml) question banks, QTI 2.1 items (.xml) and content "
            "packages (.zip)"
        ),
    )
    add.add_argument("files", nargs="+", type=Path, metavar="FILE")
    add.set_defaults(handler=_import)

    export_deck = commands.add_parser(
        "export",
        help=tr(
            "write a deck to Recall JSON (.json), an Anki package (.apkg) or Moodle GIFT (.gift)"
        ),
    )
    export_deck.add_argument("deck", metavar="DECK_ID")
    export_deck.add_argument("file", metavar="FILE")
    export_deck.set_defaults(handler=_export_deck)

    schema = commands.add_parser("schema", help=tr("print the JSON Schema of the deck format"))
    schema.set_defaults(handler=print_schema)

    lint = commands.add_parser(
        "lint",
        help=tr(
            "check deck files: format errors as import reports them, and teaching warnings; "
            "exits 0 when clean, 1 on errors, 2 on warnings only"
        ),
    )
    lint.add_argument("files", nargs="+", type=Path, metavar="FILE.json")
    lint.add_argument(
        "--accept",
        action="append",
        default=[],
        metavar="CODE[:CARD]",
        help=tr(
            "a warning the author has accepted (every one of that code, or one card's); "
            "still printed, it no longer makes the exit status 2 (repeatable)"
        ),
    )
    lint.add_argument(
        "--history",
        action="store_true",
        help=tr(
            "also warn from the database's review history of each deck: wrong options never "
            "picked, maybe mis-keyed, questions right at first sight (see docs/statistics.md)"
        ),
    )
    lint.add_argument("--json", action="store_true", help=tr("print JSON instead of lines"))
    lint.set_defaults(handler=_lint)


def _list_decks(args: argparse.Namespace) -> int:
    from recall.collection import deck_list

    database = open_database(args)
    try:
        overviews = deck_list.deck_overviews(database, now())
    finally:
        database.close()
    if args.json:
        parents = deck_list.deck_parents(overviews)
        print_json(
            [
                {
                    "id": deck.key,
                    "name": deck.name,
                    "total": deck.total,
                    "new": deck.new,
                    "due": deck.due,
                    "unseen": deck.unseen,
                    "parent": parents[deck.key],
                }
                for deck in overviews
            ]
        )
        return 0
    # The table shows the tree: each deck indented under its parent, counts summed up it.
    print_table(
        (tr("ID"), tr("NAME"), tr("NEW"), tr("DUE"), tr("TOTAL")),
        [
            (row.key, "  " * row.depth + row.label, row.new, row.due, row.total)
            for row in deck_list.deck_tree_rows(overviews)
        ],
    )
    return 0


def _import(args: argparse.Namespace) -> int:
    from recall.collection import importing
    from recall.scheduling import Schedulers

    database = open_database(args)
    progress = ProgressLine(tr("importing")) if sys.stderr.isatty() else None
    try:
        reports = importing.import_files(
            database,
            Schedulers(),
            args.files,
            now(),
            progress=progress or (lambda _done, _total: None),
        )
    finally:
        if progress is not None:
            progress.finish()
        database.close()
    for report in reports:
        for line in report.lines():
            say(line)
    return 0


def _export_deck(args: argparse.Namespace) -> int:
    from recall.collection import exporting

    if not args.file:
        raise RecallError(tr("export: no file name given; name a .json, .apkg or .gift file"))
    if Path(args.file).is_dir():
        raise RecallError(
            tr("export: {file} is a folder; name a .json, .apkg or .gift file in it").format(
                file=args.file
            )
        )
    database = open_database(args)
    try:
        cards = exporting.export_deck(database, args.deck, Path(args.file))
    finally:
        database.close()
    say(
        tr("wrote {count} cards of {deck} to {file}").format(
            count=cards, deck=args.deck, file=args.file
        ),
        to_stderr=True,
    )
    return 0


def _lint(args: argparse.Namespace) -> int:
    from recall.content import lint

    if not args.history:
        run = lint.lint_files(args.files, args.accept)
    else:
        database = open_database(args, install=False)
        try:
            run = lint.lint_files(args.files, args.accept, _history_warnings(database))
        finally:
            database.close()
    if args.json:
        print_json(run.as_json())
    else:
        for line in run.lines():
            say(line)
        print(run.summary())
    return run.status


def _history_warnings(database: Database) -> Callable[[str], list[LintWarning]]:
    """What a deck's history adds to its lint: the item analysis's flags, if it is stored."""
    from recall.stats import item_analysis

    def warnings(deck_key: str) -> list[LintWarning]:
        with database.reading() as transaction:
            stored = transaction.decks.by_key(deck_key) is not None
        if not stored:
            say(
                tr("deck {deck} is not in the database: no history to check").format(deck=deck_key),
                to_stderr=True,
            )
            return []
        return item_analysis.warnings(item_analysis.item_analysis(database, deck_key), deck_key)

    return warnings


def print_schema(_args: argparse.Namespace) -> int:
    """Print the deck format's JSON Schema (needs no database, so it never opens one)."""
    from recall.content.deck_format import deck_schema

    print_json(deck_schema())
    return 0
