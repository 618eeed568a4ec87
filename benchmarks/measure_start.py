"""Cold start to the first card painted, and peak memory, each in a new process.

Recall runs through its real entry point (``benchmarks/start_app.py``) offscreen, on a
data folder holding the bundled deck only or a copy of the large database; the floor
(``benchmarks/start_floor.py``) imports PySide6, sqlmodel and fsrs and paints an empty
window. Runs take turns, after one warm-up run of each so that every run finds its files
in the OS cache, as a second launch does. Time runs from just before the process starts
to its "painted" line; memory is the process's peak RSS (VmHWM) at that moment.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from benchmarks.common import Figure, child_environment
from recall.collection import opening

START_GOAL = 1.1
MEMORY_GOAL = 1.5
_BUNDLED_DECK = "activation-recompute"


@dataclass(frozen=True)
class Launch:
    """One child run: seconds to the first paint, and peak RSS in MB."""

    milliseconds: float
    megabytes: float


def launch(arguments: list[str]) -> Launch:
    """Start ``python -m benchmarks.<module> ...`` offscreen and wait for its painted line."""
    environment = child_environment(QT_QPA_PLATFORM="offscreen")
    started = time.perf_counter()
    result = subprocess.run(
        [sys.executable, "-m", *arguments],
        capture_output=True,
        text=True,
        env=environment,
        timeout=120,
        check=False,
    )
    elapsed = (time.perf_counter() - started) * 1000
    lines = [line for line in result.stdout.splitlines() if line.startswith("painted ")]
    if result.returncode != 0 or not lines:
        raise RuntimeError(f"{' '.join(arguments)} failed:\n{result.stdout}\n{result.stderr}")
    return Launch(elapsed, int(lines[0].split()[1]) / 1024)


def _turns(commands: list[list[str]], rounds: int) -> list[list[Launch]]:
    for command in commands:
        launch(command)  # warm-up: its files are cached from here on
    runs: list[list[Launch]] = [[] for _ in commands]
    for index in range(rounds):
        order = list(range(len(commands)))
        shift = index % len(order)
        for which in order[shift:] + order[:shift]:
            runs[which].append(launch(commands[which]))
    return runs


def measure_start(
    large_database: Path, large_key: str, cards: int, work: Path, rounds: int
) -> list[Figure]:
    """Cold start with the bundled deck and with the large database, and peak memory."""
    bundled = work / "start-bundled"
    large = work / "start-large"
    bundled.mkdir()
    large.mkdir()
    shutil.copyfile(large_database, large / "recall.sqlite3")
    # Opened once untimed, as the learner's first start after an upgrade does (a replay on
    # study days, with its note): what is measured is the start of an up-to-date library.
    opening.open_library(large, datetime.now(UTC), install=False).close()
    app_bundled = ["benchmarks.start_app", str(bundled), _BUNDLED_DECK]
    app_large = ["benchmarks.start_app", str(large), large_key]
    floor = ["benchmarks.start_floor"]
    bare = ["benchmarks.start_floor", "--bare"]
    small_runs, large_runs, floor_runs, bare_runs = _turns(
        [app_bundled, app_large, floor, bare], rounds
    )

    def ms(runs: list[Launch]) -> list[float]:
        return [run.milliseconds for run in runs]

    def mb(runs: list[Launch]) -> list[float]:
        return [run.megabytes for run in runs]

    floor_name = "floor: import PySide6, sqlmodel, fsrs; paint an empty window"
    start_what = (
        "from process start to the first card painted on the review screen (offscreen, "
        "warm OS cache), through Recall's real entry point"
    )
    figures = [
        Figure(
            title="Cold start, bundled deck",
            measures=start_what,
            recall=ms(small_runs),
            baseline_name=floor_name,
            baseline=ms(floor_runs),
            goal=f"ratio <= {START_GOAL}",
        ),
        Figure(
            title=f"Cold start, {cards:,}-card database",
            measures=start_what,
            recall=ms(large_runs),
            baseline_name=floor_name,
            baseline=ms(floor_runs),
            goal=f"ratio <= {START_GOAL}",
        ),
        Figure(
            title=f"Peak memory, {cards:,}-card database on the review screen",
            measures="peak RSS (VmHWM) of the process when the first card is painted",
            recall=mb(large_runs),
            baseline_name="an empty Qt window (PySide6 only)",
            baseline=mb(bare_runs),
            unit="MB",
            goal=f"ratio <= {MEMORY_GOAL}",
        ),
        Figure(
            title=f"Peak memory, {cards:,}-card database, against the floor",
            measures="the same peak RSS against the floor with Recall's libraries imported",
            recall=mb(large_runs),
            baseline_name=floor_name,
            baseline=mb(floor_runs),
            unit="MB",
        ),
    ]
    goals = [START_GOAL, START_GOAL, MEMORY_GOAL, None]
    return [
        Figure(**{**figure.__dict__, "goal_met": figure.ratio <= goal})
        if goal is not None
        else figure
        for figure, goal in zip(figures, goals, strict=True)
    ]
