"""What every measurement shares: a figure beside its baseline, timing helpers, the machine."""

from __future__ import annotations

import math
import os
import platform
import sqlite3
import statistics
import subprocess
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

BENCHMARKS = Path(__file__).resolve().parent


def child_environment(**extra: str) -> dict[str, str]:
    """The environment of a benchmark's child process: this checkout's own code first (an
    editable install in the environment may be another checkout's), then ``extra``.

    ``PYTHONDONTWRITEBYTECODE`` is left out: a user's machine has the bytecode cached, and
    a child compiling every module again would time the compiler, not the start."""
    source = os.pathsep.join((str(BENCHMARKS.parent / "src"), str(BENCHMARKS.parent)))
    inherited = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    return {**inherited, "PYTHONPATH": source, **extra}


CACHE = BENCHMARKS / ".cache"


def percentile(values: Sequence[float], share: float) -> float:
    """The nearest-rank percentile (``share`` in 0-1) of ``values``."""
    ordered = sorted(values)
    rank = max(1, math.ceil(share * len(ordered)))
    return ordered[rank - 1]


@dataclass(frozen=True)
class Figure:
    """One comparison: Recall's samples beside a baseline's, taken in the same run.

    Attributes:
        title: What was measured, in a few words.
        measures: What exactly the figure covers, for the docs.
        recall: Recall's samples.
        baseline_name: What the baseline is.
        baseline: The baseline's samples.
        unit: "ms" or "MB".
        tail: Whether the 99th percentile matters (latencies a learner feels).
        goal: The goal in words, if there is one.
        goal_met: Whether this run met it.
    """

    title: str
    measures: str
    recall: list[float]
    baseline_name: str
    baseline: list[float]
    unit: str = "ms"
    tail: bool = False
    goal: str = ""
    goal_met: bool | None = None
    notes: list[str] = field(default_factory=list)

    @property
    def recall_median(self) -> float:
        return statistics.median(self.recall)

    @property
    def baseline_median(self) -> float:
        return statistics.median(self.baseline)

    @property
    def ratio(self) -> float:
        return self.recall_median / self.baseline_median

    @property
    def recall_p99(self) -> float:
        return percentile(self.recall, 0.99)

    @property
    def baseline_p99(self) -> float:
        return percentile(self.baseline, 0.99)


def elapsed_ms(action: Callable[[], object]) -> float:
    """How long one call of ``action`` took, in milliseconds."""
    start = time.perf_counter()
    action()
    return (time.perf_counter() - start) * 1000


def alternate(
    first: Callable[[], float], second: Callable[[], float], rounds: int
) -> tuple[list[float], list[float]]:
    """Run two measurements in turns, swapping which goes first each round.

    A change in the machine's load then falls on both alike. Each callable returns one
    sample (milliseconds or megabytes).
    """
    ours: list[float] = []
    theirs: list[float] = []
    for index in range(rounds):
        if index % 2 == 0:
            ours.append(first())
            theirs.append(second())
        else:
            theirs.append(second())
            ours.append(first())
    return ours, theirs


@dataclass(frozen=True)
class Machine:
    """The machine a run measured."""

    cores: int
    cpu: str
    python: str
    sqlite: str
    system: str
    revision: str = "unknown"


def _git(folder: Path, *arguments: str) -> str:
    done = subprocess.run(
        ["git", *arguments], cwd=folder, capture_output=True, text=True, timeout=30, check=True
    )
    return done.stdout.strip()


def revision(folder: Path = BENCHMARKS.parent) -> str:
    """The commit measured, marked when its source or benchmarks differ from that commit."""
    try:
        commit = _git(folder, "rev-parse", "--short", "HEAD")
        changed = _git(folder, "status", "--porcelain", "--", "src", "benchmarks")
    except (OSError, subprocess.SubprocessError):
        return "unknown (not a git checkout)"
    return f"{commit} with uncommitted changes" if changed else commit


def machine() -> Machine:
    """Cores, CPU model, Python and SQLite versions of this machine."""
    cpu = platform.processor() or "unknown"
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.exists():
        for line in cpuinfo.read_text(errors="replace").splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    return Machine(
        cores=os.cpu_count() or 1,
        cpu=cpu,
        python=platform.python_version(),
        sqlite=sqlite3.sqlite_version,
        system=f"{platform.system()} {platform.release()}",
        revision=revision(),
    )
