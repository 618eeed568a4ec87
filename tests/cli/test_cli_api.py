"""`recall api serve`: the local API without the window, until Ctrl+C."""

from __future__ import annotations

import re
import signal
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from recall.cli.main import main
from tests.helpers.api_server import call


@dataclass(frozen=True)
class _Address:
    url: str


def _serve(data_dir: Path) -> tuple[subprocess.Popen[str], str, str]:
    """Start `recall api serve --port 0`; the process, its address and its key."""
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "recall",
            "--data-dir",
            str(data_dir),
            "api",
            "serve",
            "--port",
            "0",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        serving = process.stdout.readline()  # printed once the server is ready
        match = re.fullmatch(r"Serving the local API on (http://127\.0\.0\.1:\d+) .*\n", serving)
        assert match is not None, serving + (process.stderr.read() if process.stderr else "")
        key_line = process.stdout.readline()
        assert key_line.startswith("Key: ")
    except BaseException:
        process.kill()  # a server that did not start as it should is not left running
        process.communicate()
        raise
    return process, match.group(1), key_line.removeprefix("Key: ").strip()


def _stop(process: subprocess.Popen[str]) -> int:
    """Ctrl+C, as the learner stops it; its exit status. A server still running after a
    minute is killed and reaped (the test fails on the timeout, with nothing left behind)."""
    process.send_signal(signal.SIGINT)
    try:
        process.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        process.kill()
        process.communicate()
        raise
    return process.returncode


def test_serve_prints_its_key_answers_and_stops_on_ctrl_c(tmp_path: Path) -> None:
    process, url, key = _serve(tmp_path / "data")
    try:
        server = _Address(url)
        assert call(server, "deckNames", key=key)["error"] is None
        assert call(server, "guiBrowse", key=key, query="")["error"].startswith(
            "guiBrowse needs Recall's window"
        )
    finally:
        status = _stop(process)
    assert status == 130
    # The key was stored: a second run serves with the same one.
    again, _port, same_key = _serve(tmp_path / "data")
    assert _stop(again) == 130
    assert same_key == key


def test_serve_refuses_a_port_out_of_range(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["--data-dir", str(tmp_path), "api", "serve", "--port", "70000"])
    assert exit_.value.code == 2
    assert "'70000' is not a port from 0 to 65535" in capsys.readouterr().err
