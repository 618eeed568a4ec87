"""The review screen's next card and count come from the queue kept in memory, never stale.

In the real window: after a rating the next card and the counter (new, learning, review)
are right; a change made by another connection while a card is on screen is seen at the
next card; an undo brings the card and the count back.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel
from pytestqt.qtbot import QtBot

from recall.changes.cards import Changes
from recall.core.preferences import Preferences
from recall.scheduling import Schedulers
from recall.storage import Database
from recall.ui.main_window import MainWindow
from recall.ui.review.view import ReviewView
from tests.conftest import ZONE, Clock
from tests.ui.test_safekeeping import answer, studying

DECK = "activation-recompute"


def left_today(review: ReviewView) -> str:
    label = review.findChild(QLabel, "progress")
    assert label is not None
    return label.text()


def rate(qtbot: QtBot, review: ReviewView, clock: Clock) -> int:
    """Pick the first choice and accept the proposed rating; the id of the card answered."""
    shown = review.shown
    assert shown is not None
    clock.advance(seconds=8)
    answer(qtbot, review)
    qtbot.keyClick(review, Qt.Key.Key_Space)
    return shown.card_id


def test_each_rating_shows_the_next_card_and_the_count_left(
    qtbot: QtBot, window: MainWindow, clock: Clock
) -> None:
    review = studying(qtbot, window)
    assert left_today(review) == "8 new · 0 learning · 0 review"
    answered = [rate(qtbot, review, clock) for _ in range(3)]
    # Three new cards answered: each is learning now, due again today, and the counter
    # moves them from new to learning after every answer.
    assert len(set(answered)) == 3
    assert left_today(review) == "5 new · 3 learning · 0 review"
    assert review.shown is not None
    assert review.shown.card_id not in answered


def test_cards_suspended_by_another_connection_are_not_shown_next(
    qtbot: QtBot, window: MainWindow, bundled: Database, clock: Clock, schedulers: Schedulers
) -> None:
    review = studying(qtbot, window)
    rate(qtbot, review, clock)
    shown = review.shown
    assert shown is not None
    other = Database(bundled.path)
    try:
        with other.reading() as transaction:
            deck = transaction.decks.by_key(DECK)
            assert deck is not None
            others = [row.id for row in transaction.cards.of_deck(deck.id)]
        others.remove(shown.card_id)
        Changes(other, schedulers, Preferences(), ZONE).suspend(others)
    finally:
        other.close()
    answered = rate(qtbot, review, clock)
    # Every other card is suspended: the card just answered comes back within the
    # learn-ahead window, the only one left today.
    assert review.shown is not None
    assert review.shown.card_id == answered
    assert left_today(review) == "0 new · 1 learning · 0 review"


def test_an_undo_brings_the_card_and_the_count_back(
    qtbot: QtBot, window: MainWindow, clock: Clock
) -> None:
    review = studying(qtbot, window)
    first = rate(qtbot, review, clock)
    second = rate(qtbot, review, clock)
    review.undo()
    assert review.shown is not None
    assert review.shown.card_id == second
    review.undo()
    assert review.shown is not None
    assert review.shown.card_id == first
    assert left_today(review) == "8 new · 0 learning · 0 review"


def test_an_undo_says_so_and_keeps_the_choices_as_shown(
    qtbot: QtBot, window: MainWindow, clock: Clock
) -> None:
    review = studying(qtbot, window)
    shown = review.shown
    assert shown is not None
    texts = [button.accessibleName() for button in review.choice_buttons]
    rate(qtbot, review, clock)
    window.menus.undo_action.trigger()
    assert review.shown is not None
    assert review.shown.card_id == shown.card_id
    assert [button.accessibleName() for button in review.choice_buttons] == texts
    assert window.statusBar().currentMessage().startswith("Rating taken back")
