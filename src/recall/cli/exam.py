"""The command line's `exam` and `forecast`: a deck's exam day, and what the days until it hold."""

from __future__ import annotations

import argparse
from datetime import date
from typing import TYPE_CHECKING

from recall.cli.shared import ProgressLine, now, open_database, print_json, say
from recall.core.i18n import tr

if TYPE_CHECKING:
    from recall.cli.shared import Commands


def add_commands(commands: Commands) -> None:
    """Add `exam` and `forecast` to the command line's subcommands."""
    exam = commands.add_parser(
        "exam",
        help=tr("show, set or clear the day you sit an exam on a deck"),
        description=tr(
            "With DATE, give the deck an exam day: from then on, a card it would "
            "schedule on the exam day or after is due on one of the last study days before it "
            "instead. --clear takes the day away. Without either, print the deck's exam day. "
            "The day is synced with the deck."
        ),
    )
    exam.add_argument("deck", metavar="DECK_ID")
    exam.add_argument("day", nargs="?", type=_day, metavar="DATE", help=tr("YYYY-MM-DD"))
    exam.add_argument("--clear", action="store_true", help=tr("take the deck's exam day away"))
    exam.set_defaults(handler=_exam)

    forecast = commands.add_parser(
        "forecast",
        help=tr("how much of a deck you can expect to remember on an exam day"),
        description=tr(
            "The share of the deck (its subdecks included) expected to be remembered "
            "on the exam day (the mean FSRS recall chance then; new cards count 0), how many "
            "cards a day reach --target in a simulation of the days until then, and what "
            "skipping today costs."
        ),
    )
    forecast.add_argument("deck", metavar="DECK_ID")
    forecast.add_argument(
        "--exam", type=_day, metavar="DATE", help=tr("the exam day (default: the deck's own)")
    )
    forecast.add_argument(
        "--target",
        type=float,
        default=0.9,
        metavar="SHARE",
        help=tr("the share to remember on the day, e.g. 0.9 (default)"),
    )
    forecast.add_argument("--json", action="store_true", help=tr("print JSON"))
    forecast.set_defaults(handler=_forecast)


def _day(text: str) -> date:
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            tr("{text} is not a date like 2027-01-15").format(text=repr(text))
        ) from None


def _exam(args: argparse.Namespace) -> int:
    from recall.core import wording
    from recall.options import exam_dates

    if args.clear and args.day is not None:
        say(tr("recall exam: give a DATE or --clear, not both"), to_stderr=True)
        return 2
    database = open_database(args)
    try:
        if args.clear or args.day is not None:
            day = None if args.clear else args.day
            deck = exam_dates.set_exam_date(database, args.deck, day, now())
            if day is None:
                say(tr("{deck}: no exam day.").format(deck=deck.name))
            else:
                say(
                    tr(
                        "{deck}: exam on {day}. Cards are scheduled to be seen shortly before "
                        "it; `recall forecast {key}` says what to expect."
                    ).format(deck=deck.name, day=wording.long_day(day), key=args.deck)
                )
            return 0
        found = exam_dates.exam_date(database, args.deck)
        say(found.isoformat() if found is not None else tr("no exam day"))
        return 0
    finally:
        database.close()


def _forecast(args: argparse.Namespace) -> int:
    from recall.options import exam_dates
    from recall.scheduling import Schedulers
    from recall.stats import exam

    database = open_database(args)
    progress = ProgressLine(tr("simulating"))
    try:
        day = args.exam or exam_dates.exam_date(database, args.deck)
        if day is None:
            raise exam.ExamDateError(
                tr(
                    "deck {deck} has no exam day: give --exam DATE, or set one with "
                    "`recall exam {key} DATE`"
                ).format(deck=repr(args.deck), key=args.deck)
            )
        figures = exam.forecast(
            database, Schedulers(), args.deck, day, now(), args.target, progress=progress
        )
    finally:
        progress.finish()
        database.close()
    if args.json:
        print_json(figures.as_json())
    else:
        for line in figures.reading():
            say(line)
    return 0
