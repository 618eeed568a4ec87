"""The statistics window's item analysis table on a hand-made history of picks."""

from __future__ import annotations

import os
from datetime import UTC, datetime
from pathlib import Path

import pytest
from pytestqt.modeltest import ModelTester
from pytestqt.qtbot import QtBot

from recall.storage import Database
from recall.ui.main_window import MainWindow
from recall.ui.statistics.window import StatisticsWindow
from tests.helpers import item_history

pytestmark = pytest.mark.qt_log_ignore("^This plugin does not support (propagateSizeHints|raise)")


def open_statistics(qtbot: QtBot, window: MainWindow) -> StatisticsWindow:
    """Open the statistics window from the deck list and wait for its item analysis."""
    window.show_decks()
    window.show_statistics()
    statistics = window.statistics
    assert statistics is not None
    qtbot.waitSignal(statistics.item_analysis_shown).wait()
    return statistics


def test_the_table_shows_each_option_with_share_discrimination_and_flag(
    qtbot: QtBot,
    window: MainWindow,
    bundled: Database,
    qtmodeltester: ModelTester,
    tmp_path: Path,
) -> None:
    item_history.install(bundled, datetime(2026, 1, 1, 12, tzinfo=UTC))
    statistics = open_statistics(qtbot, window)
    with qtbot.waitSignal(statistics.item_analysis_shown):
        statistics.set_decks([("items", "Item analysis deck")])
        statistics.set_deck("items")
    view = statistics.page.item_analysis_view
    model = view.model
    qtmodeltester.check(model)
    rows = [
        tuple(model.index(row, column).data() for column in range(model.columnCount()))
        for row in range(model.rowCount())
    ]
    # The answered cards only (not 'unseen'), flagged ones first, each option a row.
    assert rows[:4] == [
        ("Capital of France? (10 answers)", "Paris", "right", "60% (6)", "+0.58", ""),
        ("", "Lyon", "wrong", "20% (2)", "-0.50", ""),
        ("", "Nice", "wrong", "20% (2)", "-0.08", ""),
        ("", "Bern", "wrong", "0% (0)", "+0.00", "a wrong option that no answer picked"),
    ]
    assert rows[5] == (
        "",
        "Jupiter",
        "wrong",
        "50% (4)",
        "+0.50",
        "a wrong option picked more often when the card was known than when not",
    )
    assert rows[7][0] == "Two plus two? (4 answers)"
    assert rows[7][5] == "a card answered right at first sight and while learning"
    assert len(rows) == 4 + 3 + 3
    assert view.table.isVisible()
    assert not view.empty.isVisible()
    assert "3 cards flagged" in statistics.page.item_analysis.reading.text()
    section = statistics.page.item_analysis
    # The picture holds the whole table, however tall the scrolled page made the section.
    section.resize(section.width(), section.sizeHint().height())
    shot = Path(os.environ.get("RECALL_SCREENSHOTS", tmp_path)) / "statistics-item-analysis.png"
    assert section.grab().save(str(shot))


def test_without_answers_the_section_says_so(qtbot: QtBot, window: MainWindow) -> None:
    statistics = open_statistics(qtbot, window)
    view = statistics.page.item_analysis_view
    assert view.model.rowCount() == 0
    assert view.empty.isVisible()
    assert not view.table.isVisible()
