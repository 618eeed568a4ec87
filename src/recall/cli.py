"""The command line: no arguments opens the window; subcommands work on decks and history.

Qt is imported only when the window opens, so the subcommands start fast and run on
machines without a display.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Collection, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from recall import __version__, cli_cards, cli_options, cli_sync, paths
from recall.errors import DeckErrors, RecallError

if TYPE_CHECKING:
    from recall.backups import Backup
    from recall.integrity import CheckReport
    from recall.storage import Database


def main(argv: Sequence[str] | None = None) -> int:
    """Run Recall with command-line arguments; returns the exit status."""
    parser = _parser()
    args = parser.parse_args(argv)
    if args.self_test:
        if args.handler is not _open_window:
            parser.error("--self-test takes no command")
        args.handler = _self_test
    if args.handler is not _print_schema:
        _note_set_aside(paths.data_dir(args.data_dir))
    try:
        status: int = args.handler(args)
    except DeckErrors as error:
        print(error, file=sys.stderr)
        return 1
    except RecallError as error:
        _explain_failure(error, paths.data_dir(args.data_dir))
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

    add = commands.add_parser(
        "import", help="import decks: Recall JSON, Anki text/CSV exports, Anki .apkg packages"
    )
    add.add_argument("files", nargs="+", type=Path, metavar="FILE")
    add.set_defaults(handler=_import)

    export_deck = commands.add_parser(
        "export", help="write a deck to Recall JSON (.json) or an Anki package (.apkg)"
    )
    export_deck.add_argument("deck", metavar="DECK_ID")
    export_deck.add_argument("file", metavar="FILE")
    export_deck.set_defaults(handler=_export_deck)

    export = commands.add_parser(
        "export-reviews", help="write the review history as an FSRS review-log CSV"
    )
    export.add_argument("file", metavar="FILE.csv", help="where to write ('-' for stdout)")
    export.add_argument("--deck", metavar="DECK_ID", help="only this deck's reviews")
    export.set_defaults(handler=_export_reviews)

    statistics = commands.add_parser(
        "stats", help="print statistics: today, streak, forecast, retention, misconceptions"
    )
    statistics.add_argument("--deck", metavar="DECK_ID", help="only this deck")
    statistics.add_argument(
        "--days",
        type=_positive_days,
        metavar="N",
        help="the period: the last N study days, today included (default: all time)",
    )
    statistics.add_argument("--json", action="store_true", help="print JSON for scripts")
    statistics.set_defaults(handler=_print_stats)

    schema = commands.add_parser("schema", help="print the JSON Schema of the deck format")
    schema.set_defaults(handler=_print_schema)

    lint = commands.add_parser(
        "lint",
        help="check deck files: format errors as import reports them, and teaching warnings; "
        "exits 0 when clean, 1 on errors, 2 on warnings only",
    )
    lint.add_argument("files", nargs="+", type=Path, metavar="FILE.json")
    lint.add_argument(
        "--accept",
        action="append",
        default=[],
        metavar="CODE[:CARD]",
        help="a warning the author has accepted (every one of that code, or one card's); "
        "still printed, it no longer makes the exit status 2 (repeatable)",
    )
    lint.add_argument("--json", action="store_true", help="print JSON instead of lines")
    lint.set_defaults(handler=_lint)

    backup = commands.add_parser("backup", help="back up the database now")
    backup.set_defaults(handler=_backup)

    listing = commands.add_parser("backups", help="list backups with date, size, cards, reviews")
    listing.set_defaults(handler=_list_backups)

    restore = commands.add_parser(
        "restore",
        help="restore a backup (the current database is backed up first)",
        description="Restore a backup. The file is copied beside the database and checked "
        "first; the database as it is is backed up; a database that is damaged or missing "
        "is kept aside as recall.sqlite3.damaged-<time>. Refused while a window has the "
        "data folder open (use its File > Backups).",
    )
    restore.add_argument("file", type=Path, metavar="FILE", nargs="?")
    restore.add_argument(
        "--empty",
        action="store_true",
        help="where the database is missing, start an empty one on purpose (Recall never "
        "does this by itself where a database existed)",
    )
    restore.set_defaults(handler=_restore)

    check = commands.add_parser(
        "check", help="check the database and every card's schedule against its history"
    )
    check.add_argument(
        "--repair",
        action="store_true",
        help="rebuild schedules from history (after a backup) and say what changed",
    )
    check.set_defaults(handler=_check)
    cli_cards.add_commands(commands)
    cli_options.add_commands(commands, _open_database)
    cli_sync.add_commands(commands)
    return parser


def _now() -> datetime:
    return datetime.now(UTC)


def _open_database(args: argparse.Namespace, install: bool = True) -> Database:
    """Open the data directory's database; ``install`` also brings the bundled decks in."""
    # Storage and the deck models load here, not at start: --version and --help stay quick.
    from recall import library
    from recall.storage import Database

    database = Database(paths.database_path(paths.data_dir(args.data_dir)))
    if install:
        try:
            library.install_bundled_decks(database, _now())
        except BaseException:
            database.close()
            raise
    return database


