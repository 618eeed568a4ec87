"""Statistics: ``recall stats --json`` and the statistics window, beside Anki's statistics
backend (the ``graphs`` request its Statistics screen makes) on the same collection.

Three figures, each with Anki's request as the baseline, taking turns:

- the figures computed in the process (``stats.collect`` and the JSON the command prints)
  against ``graphs`` on an open collection, both over the whole history;
- ``recall stats --json`` as a new process (open, compute, print) against a new process
  that opens the Anki collection, makes the request and closes it;
- the statistics window opened offscreen until its first chart (the forecast, two walks of
  the due index, computed before anything else) is painted, against the ``graphs`` request
  alone (Anki's screen then renders it in a web view, which is not counted); the time until
  every section is filled is noted beside it.
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

from anki.collection import Collection

from benchmarks import anki_peer
from benchmarks.common import Figure, alternate, child_environment, elapsed_ms
from benchmarks.generate import deck_name
from recall import stats
from recall.collection import opening
from recall.core.preferences import Preferences
from recall.host import paths
from recall.storage import Database

STATS_GOAL_MS = 1000.0
_ANKI_PROCESS = (
    "import sys\n"
    "from anki.collection import Collection\n"
    "collection = Collection(sys.argv[1])\n"
    "collection._backend.graphs(search=sys.argv[2], days=0)\n"
    "collection.close()\n"
)


def anki_graphs(collection: Collection, cards: int) -> object:
    """What Anki's Statistics screen asks its backend for, over the deck's whole history."""
    return collection._backend.graphs(search=_search(cards), days=0)


def _search(cards: int) -> str:
    return f'deck:"{deck_name(cards)}"'


def measure_stats(
    recall_database: Path, anki_collection: Path, cards: int, deck_key: str, work: Path, rounds: int
) -> list[Figure]:
    """The three figures above on copies of the generated collections."""
    folder = work / f"stats-{cards}"
    folder.mkdir()
    data = folder / "recall-data"
    data.mkdir()
    database_path = paths.database_path(data)
    shutil.copyfile(recall_database, database_path)
    anki_copy = folder / "anki.anki2"
    shutil.copyfile(anki_collection, anki_copy)
    database = Database(database_path)  # upgrades a cached older schema once, here
    # What the first opening of the library does once (the time zone named, the schedules
    # replayed on its study days, the day counts and follow-ups brought up to date), so
    # that neither the figures in process nor the command's first run pay for it.
    opening.upgrade_schedules(database, datetime.now(UTC))
    collection = anki_peer.open_collection(anki_copy, cards)
    try:
        computed = _in_process(database, collection, cards, deck_key, rounds)
        window = _window(database, collection, cards, deck_key, rounds)
    finally:
        collection.close()
        database.close()
    command = _command(data, anki_copy, cards, deck_key, max(2, rounds // 2))
    return [computed, command, window]


def _in_process(
    database: Database, collection: Collection, cards: int, deck_key: str, rounds: int
) -> Figure:
    settings = Preferences()
    found: list[stats.Statistics] = []

    def recall() -> float:
        def work() -> None:
            figures = stats.collect(database, settings, datetime.now(UTC), deck_key, None)
            json.dumps(stats.to_json(figures))
            found.append(figures)

        return elapsed_ms(work)

    def anki() -> float:
        return elapsed_ms(lambda: anki_graphs(collection, cards))

    recall()
    anki()
    ours, theirs = alternate(recall, anki, rounds)
    figures = found[-1]
    figure = Figure(
        title=f"Statistics computed, {cards:,}-card collection",
        measures=(
            "every figure of the statistics over the whole history (what `recall stats "
            "--json` prints), in the running process"
        ),
        recall=ours,
        baseline_name="Anki: the graphs request of its Statistics screen, whole history",
        baseline=theirs,
        goal=f"Recall's median <= {STATS_GOAL_MS:,.0f} ms",
        notes=[
            f"Recall counted {figures.totals.reviews:,} reviews, {figures.cards.total:,} cards "
            f"and {len(figures.misconceptions)} misconceptions"
        ],
    )
    return Figure(**{**figure.__dict__, "goal_met": figure.recall_median <= STATS_GOAL_MS})


COMMAND_LIMIT_S = 300  # a `recall stats` process still running then is stopped


def _command(data: Path, anki_copy: Path, cards: int, deck_key: str, rounds: int) -> Figure:
    environment = child_environment()
    recall_command = [
        sys.executable, "-m", "recall", "--data-dir", str(data), "stats", "--deck", deck_key,
        "--json",
    ]  # fmt: skip
    anki_command = [sys.executable, "-c", _ANKI_PROCESS, str(anki_copy), _search(cards)]
    stopped: list[float] = []

    def run(command: list[str]) -> float:
        started = time.perf_counter()
        try:
            result = subprocess.run(
                command,
                capture_output=True,
                text=True,
                env=environment,
                timeout=COMMAND_LIMIT_S,
                check=False,
            )
        except subprocess.TimeoutExpired:
            if command is anki_command:
                raise
            # A sample of at least the limit, counted against the goal; the next rounds
            # would each wait as long again, so the rest of Recall's are left out.
            elapsed = (time.perf_counter() - started) * 1000
            stopped.append(elapsed)
            return elapsed
        elapsed = (time.perf_counter() - started) * 1000
        if result.returncode != 0:
            raise RuntimeError(f"{command[:4]} failed:\n{result.stderr}")
        return elapsed

    def recall() -> float:
        return stopped[0] if stopped else run(recall_command)

    ours, theirs = alternate(recall, lambda: run(anki_command), rounds)
    if stopped:
        ours = stopped
    figure = Figure(
        title=f"`recall stats --json`, {cards:,}-card collection",
        measures="a new process: start, open the database, compute every figure, print JSON",
        recall=ours,
        baseline_name="Anki: a new process opening the collection for its graphs request",
        baseline=theirs,
        goal=f"Recall's median <= {STATS_GOAL_MS:,.0f} ms",
        notes=(
            [
                f"the process was still running after {COMMAND_LIMIT_S} s and was stopped "
                "(one sample of the time waited; the other rounds left out)"
            ]
            if stopped
            else []
        ),
    )
    return Figure(**{**figure.__dict__, "goal_met": figure.recall_median <= STATS_GOAL_MS})


def _window(
    database: Database, collection: Collection, cards: int, deck_key: str, rounds: int
) -> Figure:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import QEventLoop, QTimer, SignalInstance
    from PySide6.QtWidgets import QApplication

    from recall.ui.statistics.window import StatisticsWindow

    app = QApplication.instance() or QApplication([])
    assert isinstance(app, QApplication)
    settings = Preferences()

    filled: list[float] = []
    unshown: list[float] = []

    def wait_for(signal: SignalInstance) -> Callable[[], None]:
        """Start listening to ``signal`` now; the returned call waits until it has come
        (at once if it already has: one event-loop pass can deliver several results)."""
        came: list[bool] = []
        signal.connect(lambda *_: came.append(True))

        def wait() -> None:
            if came:
                return
            loop = QEventLoop()
            signal.connect(loop.quit)
            QTimer.singleShot(120_000, loop.quit)
            loop.exec()

        return wait

    def open_window() -> float:
        started = time.perf_counter()
        window = StatisticsWindow(
            database, settings, lambda: datetime.now(UTC), [(deck_key, deck_name(cards))], deck_key
        )
        forecast = wait_for(window.forecast_shown)
        loaded = wait_for(window.loaded)
        analysed = wait_for(window.item_analysis_shown)
        window.show()
        window.refresh()
        forecast()
        window.page.forecast_chart.repaint()  # painted now, not at the next event
        elapsed = (time.perf_counter() - started) * 1000
        if not window.page.forecast_chart.headers:
            # No chart within the wait's two minutes: a sample at least that long, counted
            # against the goal, and the window closed without waiting for the rest.
            unshown.append(elapsed)
        else:
            loaded()
            filled.append((time.perf_counter() - started) * 1000)
            # Closed once its last job is done, so that the next opening does not wait.
            analysed()
        window.close()
        window.deleteLater()
        app.processEvents()
        return elapsed

    def anki() -> float:
        return elapsed_ms(lambda: anki_graphs(collection, cards))

    open_window()
    ours, theirs = alternate(open_window, anki, rounds)
    figure = Figure(
        title=f"Statistics window, {cards:,}-card collection",
        measures=(
            "from opening the window (offscreen) to its first chart painted (the forecast, "
            "computed first; the other schedules' figures and then the history's follow on "
            "the task runner's thread)"
        ),
        recall=ours,
        baseline_name="Anki: the graphs request alone (its web view's drawing not counted)",
        baseline=theirs,
        goal=f"Recall's median <= {STATS_GOAL_MS:,.0f} ms",
        notes=_window_notes(filled, unshown),
    )
    return Figure(**{**figure.__dict__, "goal_met": figure.recall_median <= STATS_GOAL_MS})


def _window_notes(filled: list[float], unshown: list[float]) -> list[str]:
    """When every section was filled, and how many openings showed no chart in time."""
    notes = []
    if filled:
        notes.append(f"every section filled after {statistics.median(filled):,.0f} ms (median)")
    if unshown:
        notes.append(
            f"{len(unshown)} of {len(unshown) + len(filled)} openings showed no chart within "
            "the two minutes waited"
        )
    return notes
