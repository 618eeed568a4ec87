"""The command line: no arguments opens the window; subcommands work on decks and history.

Qt is imported only when the window opens, so the subcommands start fast and run on
machines without a display.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from recall import __version__, paths
from recall.errors import DeckErrors, RecallError
from recall.settings import Settings

if TYPE_CHECKING:
    from recall.storage import Database


def main(argv: Sequence[str] | None = None) -> int:
    """Run Recall with command-line arguments; returns the exit status."""
    parser = _parser()
    args = parser.parse_args(argv)
    if args.self_test:
        if args.handler is not _open_window:
            parser.error("--self-test takes no command")
        args.handler = _self_test
    try:
        status: int = args.handler(args)
    except DeckErrors as error:
        print(error, file=sys.stderr)
        return 1
    except RecallError as error:
        print(f"recall: {error}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    return status


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="recall",
        description="Spaced-repetition quizzes. With no command, opens the window.",
    )
    parser.add_argument("--version", action="version", version=f"Recall {__version__}")
    parser.add_argument(
        "--data-dir",
        metavar="DIR",
        help=f"the folder holding Recall's database (default: ${paths.DATA_DIR_VARIABLE} if "
        "set, else the platform's user data folder)",
    )
    parser.add_argument(
        "--self-test",
        action="store_true",
        help="open the window (offscreen when there is no display), study one card by keyboard "
        "in a new temporary data folder (or --data-dir), check the review was stored, quit; "
        "exits 0 if all went well, else 1",
    )
    parser.set_defaults(handler=_open_window)
    commands = parser.add_subparsers(title="commands", metavar="COMMAND")

    decks = commands.add_parser("decks", help="list decks with their new, due and total cards")
    decks.add_argument("--json", action="store_true", help="print JSON instead of a table")
    decks.set_defaults(handler=_list_decks)

    add = commands.add_parser("import", help="import Recall JSON deck files")
    add.add_argument("files", nargs="+", type=Path, metavar="FILE")
    add.set_defaults(handler=_import)

    export = commands.add_parser(
        "export-reviews", help="write the review history as an FSRS review-log CSV"
    )
    export.add_argument("file", metavar="FILE.csv", help="where to write ('-' for stdout)")
    export.add_argument("--deck", metavar="DECK_ID", help="only this deck's reviews")
    export.set_defaults(handler=_export_reviews)

    schema = commands.add_parser("schema", help="print the JSON Schema of the deck format")
    schema.set_defaults(handler=_print_schema)
    return parser


def _now() -> datetime:
    return datetime.now(UTC)


def _open_database(args: argparse.Namespace) -> Database:
    # Storage and the deck models load here, not at start: --version and --help stay quick.
    from recall import library
    from recall.storage import Database

    database = Database(paths.database_path(paths.data_dir(args.data_dir)))
    library.install_bundled_decks(database, _now())
    return database


def _open_window(args: argparse.Namespace) -> int:
    from recall.ui.application import run  # Qt loads only here

    status: int = run(paths.data_dir(args.data_dir), Settings())
    return status


def _self_test(args: argparse.Namespace) -> int:
    from recall.ui.self_test import run_self_test  # Qt loads only here

    data_dir = None if args.data_dir is None else paths.data_dir(args.data_dir)
    return run_self_test(data_dir, Settings())


def _list_decks(args: argparse.Namespace) -> int:
    from recall import library

    database = _open_database(args)
    try:
        overviews = library.deck_overviews(database, Settings(), _now())
    finally:
        database.close()
    if args.json:
        rows = [
            {
                "id": deck.key,
                "name": deck.name,
                "total": deck.total,
                "new": deck.new,
                "due": deck.due,
                "unseen": deck.unseen,
            }
            for deck in overviews
        ]
        print(json.dumps(rows, indent=2, ensure_ascii=False))
        return 0
    header = ("ID", "NAME", "NEW", "DUE", "TOTAL")
    table = [header] + [
        (deck.key, deck.name, str(deck.new), str(deck.due), str(deck.total)) for deck in overviews
    ]
    widths = [max(len(row[column]) for row in table) for column in range(len(header))]
    for row in table:
        cells = [
            cell.ljust(width) if column < 2 else cell.rjust(width)
            for column, (cell, width) in enumerate(zip(row, widths, strict=True))
        ]
        print("  ".join(cells).rstrip())
    return 0


def _import(args: argparse.Namespace) -> int:
    from recall import library

    database = _open_database(args)
    try:
        reports = library.import_files(database, args.files, _now())
    finally:
        database.close()
    for report in reports:
        print(f"{report.source}: {report.describe()}")
    return 0


def _export_reviews(args: argparse.Namespace) -> int:
    from recall import library

    database = _open_database(args)
    try:
        if args.file == "-":
            library.export_reviews(database, sys.stdout, args.deck)
            return 0
        target = Path(args.file)
        # Write beside the target and rename over it: a failure never leaves half a file.
        with tempfile.NamedTemporaryFile(
            "w", encoding="utf-8", newline="", dir=target.parent, suffix=".tmp", delete=False
        ) as handle:
            partial = Path(handle.name)
            try:
                written = library.export_reviews(database, handle, args.deck)
            except BaseException:
                handle.close()
                partial.unlink(missing_ok=True)
                raise
        partial.replace(target)
    except OSError as error:
        raise RecallError(f"cannot write {args.file}: {error.strerror}") from None
    finally:
        database.close()
    print(f"wrote {written} reviews to {target}", file=sys.stderr)
    return 0


def _print_schema(_args: argparse.Namespace) -> int:
    from recall.deckfile import deck_schema

    print(json.dumps(deck_schema(), indent=2))
    return 0
