"""The command line: no arguments opens the window; subcommands work on decks and history.

This module parses: the options every command takes, the window and the self-test, and
the command groups, each in its own ``cli_*`` module with an ``add_commands`` function.
A new group of commands is one module and one line in ``COMMAND_GROUPS``.

Qt is imported only when the window opens, so the subcommands start fast and run on
machines without a display.
"""

from __future__ import annotations

import argparse
import io
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from recall import __version__
from recall.cli import api as cli_api
from recall.cli import cards, sync
from recall.cli import custom_study as cli_custom_study
from recall.cli import decks as cli_decks
from recall.cli import exam as cli_exam
from recall.cli import history as cli_history
from recall.cli import options as cli_options
from recall.cli import time_off as cli_time_off
from recall.cli.shared import point_at_newest_backup, say
from recall.core import i18n
from recall.core.errors import DeckErrors, RecallError
from recall.core.i18n import tr
from recall.host import paths

if TYPE_CHECKING:
    from recall.cli.shared import Commands

_BROKEN_PIPE = 141  # what a shell reports for a command its reader stopped (128 + SIGPIPE)

# The command groups in the order `recall --help` lists them.
COMMAND_GROUPS: tuple[Callable[[Commands], None], ...] = (
    cli_decks.add_commands,
    cli_history.add_commands,
    cards.add_commands,
    cli_time_off.add_commands,
    cli_custom_study.add_commands,
    cli_options.add_commands,
    cli_exam.add_commands,
    sync.add_commands,
    cli_api.add_commands,
)


def main(argv: Sequence[str] | None = None) -> int:
    """Run Recall with command-line arguments; returns the exit status."""
    # The language the system asks for, before any message is built; the window applies
    # the learner's own choice once it has opened the collection.
    i18n.start()
    parser = _parser()
    args = parser.parse_args(argv)
    if args.self_test:
        if args.handler is not _open_window:
            parser.error(tr("--self-test takes no command"))
        args.handler = _self_test
    if args.handler is not cli_decks.print_schema:
        _note_set_aside(paths.data_dir(args.data_dir))
    try:
        status: int = args.handler(args)
        sys.stdout.flush()  # here, so a closed pipe is met inside this try
    except BrokenPipeError:
        # The reader went away (`recall decks --json | head`): stop quietly, as other
        # command-line tools do, and let nothing write to the closed pipe at exit.
        _silence_stdout()
        return _BROKEN_PIPE
    except DeckErrors as error:
        for line in str(error).split("\n"):
            say(line, to_stderr=True)
        return 1
    except RecallError as error:
        _explain_failure(error, paths.data_dir(args.data_dir))
        return 1
    except KeyboardInterrupt:
        return 130
    return status


def _silence_stdout() -> None:
    """Point standard output at the null device, so flushing it at exit cannot fail."""
    try:
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, sys.stdout.fileno())
        os.close(null)
    except (OSError, ValueError, io.UnsupportedOperation):
        pass  # not a file (a test's capture): nothing is flushed to a pipe at exit


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="recall",
        description=tr("Spaced-repetition quizzes. With no command, opens the window."),
    )
    parser.add_argument("--version", action="version", version=f"Recall {__version__}")
    parser.add_argument(
        "--data-dir",
        metavar="DIR",
        help=tr(
            "the folder holding Recall's database (default: ${variable} if set, else the "
            "platform's user data folder)"
        ).format(variable=paths.DATA_DIR_VARIABLE),
    )
    parser.add_argument(
        "--lock-wait",
        metavar="SECONDS",
        type=_seconds,
        help=tr(
            "how long a command waits for another program holding the database before it "
            "gives up with 'in use' (default: 10)"
        ),
    )
    parser.add_argument(
        "--self-test",
        action="store_true",
        help=tr(
            "open the window (offscreen when there is no display), study one card by keyboard "
            "in a new temporary data folder (or --data-dir), check the review was stored, quit; "
            "exits 0 if all went well, else 1"
        ),
    )
    parser.add_argument(
        "--minimized",
        action="store_true",
        help=tr(
            "open the window in the tray (minimised when the desktop has no tray): how "
            "Recall starts when you log in"
        ),
    )
    parser.set_defaults(handler=_open_window)
    commands = parser.add_subparsers(title=tr("commands"), metavar="COMMAND")
    for add_commands in COMMAND_GROUPS:
        add_commands(commands)
    return parser


def _seconds(text: str) -> float:
    try:
        seconds = float(text)
    except ValueError:
        seconds = -1.0
    if not 0 <= seconds <= 3600:  # also refuses nan
        raise argparse.ArgumentTypeError(
            tr("{text} is not a number of seconds from 0 to 3600").format(text=repr(text))
        )
    return seconds


def _open_window(args: argparse.Namespace) -> int:
    from recall.host import window_libraries

    if window_libraries.uses_xcb():
        missing = window_libraries.problem()
        if missing is not None:  # Qt would abort with a generic message
            print(f"recall: {missing}", file=sys.stderr)
            return 1
    from recall.ui.application import run  # Qt loads only here

    status: int = run(paths.data_dir(args.data_dir), minimized=args.minimized)
    return status


def _self_test(args: argparse.Namespace) -> int:
    from recall.ui.self_test import run_self_test  # Qt loads only here

    data_dir = None if args.data_dir is None else paths.data_dir(args.data_dir)
    return run_self_test(data_dir)


def _note_set_aside(data_dir: Path) -> None:
    """Every start says so while a database set aside as damaged is kept."""
    from recall.safekeeping import recovery

    files = recovery.set_aside_files(data_dir)
    if files:
        print(tr("note: {notice}").format(notice=recovery.set_aside_notice(files)), file=sys.stderr)


def _explain_failure(error: RecallError, data_dir: Path) -> None:
    """Print a failure, and for a damaged or missing database, the way back."""
    from recall.storage import MissingDatabaseError, is_unusable

    if isinstance(error, MissingDatabaseError):
        from recall.safekeeping import recovery

        say(f"recall: {recovery.missing_advice(data_dir, error)}", to_stderr=True)
        return
    say(f"recall: {error}", to_stderr=True)
    if is_unusable(error):
        from recall.safekeeping import backups

        point_at_newest_backup(backups.list_backups(paths.backup_dir(data_dir)))
