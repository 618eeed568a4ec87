"""The local API in the window: Preferences turn it on and off, and guiBrowse opens the browser."""

from __future__ import annotations

import dataclasses
import socket

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QDialogButtonBox
from pytestqt.qtbot import QtBot

from recall.api.actions import KEY_REFUSED
from recall.options import deck_options
from recall.storage import Database
from recall.ui.main_window import MainWindow
from recall.ui.options.preferences_dialog import PreferencesDialog
from tests.conftest import Clock
from tests.helpers.api_server import call
from tests.ui.conftest import FakePrompts, WindowFactory

pytestmark = pytest.mark.qt_log_ignore("^This plugin does not support")


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _open_preferences(qtbot: QtBot, window: MainWindow) -> PreferencesDialog:
    window.options.preferences_action.trigger()
    dialog = window.options.preferences_dialog
    assert dialog is not None
    qtbot.waitExposed(dialog)
    return dialog


def _save(qtbot: QtBot, dialog: PreferencesDialog) -> None:
    with qtbot.waitSignal(dialog.saved):
        save = dialog.buttons.button(QDialogButtonBox.StandardButton.Save)
        qtbot.mouseClick(save, Qt.MouseButton.LeftButton)


def test_the_preference_starts_and_stops_the_server(
    qtbot: QtBot, window: MainWindow, bundled: Database
) -> None:
    assert window.local_api.server is None  # off unless enabled
    dialog = _open_preferences(qtbot, window)
    section = dialog.api
    assert section.key.text() == ""
    assert not section.port.isEnabled()
    section.enabled.click()  # a key is made when it is first turned on, shown to copy
    key = section.key.text()
    assert len(key) >= 40
    assert section.port.isEnabled()
    section.copy_button.click()
    assert QApplication.clipboard().text() == key
    section.port.setValue(_free_port())
    _save(qtbot, dialog)
    stored = deck_options.preferences(bundled)
    assert (stored.api_enabled, stored.api_key, stored.api_port) == (
        True,
        key,
        section.port.value(),
    )
    server = window.local_api.server
    assert server is not None
    assert server.ready.wait(30)
    assert server.port == stored.api_port
    assert call(server, "deckNames", key=key)["error"] is None

    dialog = _open_preferences(qtbot, window)
    dialog.api.new_key_button.click()
    new_key = dialog.api.key.text()
    assert new_key != key
    _save(qtbot, dialog)
    server = window.local_api.server
    assert server is not None
    assert server.ready.wait(30)
    assert call(server, "deckNames", key=key)["error"] == KEY_REFUSED
    assert call(server, "deckNames", key=new_key)["error"] is None

    dialog = _open_preferences(qtbot, window)
    dialog.api.enabled.click()
    _save(qtbot, dialog)
    assert window.local_api.server is None
    assert not server.running
    with socket.socket() as probe:
        assert probe.connect_ex(("127.0.0.1", stored.api_port)) != 0


def test_an_origin_that_is_not_one_keeps_the_preferences_unsaved(
    qtbot: QtBot, window: MainWindow, bundled: Database, prompts: FakePrompts
) -> None:
    dialog = _open_preferences(qtbot, window)
    dialog.api.enabled.click()
    dialog.api.origins.setText("evil.example")
    dialog.buttons.button(QDialogButtonBox.StandardButton.Save).click()
    assert prompts.told[-1][0] == "Preferences not saved"
    assert "'evil.example' is not a web origin" in prompts.told[-1][1]
    assert not deck_options.preferences(bundled).api_enabled
    assert window.local_api.server is None
    dialog.reject()


def test_gui_browse_opens_the_browser_in_the_window(
    qtbot: QtBot, make_window: WindowFactory, bundled: Database, clock: Clock
) -> None:
    preferences = dataclasses.replace(
        deck_options.preferences(bundled),
        api_enabled=True,
        api_key="window-key-0123456789",
        api_port=_free_port(),
    )
    deck_options.save_preferences(bundled, preferences, clock())
    window = make_window()
    server = window.local_api.server
    assert server is not None
    assert server.ready.wait(30)
    assert window.collection.browser is None
    answer = call(server, "guiBrowse", key=preferences.api_key, query="is:new")
    assert answer["error"] is None
    assert len(answer["result"]) > 0
    qtbot.waitUntil(lambda: window.collection.browser is not None, timeout=10_000)
    browser = window.collection.browser
    assert browser is not None
    qtbot.waitUntil(browser.isVisible, timeout=10_000)
    assert browser.search_box.text() == "is:new"
    window.close()
    assert window.local_api.server is None
    assert not server.running


def test_a_port_in_use_is_said_and_the_window_opens(
    make_window: WindowFactory, bundled: Database, clock: Clock, prompts: FakePrompts
) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = int(taken.getsockname()[1])
        preferences = dataclasses.replace(
            deck_options.preferences(bundled), api_enabled=True, api_key="k" * 20, api_port=port
        )
        deck_options.save_preferences(bundled, preferences, clock())
        window = make_window()
    assert window.local_api.server is None
    assert prompts.told[-1][0] == "Local API not started"
    assert f"cannot listen on 127.0.0.1:{port}" in prompts.told[-1][1]
