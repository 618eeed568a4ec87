"""What a deck has when nothing is due, said and offered: the deck list's footer names the
selected deck's cards, and the summary offers learning ahead and more new cards today."""

from __future__ import annotations

from datetime import timedelta

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel
from pytestqt.qtbot import QtBot

from recall.collection import importing
from recall.content.deck_format import load_deck
from recall.storage import Database
from recall.ui.main_window import MainWindow
from tests.conftest import DATA, Clock
from tests.study.test_study import use_preset
from tests.ui.conftest import WindowFactory
from tests.ui.test_review_queue import left_today, rate

pytestmark = pytest.mark.qt_log_ignore("^This plugin does not support")


def test_the_footer_says_what_the_selected_deck_has(
    qtbot: QtBot, bundled: Database, clock: Clock, make_window: WindowFactory
) -> None:
    importing.import_deck(bundled, load_deck(DATA / "decks" / "tiny.json"), clock())
    window = make_window()
    footer = window.deck_list.findChild(QLabel, "deckStatus")
    assert footer is not None
    window.refresh_decks("tiny")
    assert footer.text() == "Tiny deck: 2 new and 0 due today."
    qtbot.keyClick(window.deck_list.table, Qt.Key.Key_Up)
    assert footer.text() == "Activation Recomputation Tradeoffs: 8 new and 0 due today."
    use_preset(bundled, new_per_day=0)
    window.refresh_decks()
    assert footer.text() == "Nothing due in Activation Recomputation Tradeoffs today."


def test_nothing_due_offers_learning_ahead_and_more_new_cards(
    qtbot: QtBot, bundled: Database, clock: Clock, make_window: WindowFactory
) -> None:
    use_preset(bundled, new_per_day=2, learning_steps=(timedelta(hours=2), timedelta(hours=4)))
    window: MainWindow = make_window()
    qtbot.keyClick(window.deck_list.table, Qt.Key.Key_Return)
    review = window.review
    assert review is not None
    answered = {rate(qtbot, review, clock) for _ in range(2)}
    summary = window.summary
    assert window.pages.currentWidget() is summary
    assert summary.title.text() == "Done for today"
    note = summary.more_note.text()
    assert note.startswith("2 learning cards due later today, the first today at ")
    assert note.endswith(". 6 new cards beyond today's new-card limit.")
    assert summary.learn_ahead_button.isVisibleTo(summary)
    assert summary.more_new_button.accessibleName() == "6 more new cards today"
    # L studies the learning cards now.
    qtbot.keyClick(summary, Qt.Key.Key_L)
    review = window.review
    assert review is not None
    assert window.pages.currentWidget() is review
    assert review.shown is not None
    assert review.shown.card_id in answered
    qtbot.keyClick(review, Qt.Key.Key_Escape)
    # Study again: nothing due now; N adds new cards for today and studies them.
    qtbot.keyClick(window.deck_list.table, Qt.Key.Key_Return)
    assert window.pages.currentWidget() is summary
    assert summary.subtitle.text() == (
        "Nothing more in Activation Recomputation Tradeoffs is due right now."
    )
    qtbot.keyClick(summary, Qt.Key.Key_N)
    review = window.review
    assert review is not None
    assert window.pages.currentWidget() is review
    assert review.shown is not None
    assert review.shown.card_id not in answered
    assert left_today(review) == "6 new · 2 learning · 0 review"  # learning: later today
