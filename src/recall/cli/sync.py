"""`recall sync`: one round through the sync folder, printing what went out and came in."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from recall.core.i18n import tr
from recall.host import paths

if TYPE_CHECKING:
    from recall.cli.shared import Commands


def add_commands(commands: Commands) -> None:
    """Add `sync` to the command line's subcommands."""
    sync = commands.add_parser(
        "sync",
        help=tr("sync through a folder a file-sync tool shares (Syncthing, Dropbox, ...)"),
        description=tr(
            "Write this device's changes to the sync folder and merge the other "
            "devices' (docs/sync.md). The folder and name are remembered for next time."
        ),
    )
    sync.add_argument("--folder", metavar="DIR", help=tr("the shared sync folder"))
    sync.add_argument("--name", metavar="NAME", help=tr("this device's name, as others see it"))
    sync.set_defaults(handler=_sync)


def _sync(args: argparse.Namespace) -> int:
    from recall.cli.shared import ProgressLine, now, open_database, say
    from recall.sync.rounds import sync

    folder = None if args.folder is None else paths.named_folder(args.folder, "--folder")
    database = open_database(args)
    progress = ProgressLine(tr("syncing")) if sys.stderr.isatty() else None
    try:
        report = sync(
            database,
            now(),
            folder,
            args.name,
            progress=progress or (lambda _done, _total: None),
        )
    finally:
        if progress is not None:
            progress.finish()
        database.close()
    for line in report.lines():
        say(line)
    # What came in was merged all the same; a script still learns that nothing went out.
    return 0 if report.problem is None else 1
