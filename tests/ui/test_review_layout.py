"""How the review screen looks as it is used: a toggled choice is marked, and the rating
buttons stay under the card in a wide window."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint
from PySide6.QtWidgets import QLabel, QWidget
from pytestqt.qtbot import QtBot

from recall.collection import importing
from recall.content.deck_format import load_deck
from recall.core.memory import Rating
from recall.storage import Database
from recall.ui.main_window import MainWindow
from recall.ui.review.choice_button import SELECTED
from tests.conftest import DATA, Clock
from tests.ui.conftest import WindowFactory
from tests.ui.test_review_window import DIGITS, start_studying

pytestmark = pytest.mark.qt_log_ignore("^This plugin does not support")


def test_a_toggled_choice_is_marked_selected_until_the_answer(
    qtbot: QtBot, bundled: Database, clock: Clock, make_window: WindowFactory
) -> None:
    importing.import_deck(bundled, load_deck(DATA / "decks" / "select_all.json"), clock())
    window = make_window()
    window.study("select-all")
    review = window.review
    assert review is not None
    first = review.choice_buttons[0]
    mark = first.findChild(QLabel, "choiceMark")
    assert mark is not None
    assert not mark.isVisibleTo(first)
    qtbot.keyClick(review, DIGITS[1])
    assert mark.isVisibleTo(first)
    assert mark.text() == SELECTED
    assert first.accessibleName().endswith("(selected)")
    qtbot.keyClick(review, DIGITS[1])  # toggled off again
    assert not mark.isVisibleTo(first)


def test_the_rating_buttons_stay_under_the_card_in_a_wide_window(
    qtbot: QtBot, window: MainWindow
) -> None:
    window.resize(1900, 1000)
    review = start_studying(qtbot, window)
    qtbot.keyClick(review, DIGITS[1])
    qtbot.waitUntil(lambda: review.rating_buttons[Rating.EASY].isVisible())
    column = review.findChild(QWidget, "cardColumn")
    assert column is not None
    left = column.mapTo(window, QPoint(0, 0)).x()
    right = left + column.width()
    easy = review.rating_buttons[Rating.EASY]
    edge = easy.mapTo(window, QPoint(easy.width(), 0)).x()
    assert left < edge <= right  # not in the far corner of the window
