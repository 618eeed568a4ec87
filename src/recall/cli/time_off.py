"""Command-line time off: postpone due cards, advance cards before a trip, spread days away."""

from __future__ import annotations

import argparse
from datetime import date
from typing import TYPE_CHECKING

from recall.cli.shared import now, open_database, print_table
from recall.core import i18n
from recall.core.i18n import mark, tr

if TYPE_CHECKING:
    from collections.abc import Callable
    from datetime import datetime

    from recall.cli.shared import Commands
    from recall.collection.time_off import Move, TimeOff
    from recall.storage import Database

    Plan = Callable[[TimeOff, datetime], list[Move]]

SEARCH_HELP = mark("only cards this search finds (docs/search.md), e.g. 'deck:French'")


def add_commands(commands: Commands) -> None:
    """Add the time-off commands to the command line's subcommands."""
    postpone = commands.add_parser(
        "postpone",
        help=tr("move review cards due today some days later, those that lose least first"),
    )
    postpone.add_argument(
        "--days", type=int, default=1, help=tr("days to move them by (default 1)")
    )
    postpone.add_argument("--count", type=int, metavar="N", help=tr("only the N that lose least"))
    _common(postpone)
    postpone.set_defaults(handler=_postpone)

    advance = commands.add_parser(
        "advance", help=tr("make cards due in the coming days due today, before a trip")
    )
    advance.add_argument(
        "--within",
        type=int,
        default=7,
        metavar="DAYS",
        help=tr("cards due within DAYS (default 7)"),
    )
    advance.add_argument("--count", type=int, metavar="N", help=tr("only the N that cost least"))
    _common(advance)
    advance.set_defaults(handler=_advance)

    away = commands.add_parser(
        "away",
        help=tr("spread the reviews due while you are away over as many days after you are back"),
    )
    away.add_argument(
        "leave", type=_date, metavar="FROM", help=tr("the first day away, YYYY-MM-DD")
    )
    away.add_argument("back", type=_date, metavar="TO", help=tr("the last day away, YYYY-MM-DD"))
    _common(away)
    away.set_defaults(handler=_away)


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--search", default="", metavar="QUERY", help=i18n.tr(SEARCH_HELP))
    parser.add_argument(
        "--dry-run", action="store_true", help=tr("list the cards and their new due days only")
    )


def _date(text: str) -> date:
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            tr("{text} is not a date like 2026-07-14").format(text=repr(text))
        ) from None


def _postpone(args: argparse.Namespace) -> int:
    return _run(
        args,
        "postpone",
        lambda off, moment: off.plan_postpone(args.search, args.days, moment, args.count),
    )


def _advance(args: argparse.Namespace) -> int:
    return _run(
        args,
        "advance",
        lambda off, moment: off.plan_advance(args.search, args.within, moment, args.count),
    )


def _away(args: argparse.Namespace) -> int:
    return _run(
        args,
        "spread the time away of",
        lambda off, moment: off.plan_away(args.search, args.leave, args.back, moment),
    )


def _run(args: argparse.Namespace, verb: str, plan: Plan) -> int:
    from recall.collection import time_off

    database = open_database(args)
    try:
        off = _time_off(database)
        moment = now()
        moves = plan(off, moment)
        if args.dry_run or not moves:
            _print(moves)
            unchanged = " " + tr("Nothing changed (--dry-run).") if moves else ""
            print(time_off.describe(moves, verb) + unchanged)
            return 0
        change = off.make(moves, moment, verb.capitalize())
    finally:
        database.close()
    _print(moves)
    undo = tr("Undo it in the window; each card's history holds it.")
    print(f"{time_off.describe(moves, verb)} {undo}")
    return 0 if change.changed == len(moves) else 1


def _print(moves: list[Move]) -> None:
    if moves:
        print_table(
            (tr("ID"), tr("DUE BEFORE"), tr("DUE NOW"), tr("RECALL")),
            [
                (
                    str(move.card_id),
                    move.due_before.astimezone().strftime("%Y-%m-%d"),
                    move.due_after.astimezone().strftime("%Y-%m-%d"),
                    f"{move.retrievability:.0%}",
                )
                for move in moves
            ],
        )


def _time_off(database: Database) -> TimeOff:
    from recall.changes.cards import Changes
    from recall.collection.browse import Finder
    from recall.collection.time_off import TimeOff
    from recall.scheduling import Scheduler, Schedulers

    with database.reading() as transaction:
        preferences = transaction.options.preferences()
    schedulers = Schedulers()
    finder = Finder(database, Scheduler(), preferences)
    changes = Changes(database, schedulers, preferences)
    return TimeOff(database, schedulers, finder, changes, preferences.day_rollover_hour)