def open_database(args: argparse.Namespace, install: bool = True) -> Database:
    """The data directory's database, as every command opens it (for the card commands)."""
    return _open_database(args, install)


def _open_window(args: argparse.Namespace) -> int:
    from recall import window_libraries

    if window_libraries.uses_xcb():
        missing = window_libraries.problem()
        if missing is not None:  # Qt would abort with a generic message
            print(f"recall: {missing}", file=sys.stderr)
            return 1
    from recall.ui.application import run  # Qt loads only here

    status: int = run(paths.data_dir(args.data_dir))
    return status


def _self_test(args: argparse.Namespace) -> int:
    from recall.ui.self_test import run_self_test  # Qt loads only here

    data_dir = None if args.data_dir is None else paths.data_dir(args.data_dir)
    return run_self_test(data_dir)


def _list_decks(args: argparse.Namespace) -> int:
    from recall import library

    database = _open_database(args)
    try:
        overviews = library.deck_overviews(database, _now())
    finally:
        database.close()
    if args.json:
        parents = library.deck_parents(overviews)
        rows = [
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
        print(json.dumps(rows, indent=2, ensure_ascii=False))
        return 0
    # The table shows the tree: each deck indented under its parent, counts summed up it.
    print_table(
        ("ID", "NAME", "NEW", "DUE", "TOTAL"),
        [
            (row.key, "  " * row.depth + row.label, row.new, row.due, row.total)
            for row in library.deck_tree_rows(overviews)
        ],
    )
    return 0


def _import(args: argparse.Namespace) -> int:
    from recall import importing
    from recall.scheduling import Schedulers

    database = _open_database(args)
    progress = _ProgressLine("importing") if sys.stderr.isatty() else None
    try:
        reports = importing.import_files(
            database,
            Schedulers(),
            args.files,
            _now(),
            progress=progress or (lambda _done, _total: None),
        )
    finally:
        if progress is not None:
            progress.finish()
        database.close()
    for report in reports:
        for line in report.lines():
            print(line)
    return 0


class _ProgressLine:
    """A self-rewriting ``importing... 42%`` line on the terminal."""

    def __init__(self, label: str) -> None:
        self._label = label
        self._shown = -1

    def __call__(self, done: int, total: int) -> None:
        percent = 100 * done // total if total else 100
        if percent != self._shown:
            self._shown = percent
            print(f"\r{self._label}... {percent}%", end="", file=sys.stderr, flush=True)

    def finish(self) -> None:
        if self._shown >= 0:
            print("\r\033[K", end="", file=sys.stderr, flush=True)


def _export_deck(args: argparse.Namespace) -> int:
    from recall import exporting

    if not args.file:
        raise RecallError("export: no file name given; name a .json or .apkg file")
    if Path(args.file).is_dir():
        raise RecallError(f"export: {args.file} is a folder; name a .json or .apkg file in it")
    database = _open_database(args)
    try:
        cards = exporting.export_deck(database, args.deck, Path(args.file))
    finally:
        database.close()
    print(f"wrote {cards} cards of {args.deck} to {args.file}", file=sys.stderr)
    return 0


def _export_reviews(args: argparse.Namespace) -> int:
    from recall import library

    if not args.file.strip():
        raise RecallError(
            "export-reviews: no file name given; name a .csv file, or - for the terminal"
        )
    database = _open_database(args)
    try:
        if args.file == "-":
            library.export_reviews(database, sys.stdout, args.deck)
            return 0
        written = library.write_review_log(database, Path(args.file), args.deck)
    finally:
        database.close()
    print(f"wrote {written} reviews to {args.file}", file=sys.stderr)
    return 0


def _positive_days(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(
            f"expected a whole number of days (1 or more), got {text!r}"
        )
    return value


def _print_stats(args: argparse.Namespace) -> int:
    from recall import deck_options, stats

    database = _open_database(args)
    try:
        figures = stats.collect(
            database, deck_options.preferences(database), _now(), args.deck, args.days
        )
    finally:
        database.close()
    if args.json:
        print(json.dumps(stats.to_json(figures), indent=2, ensure_ascii=False))
    else:
        print(stats.text_report(figures))
    return 0


def _backup(args: argparse.Namespace) -> int:
    from recall import backups

    database = _open_database(args, install=False)
    try:
        path = backups.make_backup(database, _now())
    finally:
        database.close()
    print(path)
    return 0


def _list_backups(args: argparse.Namespace) -> int:
    from recall import backups

    found = backups.list_backups(paths.backup_dir(paths.data_dir(args.data_dir)))
    if not found:
        print("no backups yet (`recall backup` makes one)", file=sys.stderr)
        return 0
    print_table(
        ("DATE", "SIZE", "DECKS", "CARDS", "REVIEWS", "FILE"),
        [
            (
                f"{backup.made_at.astimezone():%Y-%m-%d %H:%M:%S}",
                backup.size_text,
                backup.decks,
                backup.cards,
                backup.reviews,
                str(backup.path),
            )
            for backup in found
        ],
        right={1},
    )
    return 0


def _restore(args: argparse.Namespace) -> int:
    from recall import recovery
    from recall.scheduling import Schedulers

    data_dir = paths.data_dir(args.data_dir)
    if args.empty == (args.file is not None):
        raise RecallError("name the backup FILE to restore, or --empty (not both)")
    if args.empty:
        print(f"started an empty database at {recovery.start_empty(data_dir)}")
        return 0
    done = recovery.restore_folder(data_dir, args.file, Schedulers(), _now())
    if done.report is not None:
        restored = done.report.restored
        print(f"saved the database as it was to {done.report.safety_copy}")
        print(
            f"restored {args.file} ({restored.cards} cards, {restored.reviews} reviews, "
            f"made {restored.made_at.astimezone():%Y-%m-%d %H:%M})"
        )
    elif done.set_aside is not None:
        print(f"the database could not be used ({done.reason}); it is kept as {done.set_aside}")
        print(f"restored {args.file} in its place")
    else:
        print(f"restored {args.file} as the missing database")
    return _print_check(done.check)


def _check(args: argparse.Namespace) -> int:
    from recall import backups, integrity, upkeep
    from recall.scheduling import Schedulers

    schedulers = Schedulers()
    database = _open_database(args, install=False)
    try:
        report = integrity.check(database, schedulers, _now())
        if not args.repair or report.healthy:
            status = _print_check(report)
            if status:
                _point_at_newest_backup(backups.list_backups(backups.backup_folder(database)))
            return status
        if not upkeep.can_repair(report):
            print("nothing that --repair can rebuild:", file=sys.stderr)
            return _print_check(report)
        repaired = upkeep.repair(database, schedulers, report, _now())
        print(f"saved the database as it was to {repaired.backup}")
        for change in repaired.changes:
            print(change)
        return _print_check(repaired.after)
    finally:
        database.close()


def _note_set_aside(data_dir: Path) -> None:
    """Every start says so while a database set aside as damaged is kept."""
    from recall import recovery

    files = recovery.set_aside_files(data_dir)
    if files:
        print(f"note: {recovery.set_aside_notice(files)}", file=sys.stderr)


def _explain_failure(error: RecallError, data_dir: Path) -> None:
    """Print a failure, and for a damaged or missing database, the way back."""
    from recall.storage import MissingDatabaseError, is_unusable

    if isinstance(error, MissingDatabaseError):
        from recall import recovery

        print(f"recall: {recovery.missing_advice(data_dir, error)}", file=sys.stderr)
        return
    print(f"recall: {error}", file=sys.stderr)
    if is_unusable(error):
        from recall import backups

        _point_at_newest_backup(backups.list_backups(paths.backup_dir(data_dir)))


def _point_at_newest_backup(found: list[Backup]) -> None:
    if found:
        newest = found[0]
        print(
            f"newest backup: {newest.path} ({newest.made_at.astimezone():%Y-%m-%d %H:%M}); "
            f"`recall restore {newest.path}` brings it back",
            file=sys.stderr,
        )


def _print_check(report: CheckReport) -> int:
    if report.healthy:
        print(f"healthy: {report.cards} cards and {report.reviews} reviews checked")
        if not report.schedules_replayed:
            print("(the file and its schema; `recall check` also replays every schedule)")
        return 0
    for problem in report.problems:
        print(f"problem: {problem}", file=sys.stderr)
    print(f"{len(report.problems)} problem(s) found", file=sys.stderr)
    return 1


def _lint(args: argparse.Namespace) -> int:
    from recall import lint

    run = lint.lint_files(args.files, args.accept)
    if args.json:
        print(json.dumps(run.as_json(), indent=2, ensure_ascii=False))
    else:
        for line in run.lines():
            print(line)
        print(run.summary())
    return run.status


def _print_schema(_args: argparse.Namespace) -> int:
    from recall.deckfile import deck_schema

    print(json.dumps(deck_schema(), indent=2))
    return 0


def print_table(
    header: Sequence[str], rows: Sequence[Sequence[object]], right: Collection[int] = ()
) -> None:
    """Print rows under a header in aligned columns, two spaces apart.

    Numbers (and the columns in ``right``) are aligned right, text left; the last column
    is never padded, so a long path or name runs on.
    """
    table = [[str(cell) for cell in header]] + [[_cell(cell) for cell in row] for row in rows]
    numeric = {
        column
        for column in range(len(header))
        if rows and all(isinstance(row[column], int | float) for row in rows)
    } | set(right)
    widths = [max(len(row[column]) for row in table) for column in range(len(header))]
    for row in table:
        cells = [
            cell.rjust(width) if column in numeric else cell.ljust(width)
            for column, (cell, width) in enumerate(zip(row, widths, strict=True))
        ]
        if len(header) - 1 not in numeric:
            cells[-1] = row[-1]
        print("  ".join(cells).rstrip())


def _cell(value: object) -> str:
    return f"{value:,}" if isinstance(value, int) and not isinstance(value, bool) else str(value)
