"""F1: every key of the main window and the card browser, in a dialog that fits the window."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence
from pytestqt.qtbot import QtBot

from recall.ui.main_menus import SHORTCUTS
from recall.ui.main_window import MainWindow
from recall.ui.shortcuts_dialog import BROWSER_SHORTCUTS, ShortcutsDialog

pytestmark = pytest.mark.qt_log_ignore("^This plugin does not support")


def test_f1_lists_the_windows_and_the_browsers_keys(qtbot: QtBot, window: MainWindow) -> None:
    window.resize(800, 600)
    qtbot.keyClick(window.deck_list.table, Qt.Key.Key_F1)
    dialog = window.menus.shortcuts_dialog
    assert isinstance(dialog, ShortcutsDialog)
    qtbot.waitExposed(dialog)
    keys = dialog.keys()
    assert ("Main window", "") in keys
    assert ("Card browser (B)", "") in keys
    assert set(SHORTCUTS) | set(BROWSER_SHORTCUTS) <= set(keys)
    assert dialog.width() <= 800


def test_the_browsers_list_holds_every_key_of_the_browser(window: MainWindow) -> None:
    browser = window.collection.browse()
    browser.wait()
    try:
        listed = {key for key, _what in BROWSER_SHORTCUTS}
        listed |= {f"Ctrl+{number}" for number in range(1, 8)}  # "Ctrl+1 … Ctrl+7"
        shortcuts = {
            action.shortcut().toString(QKeySequence.SequenceFormat.PortableText)
            for action in browser.findChildren(QAction)
        }
        shortcuts.discard("")
        assert shortcuts
        assert shortcuts <= {key.replace("Escape", "Esc") for key in listed} | listed
    finally:
        browser.close()
