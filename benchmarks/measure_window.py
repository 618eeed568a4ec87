"""Nothing freezes the window: each long operation run in the real window, its thread watched.

Runs ``benchmarks.window_gaps`` in a child process (offscreen Qt) on a copy of the largest
collection. Each operation's figure is the longest gap between ticks of a 5 ms timer on
the window's thread while it ran, beside the longest gap of the idle window over as long.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from benchmarks.common import BENCHMARKS, Figure

GAP_GOAL_MS = 100.0


def measure_window(
    recall_database: Path, import_file: Path, cards: int, work: Path, rounds: int
) -> list[Figure]:
    """One figure per operation: the window's longest freeze while it ran."""
    samples: dict[str, tuple[list[float], list[float], list[float], str]] = {}
    for round_ in range(rounds):
        folder = work / f"window-{cards}-{round_}"
        folder.mkdir()
        database = folder / "data" / "recall.sqlite3"
        database.parent.mkdir()
        shutil.copyfile(recall_database, database)
        environment = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
        result = subprocess.run(
            [
                sys.executable,
                "-m",
                "benchmarks.window_gaps",
                str(database),
                str(folder),
                str(import_file),
            ],
            capture_output=True,
            text=True,
            check=True,
            cwd=BENCHMARKS.parent,
            env=environment,
        )
        for name, (busy, idle, took, said) in json.loads(result.stdout.splitlines()[-1]).items():
            entry = samples.setdefault(name, ([], [], [], said))
            entry[0].append(busy)
            entry[1].append(idle)
            entry[2].append(took)
    figures = []
    for name, (busy, idle, took, said) in samples.items():
        figure = Figure(
            title=f"Window frozen during: {name}, {cards:,} cards",
            measures=(
                f"the longest time the window's thread did not run while '{name}' ran from "
                f"the real window (about {sorted(took)[len(took) // 2] / 1000:.1f} s of work; "
                f"it ended with '{said}')"
            ),
            recall=busy,
            baseline_name="the idle window over as long",
            baseline=idle,
            goal=f"Recall's longest gap <= {GAP_GOAL_MS:g} ms",
        )
        figures.append(Figure(**{**figure.__dict__, "goal_met": max(figure.recall) <= GAP_GOAL_MS}))
    return figures
