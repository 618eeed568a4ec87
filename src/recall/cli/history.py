"""Commands on the review history and the database's safety: stats, backups, restore, check.

Also export-reviews (the history as an FSRS review log) and backup (one now).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from recall.cli.shared import (
    lock_wait_ms,
    now,
    open_database,
    point_at_newest_backup,
    print_json,
    print_table,
    say,
)
from recall.core import wording
from recall.core.errors import RecallError
from recall.host import paths

if TYPE_CHECKING:
    from recall.cli.shared import Commands
    from recall.safekeeping.integrity import CheckReport


def add_commands(commands: Commands) -> None:
    """Add the history, statistics and backup commands to the command line's subcommands."""
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

    backup = commands.add_parser("backup", help="back up the database now")
    backup.set_defaults(handler=_backup)

    listing = commands.add_parser("backups", help="list backups with date, size, cards, reviews")
    listing.set_defaults(handler=_list_backups)

    restore = commands.add_parser(
        "restore",
        help="restore a backup (the current database is backed up first)",
        description="Restore a backup. The file is checked first (one from an older Recall "
        "is copied beside the database and upgraded there); the database as it is is backed "
        "up; a database that is damaged or missing "
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
    check.add_argument(
        "--full",
        action="store_true",
        help="replay every card and run SQLite's full integrity check (by default, once "
        "everything was verified, only cards changed since are replayed)",
    )
    check.set_defaults(handler=_check)


def _export_reviews(args: argparse.Namespace) -> int:
    from recall.collection import review_log

    if not args.file.strip():
        raise RecallError(
            "export-reviews: no file name given; name a .csv file, or - for the terminal"
        )
    database = open_database(args)
    try:
        if args.file == "-":
            review_log.export_reviews(database, sys.stdout, args.deck)
            return 0
        written = review_log.write_review_log(database, Path(args.file), args.deck)
    finally:
        database.close()
    say(f"wrote {written} reviews to {args.file}", to_stderr=True)
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
    from recall import stats
    from recall.options import deck_options
    from recall.stats import item_analysis

    database = open_database(args)
    try:
        figures = stats.collect(
            database, deck_options.preferences(database), now(), args.deck, args.days
        )
        # Over the whole history, whatever the period: a card's options need every answer.
        items = item_analysis.item_analysis(database, args.deck)
    finally:
        database.close()
    if args.json:
        print_json({**stats.to_json(figures), "item_analysis": item_analysis.as_json(items)})
    else:
        for line in stats.text_report(figures).split("\n"):
            say(line)
        for line in item_analysis.text_lines(items):
            say(line)
    return 0


def _backup(args: argparse.Namespace) -> int:
    from recall.safekeeping import backups

    database = open_database(args, install=False)
    try:
        path = backups.make_backup(database, now())
    finally:
        database.close()
    print(path)
    return 0


def _list_backups(args: argparse.Namespace) -> int:
    from recall.safekeeping import backups

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
    from recall.safekeeping import recovery
    from recall.scheduling import Schedulers

    data_dir = paths.data_dir(args.data_dir)
    if args.empty == (args.file is not None):
        raise RecallError("name the backup FILE to restore, or --empty (not both)")
    if args.empty:
        print(f"started an empty database at {recovery.start_empty(data_dir)}")
        return 0
    done = recovery.restore_folder(data_dir, args.file, Schedulers(), now(), lock_wait_ms(args))
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
    from recall.safekeeping import backups, integrity
    from recall.safekeeping import repair as upkeep
    from recall.scheduling import Schedulers

    schedulers = Schedulers()
    database = open_database(args, install=False)
    try:
        report = integrity.check(database, schedulers, now(), full=args.full)
        if not args.repair or report.healthy:
            status = _print_check(report)
            if status:
                point_at_newest_backup(backups.list_backups(backups.backup_folder(database)))
            return status
        if not upkeep.can_repair(report):
            print("nothing that --repair can rebuild:", file=sys.stderr)
            return _print_check(report)
        repaired = upkeep.repair(database, schedulers, report, now())
        print(f"saved the database as it was to {repaired.backup}")
        for change in repaired.changes:
            say(change)
        return _print_check(repaired.after)
    finally:
        database.close()


def _print_check(report: CheckReport) -> int:
    if report.healthy:
        print(f"healthy: {report.cards} cards and {report.reviews} reviews checked")
        if not report.schedules_replayed:
            print("(the file and its schema; `recall check` also replays every schedule)")
        elif report.replayed < report.cards:
            print(
                f"({wording.count(report.replayed, 'card')} changed since the last check that "
                f"verified every card {wording.word(report.replayed, 'was', 'were')} replayed; "
                "--full replays them all)"
            )
        return 0
    for problem in report.problems:
        say(f"problem: {problem}", to_stderr=True)
    print(f"{wording.count(len(report.problems), 'problem')} found", file=sys.stderr)
    return 1
