"""Rounds of `recall sync` killed (SIGKILL) at random moments, until enough kills land in them.

Each round runs in ``tests.helpers.sync_worker``, which prints ``started`` once loaded; the
kill comes a random part of the round's expected length after that. A round that ends
before its kill teaches how long that command's rounds take now (a round after a completed
one has less to do), so the next kill comes within that. Rounds go on until ``kills``
kills have landed mid-round, up to ``attempts`` rounds: a busy machine makes rounds
longer, which only makes kills land more easily.
"""

from __future__ import annotations

import random
import signal
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
START_TIMEOUT = 120  # seconds for a worker to load; a hang fails instead of waiting for ever
ROUND_TIMEOUT = 600  # seconds for a trial round to finish


def _start(arguments: Sequence[str]) -> subprocess.Popen[str]:
    process = subprocess.Popen(
        [sys.executable, "-m", "tests.helpers.sync_worker", *arguments],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    assert process.stdout is not None
    line = process.stdout.readline()  # the worker's event: its round begins now
    assert line == "started\n", f"the sync worker did not start: {line!r}"
    return process


def round_length(arguments: Sequence[str]) -> float:
    """How long a whole round of ``recall ARGUMENTS`` takes here, from its start to its end
    (run it on copies: the round changes the folders it is given)."""
    process = _start(arguments)
    began = time.monotonic()
    status = process.wait(timeout=ROUND_TIMEOUT)
    length = time.monotonic() - began
    assert process.stdout is not None
    process.stdout.close()
    assert status == 0, f"the trial round failed with status {status}"
    return length


def kill_rounds(
    commands: Sequence[Sequence[str]],
    lengths: Sequence[float],
    rng: random.Random,
    kills: int,
    attempts: int,
    within: tuple[float, float] = (0.1, 1.0),
) -> int:
    """Run the commands in turn, each killed a random part (``within``) of its round's
    expected length after it started, until ``kills`` kills landed mid-round.

    Args:
        commands: The arguments of each ``recall`` command, run in turn.
        lengths: How long a whole round of each takes (``round_length``).
        rng: Chooses the moments.
        kills: How many kills must land while a round runs.
        attempts: The most rounds started.
        within: The range, as parts of the expected length, a kill is drawn from.

    Returns:
        How many kills landed mid-round.
    """
    expected = list(lengths)
    landed = 0
    for attempt in range(attempts):
        if landed >= kills:
            break
        index = attempt % len(commands)
        process = _start(commands[index])
        began = time.monotonic()
        try:
            process.wait(timeout=expected[index] * rng.uniform(*within))
        except subprocess.TimeoutExpired:
            process.send_signal(signal.SIGKILL)
            landed += 1
        else:
            expected[index] = min(expected[index], time.monotonic() - began)
        process.wait()
        assert process.stdout is not None
        process.stdout.close()
    return landed
