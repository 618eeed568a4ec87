"""The application around the window: its icon and Help > About."""

from __future__ import annotations

import sqlite3
from importlib import metadata

import pytest
from PySide6.QtCore import QSize, QTimer, qVersion
from PySide6.QtWidgets import QApplication, QMessageBox
from pytestqt.qtbot import QtBot

from recall.ui.application import ICON_SIZES, app_icon
from recall.ui.main_window import MainWindow


def test_the_icon_comes_in_every_size(qapp: QApplication) -> None:
    sizes = app_icon().availableSizes()
    assert sizes == [QSize(size, size) for size in ICON_SIZES]


def test_the_window_has_the_icon(window: MainWindow) -> None:
    assert not window.windowIcon().isNull()
    assert window.windowIcon().availableSizes() == app_icon().availableSizes()


# The offscreen platform says so whenever a dialog is shown; it is not Recall's warning.
@pytest.mark.qt_log_ignore("^This plugin does not support propagateSizeHints")
def test_about_names_the_versions_of_recall_and_its_libraries(
    qtbot: QtBot, window: MainWindow
) -> None:
    seen: list[str] = []

    def read_and_close() -> None:
        box = QApplication.activeModalWidget()
        assert isinstance(box, QMessageBox)
        seen.append(box.text())
        box.accept()

    QTimer.singleShot(0, read_and_close)
    window.about_action.trigger()
    (text,) = seen
    assert f"Recall {metadata.version('recall')}" in text
    assert f"Qt {qVersion()}" in text
    assert f"SQLite {sqlite3.sqlite_version}" in text
    assert f"fsrs {metadata.version('fsrs')}" in text
