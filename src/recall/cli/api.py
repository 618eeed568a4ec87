"""`recall api serve`: the local API without the window, until Ctrl+C, printing its key."""

from __future__ import annotations

import argparse
import sys
import threading
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from recall.cli.shared import Commands


def add_commands(commands: Commands) -> None:
    """Add `api` to the command line's subcommands."""
    api = commands.add_parser(
        "api",
        help="the local API for tools that write cards (docs/api.md)",
        description="An AnkiConnect-compatible JSON server on 127.0.0.1 (docs/api.md).",
    )
    actions = api.add_subparsers(title="actions", metavar="ACTION", required=True)
    serve = actions.add_parser(
        "serve",
        help="serve the local API until Ctrl+C, printing its address and key",
        description="Serve the local API on 127.0.0.1 without the window (guiBrowse is "
        "refused). A key is made and stored if there is none yet; the window's "
        "Preferences > Local API shows the same key.",
    )
    serve.add_argument(
        "--port",
        type=_port,
        metavar="N",
        help="the port to listen on (default: the preference, 8765; 0 picks a free one)",
    )
    serve.set_defaults(handler=_serve)


def _port(text: str) -> int:
    if not text.isdigit() or not 0 <= int(text) <= 65535:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port from 0 to 65535")
    return int(text)


def _serve(args: argparse.Namespace) -> int:
    from recall.api import configuration, settings
    from recall.cli.shared import now, open_database, say

    database = open_database(args)
    try:
        preferences = configuration.ensure_key(database, now())
        server = settings.server_for(database, preferences, now, port=args.port)
        server.start()
        try:
            server.ready.wait()
            say(f"Serving the local API on {server.url} (Ctrl+C stops it)")
            say(f"Key: {preferences.api_key}")
            sys.stdout.flush()
            threading.Event().wait()  # until Ctrl+C
        finally:
            server.stop()
    finally:
        database.close()
    return 0
