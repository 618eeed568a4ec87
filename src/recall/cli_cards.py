"""Command-line commands on cards found by a search: search, suspend, unsuspend, tag."""

from __future__ import annotations

import argparse
import json
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from recall.errors import RecallError
from recall.settings import Settings

if TYPE_CHECKING:
    from recall.browse import Finder
    from recall.card_changes import Changes
    from recall.storage import Database

QUERY_HELP = "a search, as in the browser (docs/search.md); quote it for the shell"


def add_commands(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the card commands to the command line's subcommands."""
    search = commands.add_parser("search", help="list the cards a search finds")
    search.add_argument("query", metavar="QUERY", help=QUERY_HELP)
    search.add_argument("--json", action="store_true", help="print JSON instead of a table")
    search.set_defaults(handler=_search)

    suspend = commands.add_parser("suspend", help="suspend the cards a search finds")
    suspend.add_argument("query", metavar="QUERY", help=QUERY_HELP)
    suspend.set_defaults(handler=_suspend, suspended=True)

    unsuspend = commands.add_parser("unsuspend", help="unsuspend the cards a search finds")
    unsuspend.add_argument("query", metavar="QUERY", help=QUERY_HELP)
    unsuspend.set_defaults(handler=_suspend, suspended=False)

    tag = commands.add_parser("tag", help="add or remove tags of the cards a search finds")
    tag.add_argument("query", metavar="QUERY", help=QUERY_HELP)
    tag.add_argument("--add", action="append", default=[], metavar="TAG", help="add TAG")
    tag.add_argument("--remove", action="append", default=[], metavar="TAG", help="remove TAG")
    tag.set_defaults(handler=_tag)


def _tools(database: Database) -> tuple[Finder, Changes]:
    from recall.browse import Finder
    from recall.card_changes import Changes
    from recall.scheduling import Scheduler

    settings = Settings()
    scheduler = Scheduler(settings)
    return Finder(database, scheduler, settings), Changes(database, scheduler, settings)


def _search(args: argparse.Namespace) -> int:
    from recall import browse
    from recall.cli import open_database

    database = open_database(args)
    try:
        finder, _ = _tools(database)
        found = finder.find(args.query, datetime.now(UTC))
        rows = finder.rows(found.card_ids)
    finally:
        database.close()
    if args.json:
        print(json.dumps([browse.to_json(row) for row in rows], indent=2, ensure_ascii=False))
        return 0
    table = [("ID", "DECK", "STATE", "DUE", "QUESTION")]
    for row in rows:
        due = row.memory.due.astimezone().strftime("%Y-%m-%d") if row.memory.due else "-"
        state = "suspended" if row.suspended else browse.STATE_NAMES[row.memory.state]
        table.append((str(row.id), row.deck_name, state, due, browse.question(row)))
    widths = [max(len(line[column]) for line in table) for column in range(4)]
    for line in table:
        cells = [cell.ljust(width) for cell, width in zip(line, widths, strict=False)]
        print("  ".join([*cells, line[4]]).rstrip())
    print(f"{len(rows)} card{'s' if len(rows) != 1 else ''}", flush=True)
    return 0


def _suspend(args: argparse.Namespace) -> int:
    from recall.cli import open_database

    database = open_database(args)
    try:
        finder, changes = _tools(database)
        found = finder.find(args.query, datetime.now(UTC))
        change = changes.suspend(found.card_ids, args.suspended)
    finally:
        database.close()
    verb = "suspended" if args.suspended else "unsuspended"
    print(f"{verb} {change.changed} of {len(found.card_ids)} matching cards")
    return 0


def _tag(args: argparse.Namespace) -> int:
    from recall.cli import open_database

    if not args.add and not args.remove:
        raise RecallError("say which tags to change: --add TAG and/or --remove TAG")
    database = open_database(args)
    try:
        finder, changes = _tools(database)
        now = datetime.now(UTC)
        found = finder.find(args.query, now)
        change = changes.tag(found.card_ids, now, add=args.add, remove=args.remove)
    finally:
        database.close()
    print(f"changed the tags of {change.changed} of {len(found.card_ids)} matching cards")
    return 0
