"""The application around the window: its icon."""

from __future__ import annotations

from PySide6.QtCore import QSize
from PySide6.QtWidgets import QApplication

from recall.ui.application import ICON_SIZES, app_icon
from recall.ui.main_window import MainWindow


def test_the_icon_comes_in_every_size(qapp: QApplication) -> None:
    sizes = app_icon().availableSizes()
    assert sizes == [QSize(size, size) for size in ICON_SIZES]


def test_the_window_has_the_icon(window: MainWindow) -> None:
    assert not window.windowIcon().isNull()
    assert window.windowIcon().availableSizes() == app_icon().availableSizes()
