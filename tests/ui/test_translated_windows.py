"""The browser, deck options and statistics windows show the catalog's words when a language
is installed before they open (the English of every other test is the catalog's absence)."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QComboBox, QFormLayout, QLabel
from pytestqt.qtbot import QtBot

from recall.ui.main_window import MainWindow
from tests.helpers.catalogs import Translations, installed
from tests.ui.test_options_windows import open_deck_options
from tests.ui.test_statistics_window import open_statistics

pytestmark = pytest.mark.qt_log_ignore("^This plugin does not support")

GERMAN: Translations = {
    "Browse": "Durchsuchen",
    "Question": "Frage",
    "Decks": "Stapel",
    "Card state": "Kartenzustand",
    "Due today": "Heute fällig",
    "{count} card": ("{count} Karte", "{count} Karten"),
    "&Cards": "&Karten",
    "Toggle &Suspend": "&Aussetzen ein/aus",
    "Suspend {count} card": ("{count} Karte aussetzen", "{count} Karten aussetzen"),
    "{change}. Ctrl+Z undoes it.": "{change}. Strg+Z macht es rückgängig.",
    "Deck Options: {deck}": "Stapeloptionen: {deck}",
    "New cards/day": "Neue Karten/Tag",
    "Deck order": "Stapelreihenfolge",
    "Statistics": "Statistik",
    "Future due": "Künftig fällig",
    "Month": "Monat",
}


def test_the_browser_speaks_the_installed_language(qtbot: QtBot, window: MainWindow) -> None:
    with installed(GERMAN):
        browser = window.collection.browse()
        browser.wait()
        try:
            assert browser.windowTitle() == "Durchsuchen"
            header = browser.model.headerData(0, Qt.Orientation.Horizontal)
            assert header == "Frage"
            sections = [browser.sidebar.topLevelItem(i) for i in range(3)]
            assert [item.text(0) for item in sections if item is not None][1:] == [
                "Stapel",
                "Kartenzustand",
            ]
            due = browser.sidebar.item_for("is:due")
            assert due is not None
            assert due.text(0) == "Heute fällig"
            assert browser.status.text() == "8 Karten"
            menus = [action.text() for action in browser.menuBar().actions()]
            assert "&Karten" in menus
            browser.select_rows([0])
            browser.card_actions.suspend_action.trigger()
            assert browser.status.text() == "1 Karte aussetzen. Strg+Z macht es rückgängig."
        finally:
            browser.close()


def test_deck_options_label_their_options_in_the_installed_language(
    qtbot: QtBot, window: MainWindow
) -> None:
    with installed(GERMAN):
        dialog = open_deck_options(qtbot, window)
        try:
            assert dialog.windowTitle().startswith("Stapeloptionen: ")
            form = dialog.form.layout()
            assert isinstance(form, QFormLayout)
            label = form.labelForField(dialog.form.editors["new_per_day"])
            assert isinstance(label, QLabel)
            assert label.text() == "Neue Karten/Tag"
            order = dialog.form.editors["new_card_order"]
            assert isinstance(order, QComboBox)
            assert order.itemText(order.findData("deck")) == "Stapelreihenfolge"
        finally:
            dialog.reject()


def test_the_statistics_window_names_its_sections_in_the_installed_language(
    qtbot: QtBot, window: MainWindow
) -> None:
    with installed(GERMAN):
        statistics = open_statistics(qtbot, window)
        assert statistics.windowTitle() == "Statistik"
        assert statistics.page.forecast.title.text() == "Künftig fällig"
        assert statistics.period_box.itemText(0) == "Monat"
        statistics.close()
