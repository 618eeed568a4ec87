"""Child process: each long operation run from the real window while its thread is watched.

``python -m benchmarks.window_gaps DATABASE WORK_FOLDER IMPORT_FILE`` opens the main window
(offscreen) on ``DATABASE`` and runs, one after another, what a learner starts from the
menus: Check Database, export the review history, export the largest deck, import a file,
back up now and restore a backup (from File > Backups). A timer on the window's thread
ticks every 5 ms; the longest gap between two ticks while an operation runs is how long
the window was frozen.
For the baseline, the same timer watches the idle window for as long as the operation took.
Prints one JSON object: ``{operation: [longest gap ms, idle gap ms, duration ms, the title
of what the window said at the end]}``.
"""

from __future__ import annotations

import json
import random
import sys
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import PySide6
from PySide6.QtCore import QSettings, QTimer
from PySide6.QtWidgets import QApplication

from recall.safekeeping import backups
from recall.scheduling import Schedulers
from recall.storage import Database
from recall.ui.application import configure
from recall.ui.data.backups_dialog import BackupsDialog
from recall.ui.main_window import MainWindow
from recall.ui.none_guard import guard_none
from recall.ui.prompts import Prompts
from recall.ui.tasks import keep_out_of_full_collections

TICK_MS = 5


class _Answers(Prompts):
    """Says yes to every question and keeps what the window tells, so nothing blocks."""

    def __init__(self) -> None:
        super().__init__()
        self.told: list[tuple[str, str]] = []

    def confirm(self, title: str, question: str) -> bool:
        return True

    def retry(self, title: str, problem: str) -> bool:
        return False

    def tell(self, title: str, text: str, warning: bool = False) -> None:
        self.told.append((title, text))


class _Watch:
    """The longest gap between ticks of a timer on the window's thread."""

    def __init__(self, app: QApplication) -> None:
        self._app = app
        self._timer = QTimer()
        self._timer.setInterval(TICK_MS)
        self._timer.timeout.connect(self._tick)
        self._last = 0.0
        self.longest = 0.0

    def _tick(self) -> None:
        now = time.perf_counter()
        self.longest = max(self.longest, (now - self._last) * 1000)
        self._last = now

    def begin(self) -> None:
        """Start watching: from here on, a blocked window thread shows as a late tick."""
        self.longest = 0.0
        self._last = time.perf_counter()
        self._timer.start()

    def run_until(self, done: Callable[[], bool], timeout_s: float) -> None:
        """Run the event loop until ``done()`` (or the time is up), then stop watching."""
        deadline = time.perf_counter() + timeout_s
        while not done() and time.perf_counter() < deadline:
            self._app.processEvents()
            time.sleep(0.001)
        self._tick()
        self._timer.stop()


def main() -> None:
    database_path, work, import_file = (Path(argument) for argument in sys.argv[1:4])
    guard_none(PySide6.__version__)  # as the app does at start (ui/none_guard.py)
    app = QApplication.instance() or QApplication(["recall-bench"])
    assert isinstance(app, QApplication)
    configure(app)
    database = Database(database_path)
    prompts = _Answers()

    def clock() -> datetime:
        return datetime.now(UTC)

    window = MainWindow(
        database,
        QSettings(str(work / "window.ini"), QSettings.Format.IniFormat),
        clock,
        rng=random.Random(1),
        prompts=prompts,
    )
    window.show()
    keep_out_of_full_collections()  # as the app does once its window shows
    app.processEvents()
    watch = _Watch(app)
    largest = max(
        range(window.deck_list.model.rowCount()),
        key=lambda row: window.deck_list.model.deck_at(row).total,
    )
    deck = window.deck_list.model.deck_at(largest)
    backup = backups.make_backup(database, datetime.now(UTC), "benchmark")
    operations: dict[str, Callable[[], object]] = {
        "Check Database": window.safekeeping.check_database,
        "Export the review history": lambda: window.transfers.export_reviews_to(
            work / "reviews.csv"
        ),
        "Export a deck": lambda: window.transfers.export_deck_to(
            deck.key, deck.name, work / "deck.json"
        ),
        "Import a deck": lambda: window.transfers.import_files([import_file]),
    }
    backups_dialog = BackupsDialog(
        database, Schedulers(), clock, prompts, parent=window, tasks=window.tasks
    )
    operations["Back up now"] = backups_dialog.back_up_now
    operations["Restore a backup"] = lambda: backups_dialog.restore(backup)
    results: dict[str, list[object]] = {}
    for name, start in operations.items():
        told = len(prompts.told)
        began = time.perf_counter()
        watch.begin()
        start()

        def finished(told: int = told) -> bool:
            busy = window.operations.busy or backups_dialog.operations.busy
            return not busy and len(prompts.told) > told

        watch.run_until(finished, 600)
        took = (time.perf_counter() - began) * 1000
        busy_gap = watch.longest
        watch.begin()
        watch.run_until(lambda: False, took / 1000)
        results[name] = [busy_gap, watch.longest, took, prompts.told[-1][0]]
    database.close()
    print(json.dumps(results), flush=True)


if __name__ == "__main__":
    main()
