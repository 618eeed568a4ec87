"""The window's arguments are read without the command groups, and read as the whole
parser reads them; anything else goes to the whole parser."""

from __future__ import annotations

import subprocess
import sys

import pytest

from recall.cli import main as cli


@pytest.mark.parametrize(
    "argv",
    [
        [],
        ["--data-dir", "somewhere"],
        ["--data-dir=somewhere", "--minimized"],
        ["--lock-wait", "2.5", "--self-test"],
        ["--data", "abbreviated"],
    ],
)
def test_the_window_arguments_are_read_as_the_whole_parser_reads_them(argv: list[str]) -> None:
    args = cli._window_arguments(argv)
    assert args is not None
    assert vars(args) == vars(cli._parser().parse_args(argv))


@pytest.mark.parametrize(
    "argv",
    [
        ["decks"],
        ["--data-dir", "somewhere", "decks", "--json"],
        ["-h"],
        ["--help"],
        ["--lock-wait", "forever"],
        ["--data-dir"],
        ["--no-such-option"],
        ["schema"],
    ],
)
def test_a_command_help_or_mistake_goes_to_the_whole_parser(argv: list[str]) -> None:
    assert cli._window_arguments(argv) is None


def test_reading_the_window_arguments_imports_no_command_group() -> None:
    script = (
        "import sys; from recall.cli import main as cli; "
        "assert cli._window_arguments(['--minimized']) is not None; "
        "print(sorted(f'recall.cli.{group}' for group in cli.COMMAND_GROUPS "
        "if f'recall.cli.{group}' in sys.modules))"
    )
    finished = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=True
    )
    assert finished.stdout.strip() == "[]"


def test_help_lists_every_command_group(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        cli.main(["--help"])
    shown = capsys.readouterr().out
    for command in ("decks", "export", "search", "postpone", "cram", "exam", "sync", "api"):
        assert f"    {command} " in shown
