"""Save screenshots of custom study for the docs: the dialog, the browser's Study These, a cram.

Run with ``.venv/bin/python scripts/custom_study_screenshots.py [OUT_DIR]`` (default
``docs/screenshots``); it builds the small collection of ``browser_screenshots.py`` in a
temporary data directory, so the user's own data is never touched. Writes
``custom-study.png`` (Tools > Custom Study, cramming a search), ``study-these-menu.png`` (the
browser's context menu on a selection), ``study-these.png`` (the dialog Study These opens) and
``cram-review.png`` (the review screen of a cram session).
"""

from __future__ import annotations

import sys
import tempfile
from datetime import UTC, datetime
from pathlib import Path

from PySide6.QtCore import QPoint, QSize
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QMenu

from recall.storage import Database
from recall.ui.application import configure, window_state
from recall.ui.main_window import MainWindow


def main() -> None:
    from browser_screenshots import _collection  # the script beside this one

    out = Path(sys.argv[1]) if len(sys.argv) > 1 else Path("docs/screenshots")
    out.mkdir(parents=True, exist_ok=True)
    app = QApplication(sys.argv[:1])
    configure(app)
    now = datetime.now(UTC)
    with tempfile.TemporaryDirectory() as folder:
        data = Path(folder)
        database = Database(data / "recall.sqlite3")
        _collection(database, now)
        window = MainWindow(database, window_state(data), lambda: now)
        window.resize(QSize(1000, 720))
        window.show()
        QTest.qWaitForWindowExposed(window)

        dialog = window.open_custom_study()
        dialog.search.setText("deck:machine* tag:memory")
        QTest.qWaitForWindowExposed(dialog)
        QTest.qWait(100)
        dialog.grab().save(str(out / "custom-study.png"))
        dialog.reject()

        browser = window.collection.browse("deck:machine*")
        browser.resize(QSize(1280, 800))
        browser.wait()
        browser.select_rows([0, 1, 4, 8, 9])
        table = browser.table
        menu = QMenu(browser)
        menu.addActions(table.actions())
        menu.popup(table.viewport().mapToGlobal(QPoint(200, 60)))
        QTest.qWaitForWindowExposed(menu)
        QTest.qWait(100)
        menu.grab().save(str(out / "study-these-menu.png"))
        menu.close()

        browser.card_actions.study_action.trigger()
        chosen = window.custom_study_dialog
        assert chosen is not None
        QTest.qWaitForWindowExposed(chosen)
        QTest.qWait(100)
        chosen.grab().save(str(out / "study-these.png"))
        chosen.buttons.accepted.emit()
        QTest.qWait(200)
        window.grab().save(str(out / "cram-review.png"))
        browser.close()
        window.close()
        database.close()
    QApplication.processEvents()


if __name__ == "__main__":
    main()
