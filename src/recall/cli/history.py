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
from recall.core.i18n import tr, trn
from recall.host import paths

if TYPE_CHECKING:
    from recall.cli.shared import Commands
    from recall.safekeeping.integrity import CheckReport


def add_commands(commands: Commands) -> None:
    """Add the history, statistics and backup commands to the command line's subcommands."""
    export = commands.add_parser(
        "export-reviews", help=tr("write the review history as an FSRS review-log CSV")
    )
    export.add_argument("file", metavar="FILE.csv", help=tr("where to write ('-' for stdout)"))
    export.add_argument("--deck", metavar="DECK_ID", help=tr("only this deck's reviews"))
    export.set_defaults(handler=_export_reviews)

    statistics = commands.add_parser(
        "stats", help=tr("print statistics: today, streak, forecast, retention, misconceptions")
    )
    statistics.add_argument("--deck", metavar="DECK_ID", help=tr("only this deck"))
    statistics.add_argument(
        "--days",
        type=_positive_days,
        metavar="N",
        help=tr("the period: the last N study days, today included (default: all time)"),
    )
    statistics.add_argument("--json", action="store_true", help=tr("print JSON for scripts"))
    statistics.set_defaults(handler=_print_stats)

    backup = commands.add_parser("backup", help=tr("back up the database now"))
    backup.set_defaults(handler=_backup)

    listing = commands.add_parser(
        "backups", help=tr("list backups with date, size, cards, reviews")
    )
    listing.set_defaults(handler=_list_backups)

    restore = commands.add_parser(
        "restore",
        help=tr("restore a backup (the current database is backed up first)"),
        description=tr(
            "Restore a backup. The file is checked first (one from an older Recall "
            "is copied beside the database and upgraded there); the database as it is is backed "
            "up; a database that is damaged or missing "
            "is kept aside as recall.sqlite3.damaged-<time>. Refused while a window has the "
            "data folder open (use its File > Backups)."
        ),
    )
    restore.add_argument("file", type=Path, metavar="FILE", nargs="?")
    restore.add_argument(
        "--empty",
        action="store_true",
        help=tr(
            "where the database is missing, start an empty one on purpose (Recall never "
            "does this by itself where a database existed)"
        ),
    )
    restore.set_defaults(handler=_restore)

    check = commands.add_parser(
        "check", help=tr("check the database and every card's schedule against its history")
    )
    check.add_argument(
        "--repair",
        action="store_true",
        help=tr("rebuild schedules from history (after a backup) and say what changed"),
    )
    check.add_argument(
        "--full",
        action="store_true",
        help=tr(
            "replay every card and run SQLite's full integrity check (by default, once "
            "everything was verified, only cards changed since are replayed)"
        ),
    )
    check.set_defaults(handler=_check)


def _export_reviews(args: argparse.Namespace) -> int:
    from recall.collection import review_log

    if not args.file.strip():
        raise RecallError(
            tr("export-reviews: no file name given; name a .csv file, or - for the terminal")
        )
    database = open_database(args)
    try:
        if args.file == "-":
            review_log.export_reviews(database, sys.stdout, args.deck)
            return 0
        written = review_log.write_review_log(database, Path(args.file), args.deck)
    finally:
        database.close()
    say(tr("wrote {count} reviews to {file}").format(count=written, file=args.file), to_stderr=True)
    return 0


def _positive_days(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(
            tr("expected a whole number of days (1 or more), got {text}").format(text=repr(text))
        )
    return value


def _print_stats(args: argparse.Namespace) -> int:
    from recall import stats
    from recall.options import deck_options
    from recall.stats import item_analysis, item_analysis_json

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
        print_json(
            {**stats.to_json(figures), "item_analysis": item_analysis_json.json_lines(items)},
            one_per_line="item_analysis",
            encoded=True,
        )
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
        print(tr("no backups yet (`recall backup` makes one)"), file=sys.stderr)
        return 0
    print_table(
        (tr("DATE"), tr("SIZE"), tr("DECKS"), tr("CARDS"), tr("REVIEWS"), tr("FILE")),
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
        raise RecallError(tr("name the backup FILE to restore, or --empty (not both)"))
    if args.empty:
        print(tr("started an empty database at {path}").format(path=recovery.start_empty(data_dir)))
        return 0
    done = recovery.restore_folder(data_dir, args.file, Schedulers(), now(), lock_wait_ms(args))
    if done.report is not None:
        restored = done.report.restored
        print(tr("saved the database as it was to {path}").format(path=done.report.safety_copy))
        print(
            tr("restored {file} ({cards} cards, {reviews} reviews, made {made})").format(
                file=args.file,
                cards=restored.cards,
                reviews=restored.reviews,
                made=f"{restored.made_at.astimezone():%Y-%m-%d %H:%M}",
            )
        )
    elif done.set_aside is not None:
        print(
            tr("the database could not be used ({reason}); it is kept as {path}").format(
                reason=done.reason, path=done.set_aside
            )
        )
        print(tr("restored {file} in its place").format(file=args.file))
    else:
        print(tr("restored {file} as the missing database").format(file=args.file))
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
            print(tr("nothing that --repair can rebuild:"), file=sys.stderr)
            return _print_check(report)
        repaired = upkeep.repair(database, schedulers, report, now())
        print(tr("saved the database as it was to {path}").format(path=repaired.backup))
        for change in repaired.changes:
            say(change)
        return _print_check(repaired.after)
    finally:
        database.close()


def _print_check(report: CheckReport) -> int:
    if report.healthy:
        print(
            tr("healthy: {cards} cards and {reviews} reviews checked").format(
                cards=report.cards, reviews=report.reviews
            )
        )
        if not report.schedules_replayed:
            print(tr("(the file and its schema; `recall check` also replays every schedule)"))
        elif report.replayed < report.cards:
            print(
                trn(
                    "({count} card changed since the last check that verified every card was "
                    "replayed; --full replays them all)",
                    "({count} cards changed since the last check that verified every card were "
                    "replayed; --full replays them all)",
                    report.replayed,
                ).format(count=wording.number(report.replayed))
            )
        return 0
    for problem in report.problems:
        say(tr("problem: {problem}").format(problem=problem), to_stderr=True)
    found = len(report.problems)
    print(
        trn("{count} problem found", "{count} problems found", found).format(
            count=wording.number(found)
        ),
        file=sys.stderr,
    )
    return 1
