"""Command-line custom study: list the cards a cram or other custom session would show."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from recall.cli.shared import now, open_database, print_table
from recall.core import i18n
from recall.core.i18n import mark, tr, trn

if TYPE_CHECKING:
    from recall.cli.shared import Commands
    from recall.collection.custom_study import SessionRequest

# The kinds of ``study.custom.SessionKind``, named here so that starting the command line
# loads no study code.
_KINDS = ("cram", "search", "preview", "forgotten", "new", "extra", "timed")
_LIST_HELP = mark("print the cards the session would show, in order (you study them in the window)")


def add_commands(commands: Commands) -> None:
    """Add ``cram`` and ``custom`` to the command line's subcommands."""
    cram = commands.add_parser(
        "cram", help=tr("the cards a cram session of a search shows; cram answers move no due date")
    )
    cram.add_argument("search", metavar="SEARCH", help=tr("the search (docs/search.md)"))
    cram.add_argument("--limit", type=int, default=100, metavar="N", help=tr("at most N cards"))
    cram.add_argument("--list", action="store_true", required=True, help=i18n.tr(_LIST_HELP))
    cram.set_defaults(handler=_cram)

    custom = commands.add_parser(
        "custom", help=tr("the cards a custom study session shows: preview, forgotten, new, ...")
    )
    custom.add_argument(
        "kind",
        choices=_KINDS,
        help=tr(
            "preview (due soon), forgotten (Again today), new (from a tag), extra (a deck "
            "beyond its limits), timed (most to gain first), cram, search (a search's cards, "
            "answers rescheduled)"
        ),
    )
    custom.add_argument("--search", default="", metavar="QUERY", help=tr("only cards it finds"))
    custom.add_argument("--days", type=int, default=1, help=tr("preview: days ahead (default 1)"))
    custom.add_argument("--tag", default="", help=tr("new: the tag"))
    custom.add_argument("--deck", default="", help=tr("extra: the deck's name or id"))
    custom.add_argument("--minutes", type=int, default=20, help=tr("timed: minutes (default 20)"))
    custom.add_argument("--limit", type=int, default=100, metavar="N", help=tr("at most N cards"))
    custom.add_argument("--list", action="store_true", required=True, help=i18n.tr(_LIST_HELP))
    custom.set_defaults(handler=_custom)


def _cram(args: argparse.Namespace) -> int:
    from recall.collection.custom_study import SessionRequest
    from recall.study.custom import SessionKind

    return _list(args, SessionRequest(SessionKind.CRAM, search=args.search, limit=args.limit))


def _custom(args: argparse.Namespace) -> int:
    from recall.collection.custom_study import SessionRequest
    from recall.study.custom import SessionKind

    request = SessionRequest(
        SessionKind(args.kind),
        search=args.search,
        days=args.days,
        tag=args.tag,
        deck=args.deck,
        limit=args.limit,
        minutes=args.minutes,
    )
    return _list(args, request)


def _list(args: argparse.Namespace, request: SessionRequest) -> int:
    from recall.collection import browse
    from recall.collection.custom_study import CustomStudy
    from recall.scheduling import Scheduler, Schedulers

    database = open_database(args)
    try:
        with database.reading() as transaction:
            preferences = transaction.options.preferences()
        finder = browse.Finder(database, Scheduler(), preferences)
        custom = CustomStudy(database, Schedulers(), finder)
        queue = custom.build(request, now())
        rows = custom.rows(queue)
    finally:
        database.close()
    if rows:
        print_table(
            (tr("ID"), tr("DECK"), tr("DUE"), tr("QUESTION")),
            [
                (
                    str(row.id),
                    row.deck_name,
                    tr("new")
                    if row.memory.due is None
                    else f"{row.memory.due.astimezone():%Y-%m-%d}",
                    browse.question(row)[:60],
                )
                for row in rows
            ],
        )
    count = len(rows)
    if queue.cram:
        line = trn(
            "{session}: {count} card. Answers move no due date. Study them in the window: "
            "Tools > Custom Study.",
            "{session}: {count} cards. Answers move no due date. Study them in the window: "
            "Tools > Custom Study.",
            count,
        )
    else:
        line = trn(
            "{session}: {count} card. Study them in the window: Tools > Custom Study.",
            "{session}: {count} cards. Study them in the window: Tools > Custom Study.",
            count,
        )
    print(line.format(session=queue.title, count=count))
    return 0
