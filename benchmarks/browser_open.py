"""Child process: the browser window opened on every card of a collection, timed.

``python -m benchmarks.browser_open DATABASE ROUNDS`` (offscreen Qt) creates the browser
window ROUNDS times and times each from its creation until its table shows the first rows
of the empty query (every card, sorted by due); beside it, the search alone. Prints one
JSON list: ``[[open ms ...], [search ms ...], matches]``.
"""

from __future__ import annotations

import json
import random
import sys
import time
from datetime import UTC, datetime
from functools import partial
from pathlib import Path

from PySide6.QtWidgets import QApplication

from recall.changes.cards import Changes
from recall.collection.browse import Finder
from recall.core.preferences import Preferences
from recall.scheduling import Scheduler, Schedulers
from recall.storage import Database
from recall.ui.application import configure
from recall.ui.browser.window import BrowserWindow


def _same(moment: datetime) -> datetime:
    return moment


def main() -> None:
    database = Database(Path(sys.argv[1]))
    rounds = int(sys.argv[2])
    app = QApplication(sys.argv[:1])
    configure(app)
    schedulers = Schedulers()
    settings = Preferences()
    changes = Changes(database, schedulers, settings, rng=random.Random(1))
    finder = Finder(database, Scheduler(), settings)
    opened: list[float] = []
    searched: list[float] = []
    shown = 0
    for _ in range(rounds + 1):  # the first round warms SQLite's and Qt's caches
        now = datetime.now(UTC)
        start = time.perf_counter()
        browser = BrowserWindow(database, settings, partial(_same, now), changes)
        browser.show()
        browser.search("")
        browser.wait()
        app.processEvents()
        took = (time.perf_counter() - start) * 1000
        shown = len(browser.model.card_ids)
        assert browser.model.rowCount() > 0
        browser.close()
        browser.deleteLater()
        app.processEvents()
        start = time.perf_counter()
        finder.find("", now)
        alone = (time.perf_counter() - start) * 1000
        opened.append(took)
        searched.append(alone)
    database.close()
    print(json.dumps([opened[1:], searched[1:], shown]))


if __name__ == "__main__":
    main()
