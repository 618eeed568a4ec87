"""Recall beside the desktop app a learner would otherwise run: Anki's own, on the same cards.

Both start on a virtual X screen (Xvfb; Anki's web engine does not paint offscreen) from a
warm OS cache, on the same 10,000-card collection, taking turns: Recall through its real
entry point until its deck list is painted (``benchmarks.start_app DATA --deck-list``),
Anki desktop (the ``aqt`` package) until its deck browser's page has loaded
(``benchmarks.start_anki``). Memory is the summed PSS of each process tree at that moment:
Anki's web engine runs helper processes beside its window.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

from benchmarks.common import BENCHMARKS, Figure, child_environment
from recall.collection import opening

DESKTOP_GOAL = 0.5
_PROFILE = "bench"
_PREPARE = """
import shutil, sys
from pathlib import Path
from aqt.profiles import ProfileManager
base, collection = Path(sys.argv[1]), Path(sys.argv[2])
manager = ProfileManager(ProfileManager.get_created_base_folder(str(base)))
manager.setupMeta()
manager.meta["firstRun"] = False
manager.meta["defaultLang"] = "en_US"
manager.create(sys.argv[3])
manager.load(sys.argv[3])
manager.set_check_for_addon_updates(False)
manager.save()
shutil.copyfile(collection, Path(manager.profileFolder()) / "collection.anki2")
"""


def measure_desktop(
    recall_database: Path, anki_collection: Path, cards: int, work: Path, rounds: int
) -> list[Figure]:
    """Start time to the deck list and the process tree's memory, beside Anki desktop.

    Returns no figure (and says why) where Xvfb or Anki desktop is missing.
    """
    if shutil.which("Xvfb") is None:
        print("  not measured: Xvfb is not installed (apt-get install xvfb)", flush=True)
        return []
    folder = work / f"desktop-{cards}"
    data = folder / "recall"
    data.mkdir(parents=True)
    shutil.copyfile(recall_database, data / "recall.sqlite3")
    opening.open_library(data, datetime.now(UTC), install=False).close()  # as after an upgrade
    base = folder / "anki"
    subprocess.run(
        [sys.executable, "-c", _PREPARE, str(base), str(anki_collection), _PROFILE],
        check=True,
        cwd=BENCHMARKS.parent,
    )
    display = ":87"
    screen = subprocess.Popen(
        ["Xvfb", display, "-screen", "0", "1280x800x24", "-nolisten", "tcp"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        time.sleep(1)
        environment = child_environment(
            DISPLAY=display, QT_QPA_PLATFORM="xcb", QTWEBENGINE_DISABLE_SANDBOX="1"
        )
        recall = ["benchmarks.start_app", str(data), "--deck-list"]
        anki = ["benchmarks.start_anki", str(base)]
        _launch(recall, environment)  # warm-up: files cached from here on
        _launch(anki, environment)
        ours: list[tuple[float, float]] = []
        theirs: list[tuple[float, float]] = []
        for index in range(rounds):
            if index % 2 == 0:
                ours.append(_launch(recall, environment))
                theirs.append(_launch(anki, environment))
            else:
                theirs.append(_launch(anki, environment))
                ours.append(_launch(recall, environment))
    finally:
        screen.terminate()
        screen.wait(10)
    figures = [
        Figure(
            title=f"Start to the deck list beside Anki desktop, {cards:,} cards",
            measures=(
                "from process start to the deck list painted on an X screen (Xvfb), warm OS "
                "cache, each app on the same collection"
            ),
            recall=[milliseconds for milliseconds, _ in ours],
            baseline_name="Anki desktop (aqt) until its deck browser has loaded",
            baseline=[milliseconds for milliseconds, _ in theirs],
            goal=f"ratio <= {DESKTOP_GOAL}",
        ),
        Figure(
            title=f"Memory with the deck list shown beside Anki desktop, {cards:,} cards",
            measures=(
                "summed PSS of the process and every child process once the deck list is "
                "shown (Anki's web engine runs helper processes)"
            ),
            recall=[megabytes for _, megabytes in ours],
            baseline_name="Anki desktop (aqt), its whole process tree",
            baseline=[megabytes for _, megabytes in theirs],
            unit="MB",
            goal=f"ratio <= {DESKTOP_GOAL}",
        ),
    ]
    return [Figure(**{**f.__dict__, "goal_met": f.ratio <= DESKTOP_GOAL}) for f in figures]


def _launch(arguments: list[str], environment: dict[str, str]) -> tuple[float, float]:
    """Milliseconds to the painted line, and the tree's PSS in MB it reported.

    The app runs in its own session so that, once it has reported, every process it
    started (Anki's web engine helpers outlive their parent) is ended with it.
    """
    started = time.perf_counter()
    process = subprocess.Popen(
        [sys.executable, "-m", *arguments],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env=environment,
        start_new_session=True,
    )
    try:
        assert process.stdout is not None
        deadline = started + 180
        for line in process.stdout:
            if line.startswith("painted "):
                elapsed = (time.perf_counter() - started) * 1000
                return elapsed, int(line.split()[2]) / 1024
            if time.perf_counter() > deadline:
                break
        raise RuntimeError(f"{' '.join(arguments)} ended without showing its deck list")
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait(30)
