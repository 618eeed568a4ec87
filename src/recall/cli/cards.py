"""Command-line commands on cards found by a search: search, suspend, unsuspend, tag."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from recall.cli.shared import now, open_database, print_json, print_table
from recall.core import i18n, wording
from recall.core.errors import RecallError
from recall.core.i18n import mark, tr, trn

if TYPE_CHECKING:
    from recall.changes.cards import Changes
    from recall.cli.shared import Commands
    from recall.collection.browse import Finder
    from recall.storage import Database

QUERY_HELP = mark("a search, as in the browser (docs/search.md); quote it for the shell")
# A card's state in the table (``browse.STATE_NAMES``, and suspended).
STATES = {
    "new": mark("new"),
    "learning": mark("learning"),
    "review": mark("review"),
    "relearning": mark("relearning"),
    "suspended": mark("suspended"),
}


def add_commands(commands: Commands) -> None:
    """Add the card commands to the command line's subcommands."""
    search = commands.add_parser("search", help=tr("list the cards a search finds"))
    search.add_argument("query", metavar="QUERY", help=i18n.tr(QUERY_HELP))
    search.add_argument("--json", action="store_true", help=tr("print JSON instead of a table"))
    search.set_defaults(handler=_search)

    suspend = commands.add_parser("suspend", help=tr("suspend the cards a search finds"))
    suspend.add_argument("query", metavar="QUERY", help=i18n.tr(QUERY_HELP))
    suspend.set_defaults(handler=_suspend, suspended=True)

    unsuspend = commands.add_parser("unsuspend", help=tr("unsuspend the cards a search finds"))
    unsuspend.add_argument("query", metavar="QUERY", help=i18n.tr(QUERY_HELP))
    unsuspend.set_defaults(handler=_suspend, suspended=False)

    tag = commands.add_parser("tag", help=tr("add or remove tags of the cards a search finds"))
    tag.add_argument("query", metavar="QUERY", help=i18n.tr(QUERY_HELP))
    tag.add_argument("--add", action="append", default=[], metavar="TAG", help=tr("add TAG"))
    tag.add_argument("--remove", action="append", default=[], metavar="TAG", help=tr("remove TAG"))
    tag.set_defaults(handler=_tag)


def _tools(database: Database) -> tuple[Finder, Changes]:
    from recall.changes.cards import Changes
    from recall.collection.browse import Finder
    from recall.scheduling import Scheduler, Schedulers

    with database.reading() as transaction:
        preferences = transaction.options.preferences()
    finder = Finder(database, Scheduler(), preferences)
    return finder, Changes(database, Schedulers(), preferences)


def _search(args: argparse.Namespace) -> int:
    from recall.collection import browse

    database = open_database(args)
    try:
        finder, _ = _tools(database)
        found = finder.find(args.query, now())
        rows = finder.rows(found.card_ids)
    finally:
        database.close()
    if args.json:
        print_json([browse.to_json(row) for row in rows])
        return 0
    print_table(
        (tr("ID"), tr("DECK"), tr("STATE"), tr("DUE"), tr("QUESTION")),
        [
            (
                str(row.id),  # an id to type back, not a quantity: no separators
                row.deck_name,
                i18n.tr(
                    STATES["suspended" if row.suspended else browse.STATE_NAMES[row.memory.state]]
                ),
                row.memory.due.astimezone().strftime("%Y-%m-%d") if row.memory.due else "-",
                browse.question(row),
            )
            for row in rows
        ],
    )
    listed = trn("{count} card", "{count} cards", len(rows)).format(count=wording.number(len(rows)))
    print(listed, flush=True)
    return 0


def _suspend(args: argparse.Namespace) -> int:
    database = open_database(args)
    try:
        finder, changes = _tools(database)
        found = finder.find(args.query, now())
        change = changes.suspend(found.card_ids, args.suspended)
    finally:
        database.close()
    if args.suspended:
        done = tr("suspended {changed} of {count} matching cards")
    else:
        done = tr("unsuspended {changed} of {count} matching cards")
    print(done.format(changed=change.changed, count=len(found.card_ids)))
    return 0


def _tag(args: argparse.Namespace) -> int:
    if not args.add and not args.remove:
        raise RecallError(tr("say which tags to change: --add TAG and/or --remove TAG"))
    database = open_database(args)
    try:
        finder, changes = _tools(database)
        moment = now()
        found = finder.find(args.query, moment)
        change = changes.tag(found.card_ids, moment, add=args.add, remove=args.remove)
    finally:
        database.close()
    print(
        tr("changed the tags of {changed} of {count} matching cards").format(
            changed=change.changed, count=len(found.card_ids)
        )
    )
    return 0
