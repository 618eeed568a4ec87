"""The command line: no arguments opens the window; subcommands work on decks and history.

This module parses: the options every command takes, the window and the self-test, and
the command groups, each in its own ``recall.cli`` module with an ``add_commands`` function.
A new group of commands is one module and one line in ``COMMAND_GROUPS``.

Qt is imported only when the window opens, so the subcommands start fast and run on
machines without a display; the command groups are imported only when a command is named
(or help asked for), so the window's start does not pay for building every command.
"""

from __future__ import annotations

import argparse
import importlib
import io
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import NoReturn

from recall import __version__
from recall.core import i18n
from recall.core.errors import DeckErrors, RecallError
from recall.core.i18n import tr
from recall.host import paths

_BROKEN_PIPE = 141  # what a shell reports for a command its reader stopped (128 + SIGPIPE)

# The modules of the command groups (in ``recall.cli``), in the order `recall --help` lists
# them; each has an ``add_commands(commands)`` function.
COMMAND_GROUPS: tuple[str, ...] = (
    "decks",
    "history",
    "cards",
    "time_off",
    "custom_study",
    "options",
    "exam",
    "sync",
    "api",
)


def main(argv: Sequence[str] | None = None) -> int:
    """Run Recall with command-line arguments; returns the exit status."""
    # The language the system asks for, before any message is built; the window applies
    # the learner's own choice once it has opened the collection.
    i18n.start()
    args = _window_arguments(argv)
    parser = None
    if args is None:  # a command, help, or arguments to explain: the whole parser
        parser = _parser()
        args = parser.parse_args(argv)
    if args.self_test:
        if parser is not None and args.handler is not _open_window:
            parser.error(tr("--self-test takes no command"))
        args.handler = _self_test
    if parser is None or args.handler is not _print_schema():
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
        from recall.cli.shared import say

        for line in str(error).split("\n"):
            say(line, to_stderr=True)
        return 1
    except RecallError as error:
        _explain_failure(error, paths.data_dir(args.data_dir))
        return 1
    except KeyboardInterrupt:
        return 130
    return status


def _print_schema() -> object:
    """The schema command's handler, the one command that needs no data folder (its group
    is imported already when a command was parsed)."""
    from recall.cli import decks

    return decks.print_schema


def _silence_stdout() -> None:
    """Point standard output at the null device, so flushing it at exit cannot fail."""
    try:
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, sys.stdout.fileno())
        os.close(null)
    except (OSError, ValueError, io.UnsupportedOperation):
        pass  # not a file (a test's capture): nothing is flushed to a pipe at exit


class _NotTheWindowError(Exception):
    """The arguments name a command, ask for help, or hold a mistake to explain."""


class _WindowParser(argparse.ArgumentParser):
    """The options every command takes, without the commands: a mistake raises instead of
    printing, so the whole parser explains it with its own usage."""

    def error(self, message: str) -> NoReturn:
        raise _NotTheWindowError(message)


def _window_arguments(argv: Sequence[str] | None) -> argparse.Namespace | None:
    """The arguments when they name no command and ask for no help (the window, the
    self-test), read without importing a command group; else None."""
    parser = _parser(_WindowParser(prog="recall", add_help=False), with_commands=False)
    try:
        args, rest = parser.parse_known_args(argv)
    except _NotTheWindowError:
        return None
    if rest:
        return None
    return args


def _parser(
    parser: argparse.ArgumentParser | None = None, with_commands: bool = True
) -> argparse.ArgumentParser:
    if parser is None:
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
    if with_commands:
        commands = parser.add_subparsers(title=tr("commands"), metavar="COMMAND")
        for group in COMMAND_GROUPS:
            importlib.import_module(f"recall.cli.{group}").add_commands(commands)
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
    from recall.cli.shared import point_at_newest_backup, say
    from recall.storage import MissingDatabaseError, is_unusable

    if isinstance(error, MissingDatabaseError):
        from recall.safekeeping import recovery

        say(f"recall: {recovery.missing_advice(data_dir, error)}", to_stderr=True)
        return
    say(f"recall: {error}", to_stderr=True)
    if is_unusable(error):
        from recall.safekeeping import backups

        point_at_newest_backup(backups.list_backups(paths.backup_dir(data_dir)))
