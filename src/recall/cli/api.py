"""`recall api serve`: the local API without the window, until Ctrl+C, printing its key."""

from __future__ import annotations

import argparse
import sys
import threading
from typing import TYPE_CHECKING

from recall.core.i18n import tr

if TYPE_CHECKING:
    from recall.cli.shared import Commands


def add_commands(commands: Commands) -> None:
    """Add `api` to the command line's subcommands."""
    api = commands.add_parser(
        "api",
        help=tr("the local API for tools that write cards (docs/api.md)"),
        description=tr("An AnkiConnect-compatible JSON server on 127.0.0.1 (docs/api.md)."),
    )
    actions = api.add_subparsers(title=tr("actions"), metavar="ACTION", required=True)
    serve = actions.add_parser(
        "serve",
        help=tr("serve the local API until Ctrl+C, printing its address and key"),
        description=tr(
            "Serve the local API on 127.0.0.1 without the window (guiBrowse is "
            "refused). A key is made and stored if there is none yet; the window's "
            "Preferences > Local API shows the same key."
        ),
    )
    serve.add_argument(
        "--port",
        type=_port,
        metavar="N",
        help=tr("the port to listen on (default: the preference, 8765; 0 picks a free one)"),
    )
    serve.set_defaults(handler=_serve)


def _port(text: str) -> int:
    if not text.isdigit() or not 0 <= int(text) <= 65535:
        raise argparse.ArgumentTypeError(
            tr("{text} is not a port from 0 to 65535").format(text=repr(text))
        )
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
            say(tr("Serving the local API on {url} (Ctrl+C stops it)").format(url=server.url))
            say(tr("Key: {key}").format(key=preferences.api_key))
            sys.stdout.flush()
            threading.Event().wait()  # until Ctrl+C
        finally:
            server.stop()
    finally:
        database.close()
    return 0
