"""Peak memory of importing a large Recall JSON deck, in a child process of its own."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

from benchmarks.common import BENCHMARKS, Figure

JSON_PEAK_GOAL_MB = 1024
"""A 1,000,000-card deck imports within 1 GB: read card by card, never held whole."""


def measure_json_peak(deck_file: Path, cards: int, work: Path) -> Figure:
    """Peak memory of a process that imports a large Recall JSON deck and nothing else.

    Measured once at 1,000,000 cards (the 459 MB generated deck) on the shared 2-core
    development machine at load 7.6: 278 MB peak (VmHWM), 59 s of CPU in 227 s wall;
    reading the whole file and its models took 6.1 GB and 106 s.
    """
    with tempfile.TemporaryDirectory(dir=work) as name:
        result = subprocess.run(
            [sys.executable, "-m", "benchmarks.import_peak", str(deck_file), f"{name}/r.sqlite3"],
            capture_output=True,
            text=True,
            env={**os.environ, "PYTHONPATH": str(BENCHMARKS.parent)},
            timeout=3600,
            check=False,
        )
    lines = [line for line in result.stdout.splitlines() if line.startswith("imported ")]
    if result.returncode != 0 or not lines:
        raise RuntimeError(f"the import of {deck_file} failed:\n{result.stderr}")
    imported, _milliseconds, peak_kb = (int(word) for word in lines[0].split()[1:])
    if imported != cards:
        raise RuntimeError(f"{deck_file}: {imported:,} cards imported of {cards:,}")
    peak = peak_kb / 1024
    return Figure(
        title=f"Peak memory, import a {cards:,}-card Recall JSON deck",
        measures=(
            "peak RSS (VmHWM) of a process that imports the deck into an empty database, "
            "cards read, checked and written a batch at a time"
        ),
        recall=[peak],
        baseline_name="the goal: 1 GB",
        baseline=[float(JSON_PEAK_GOAL_MB)],
        unit="MB",
        goal=f"peak <= {JSON_PEAK_GOAL_MB:,} MB",
        goal_met=peak <= JSON_PEAK_GOAL_MB,
    )
