"""Time Recall from launch to its first card on screen: the median of several --self-test runs.

Run with ``.venv/bin/python scripts/startup_time.py [--runs N] [--cold] EXECUTABLE...``::

    .venv/bin/python scripts/startup_time.py .venv/bin/recall dist/Recall/recall dist/onefile/recall

compares running from source, the one-folder app and the one-file app. Each run starts
``EXECUTABLE --self-test`` (offscreen, in a new temporary data folder) and measures from just
before the process starts to the moment its "first card on screen" line arrives through the
pipe; the self-test prints that line as soon as Enter on the deck list has put the first card
on screen, and every run must pass. The executables take turns, run after run, so a change in
the machine's load falls on all of them alike. One warm-up run of each comes first and is not
counted, so the measured runs find their files in the OS cache, as on a second launch;
``--cold`` instead empties the OS cache before every run (Linux, as root).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

from recall.ui.self_test import FIRST_CARD

LINE = f"self-test: {FIRST_CARD}"


def launch_to_first_card(executable: str) -> tuple[float, float]:
    """One self-test run: seconds from launch to the first card, and to the process's exit."""
    environment = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    started = time.perf_counter()
    process = subprocess.Popen(
        [executable, "--self-test"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=environment,
    )
    assert process.stdout is not None
    first_card = None
    for line in process.stdout:
        if first_card is None and line.rstrip("\n") == LINE:
            first_card = time.perf_counter() - started
    _out, errors = process.communicate()
    ended = time.perf_counter() - started
    if process.returncode != 0 or first_card is None:
        raise SystemExit(f"{executable} --self-test failed:\n{errors}")
    return first_card, ended


def drop_caches() -> None:
    """Empty Linux's page cache, so the next run reads every file from disk."""
    subprocess.run(["sync"], check=True)
    Path("/proc/sys/vm/drop_caches").write_text("3\n", encoding="ascii")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=9, help="measured runs of each (default 9)")
    parser.add_argument("--cold", action="store_true", help="empty the OS cache before each run")
    parser.add_argument("executables", nargs="+", metavar="EXECUTABLE", help="a recall to time")
    args = parser.parse_args()
    first_cards: dict[str, list[float]] = {executable: [] for executable in args.executables}
    exits: dict[str, list[float]] = {executable: [] for executable in args.executables}
    if not args.cold:
        for executable in args.executables:
            launch_to_first_card(executable)  # warm-up: its files are cached from here on
    for _run in range(args.runs):
        for executable in args.executables:
            if args.cold:
                drop_caches()
            first_card, ended = launch_to_first_card(executable)
            first_cards[executable].append(first_card)
            exits[executable].append(ended)

    def ms(values: list[float]) -> str:
        return (
            f"median {statistics.median(values) * 1000:.0f} ms "
            f"(min {min(values) * 1000:.0f}, max {max(values) * 1000:.0f})"
        )

    cache = "cold cache" if args.cold else "warm cache"
    for executable in args.executables:
        print(f"{executable}: {args.runs} runs, {cache}")
        print(f"  launch to first card: {ms(first_cards[executable])}")
        print(f"  launch to exit:       {ms(exits[executable])}")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
