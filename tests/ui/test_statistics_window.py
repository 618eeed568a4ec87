"""The statistics window on a history studied in the real window with a fixed clock."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QAbstractButton, QAbstractItemView, QComboBox, QHeaderView, QLabel
from pytestqt.modeltest import ModelTester
from pytestqt.qtbot import QtBot

from recall.content.deck_format import ChoiceCard
from recall.ui.charts import Chart
from recall.ui.feedback_panel import FeedbackPanel
from recall.ui.main_menus import SHORTCUTS
from recall.ui.main_window import MainWindow
from recall.ui.review.view import ReviewView
from recall.ui.statistics.misconceptions_view import CardPicksDialog
from recall.ui.statistics.window import StatisticsWindow
from tests.conftest import Clock

pytestmark = pytest.mark.qt_log_ignore("^This plugin does not support (propagateSizeHints|raise)")


def pick_text(review: ReviewView, text: str | None) -> str:
    """Pick the option with ``text`` (or the first wrong one if None); returns its text."""
    shown = review.shown
    assert shown is not None
    card = shown.card
    assert isinstance(card, ChoiceCard)
    for position, index in enumerate(shown.order):
        choice = card.choices[index]
        if (text is None and not choice.correct) or choice.text == text:
            review.pick(position)
            return choice.text
    raise AssertionError(f"no option {text!r}")


def earlier_line(review: ReviewView) -> str:
    found = review.findChild(QLabel, "earlierPicks")
    assert found is not None
    return found.text() if found.isVisibleTo(review) else ""


def open_statistics(qtbot: QtBot, window: MainWindow) -> StatisticsWindow:
    window.show_decks()
    qtbot.keyClick(window.deck_list.table, Qt.Key.Key_S, Qt.KeyboardModifier.ShiftModifier)
    qtbot.waitUntil(
        lambda: window.statistics is not None and window.statistics.statistics is not None
    )
    statistics = window.statistics
    assert statistics is not None
    # The item analysis is the last of the window's jobs: its section fills after the rest.
    qtbot.waitUntil(lambda: bool(statistics.page.item_analysis.reading.text()))
    assert statistics.isVisible()
    return statistics


def test_the_same_wrong_option_on_two_days_shows_everywhere(
    qtbot: QtBot, window: MainWindow, clock: Clock, qtmodeltester: ModelTester
) -> None:
    window.study("activation-recompute")
    review = window.review
    assert review is not None
    card_id = review.shown.card_id if review.shown else None
    clock.advance(seconds=8)
    wrong = pick_text(review, None)
    assert earlier_line(review) == ""
    qtbot.keyClick(review, Qt.Key.Key_Space)  # Again, as proposed

    clock.advance(days=2)
    window.study("activation-recompute")
    review = window.review
    assert review is not None
    assert review.shown is not None
    assert review.shown.card_id == card_id  # the card failed two days ago comes first
    clock.advance(seconds=6)
    pick_text(review, wrong)
    assert earlier_line(review) == "You picked this on 1 earlier review (last on 15 Jan)."
    panel = review.findChild(FeedbackPanel)
    assert panel is not None
    assert "You picked this on 1 earlier review" in panel.spoken()  # read out, too
    qtbot.keyClick(review, Qt.Key.Key_Space)

    statistics = open_statistics(qtbot, window)
    figures = statistics.statistics
    assert figures is not None
    assert statistics.deck_key() == "activation-recompute"
    assert figures.totals.reviews == 2
    for section in statistics.page.sections:
        assert section.reading.text(), section.title.text()
    model = statistics.page.misconceptions_view.model
    qtmodeltester.check(model)
    qtmodeltester.check(statistics.page.retention_model)
    assert model.rowCount() == 1
    assert model.index(0, 0).data() == wrong
    assert model.index(0, 2).data() == 2
    assert model.index(0, 4).data() == "Yes"  # the latest review picked it
    assert statistics.page.calendar_chart.rows[-1][1] == "1"
    assert statistics.page.ratings_chart.rows[0] == ("Again", "2")
    assert sum(int(row[1]) for row in statistics.page.ratings_chart.rows) == 2

    with qtbot.waitSignal(statistics.card_requested) as requested:
        statistics.page.misconceptions_view.table.clicked.emit(model.index(0, 1))
    assert requested.args == [card_id]
    browser = window.collection.browser  # the card opens in the browser, selected
    assert browser is not None
    browser.wait()
    assert browser.selected_ids() == [card_id]
    assert browser.search_box.text() == 'deck:"Activation Recomputation Tradeoffs"'
    assert browser.isVisible()
    assert statistics.findChild(CardPicksDialog) is None  # the browser shows the card
    # The row's menu shows how often each of the card's options was picked.
    statistics.page.misconceptions_view.table.setCurrentIndex(model.index(0, 0))
    statistics.page.misconceptions_view.picks_action.trigger()
    dialog = statistics.findChild(CardPicksDialog)
    assert dialog is not None
    assert f"{wrong}  (wrong): picked twice" in dialog.picks.text()
    # Named by the card's question as the review screen shows it, not by its ids.
    assert dialog.windowTitle().startswith("Picks: What does activation recomputation trade")
    assert dialog.windowTitle().endswith("…")
    # Clicking the row already selected opens its card again.
    browser.close()
    with qtbot.waitSignal(statistics.card_requested):
        qtbot.mouseClick(
            statistics.page.misconceptions_view.table.viewport(),
            Qt.MouseButton.LeftButton,
            pos=statistics.page.misconceptions_view.table.visualRect(model.index(0, 1)).center(),
        )
    assert browser.isVisible()
    dialog.close()
    browser.close()


def test_switching_period_and_deck_computes_again(
    qtbot: QtBot, window: MainWindow, clock: Clock
) -> None:
    statistics = open_statistics(qtbot, window)
    first = statistics.statistics
    assert first is not None
    assert first.period_days == 30
    assert not statistics.page.reviews_chart.rows  # nothing studied: the empty state
    # The forecast comes first, then the other schedules' charts, then the history's.
    with qtbot.waitSignals(
        [statistics.forecast_shown, statistics.schedules_shown, statistics.loaded],
        order="strict",
        timeout=10_000,
    ):
        statistics.set_period(365)
    assert len(statistics.page.forecast_chart.headers) > 0
    year = statistics.statistics
    assert year is not None
    assert (year.period_days, year.by_week) == (365, True)
    assert statistics.page.reviews_chart.title == "Reviews per week"
    with qtbot.waitSignal(statistics.loaded, timeout=10_000):
        statistics.set_deck(None)
    whole = statistics.statistics
    assert whole is not None
    assert whole.deck_key is None
    assert whole.deck_name == "All decks"
    with qtbot.waitSignal(statistics.loaded, timeout=10_000):
        statistics.set_period(None)
    assert statistics.period_days() is None
    statistics.page.reviews_measure.setCurrentIndex(1)
    assert statistics.page.reviews_chart.headers[1] == "Learning"
    assert statistics.status.text().startswith("All decks")
    assert "Shift+S" in dict(SHORTCUTS)


def test_the_deck_box_follows_the_deck_list(qtbot: QtBot, window: MainWindow) -> None:
    statistics = open_statistics(qtbot, window)
    assert statistics.deck_box.count() == 2  # all decks, and the bundled one
    statistics.set_decks([("activation-recompute", "Activation"), ("tiny", "Tiny deck")])
    assert statistics.deck_box.count() == 3
    assert statistics.deck_key() == "activation-recompute"  # still the deck shown
    with qtbot.waitSignal(statistics.loaded, timeout=10_000):
        statistics.set_decks([("tiny", "Tiny deck")])
    assert statistics.deck_key() is None  # its deck is gone: all decks
    assert statistics.statistics is not None
    assert statistics.statistics.deck_key is None


def test_every_control_and_chart_is_named_for_screen_readers(
    qtbot: QtBot, window: MainWindow
) -> None:
    statistics = open_statistics(qtbot, window)
    kinds = (QAbstractButton, QComboBox, QAbstractItemView, Chart)
    controls = [
        widget
        for kind in kinds
        for widget in statistics.findChildren(kind)
        if widget.isVisibleTo(statistics) and not isinstance(widget, QHeaderView)
    ]
    assert len([c for c in controls if isinstance(c, Chart)]) == 11
    assert [c.objectName() or type(c).__name__ for c in controls if not c.accessibleName()] == []
    for chart in statistics.findChildren(Chart):
        assert chart.accessibleDescription().startswith(chart.title)


def test_a_deck_that_is_gone_is_said_in_words(qtbot: QtBot, window: MainWindow) -> None:
    statistics = open_statistics(qtbot, window)
    statistics.set_decks([("activation-recompute", "Activation"), ("ghost", "Deleted meanwhile")])
    statistics.set_deck("ghost")
    qtbot.waitUntil(lambda: statistics.status.text().startswith("Statistics could not"))
    assert "ghost" in statistics.status.text()
    assert statistics.statistics is not None  # the figures shown before stay
