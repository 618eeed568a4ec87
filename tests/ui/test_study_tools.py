"""Tools > Custom Study starts a cram session on the review screen; Tools > Time Off moves
due dates as one change that Edit > Undo takes back."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialogButtonBox
from pytestqt.qtbot import QtBot

from recall.changes.cards import Changes
from recall.collection.browse import Finder
from recall.core.memory import ReviewKind
from recall.core.preferences import Preferences
from recall.scheduling import Scheduler, Schedulers
from recall.storage import Database
from recall.study.custom import SessionKind
from recall.ui.main_window import MainWindow
from tests.conftest import ZONE, Clock, answer_cards

pytestmark = pytest.mark.qt_log_ignore("^This plugin does not support (propagateSizeHints|raise)")


def test_custom_study_crams_a_search_on_the_review_screen(
    window: MainWindow, bundled: Database, clock: Clock, qtbot: QtBot
) -> None:
    dialog = window.open_custom_study()
    assert dialog.kind.currentData() == SessionKind.CRAM.value
    assert dialog.preview.text() == "Cram needs a search, e.g. 'deck:French tag:verbs'."
    assert not dialog.buttons.button(QDialogButtonBox.StandardButton.Ok).isEnabled()
    qtbot.keyClicks(dialog.search, "tag:memory")
    assert dialog.preview.text() == "6 cards to study. Answers move no due date."
    dialog.grab().save("/tmp/custom_study_dialog.png")
    qtbot.mouseClick(
        dialog.buttons.button(QDialogButtonBox.StandardButton.Ok), Qt.MouseButton.LeftButton
    )
    review = window.review
    assert review is not None
    assert window.pages.currentWidget() is review
    assert review.deck_name == "Cram: tag:memory"
    window.grab().save("/tmp/custom_study_review.png")


def test_time_off_postpones_due_cards_and_undo_takes_it_back(
    make_window: object, bundled: Database, clock: Clock, qtbot: QtBot
) -> None:
    answer_cards(bundled, clock, 8)
    finder = Finder(bundled, Scheduler(), Preferences(), ZONE)
    Changes(bundled, Schedulers(), Preferences(), ZONE).set_due(
        finder.find("", clock()).card_ids, "0", clock()
    )
    window = make_window()  # type: ignore[operator]
    dialog = window.open_time_off()
    dialog.grab().save("/tmp/time_off_dialog.png")
    due = finder.find("is:due", clock()).card_ids
    assert due
    assert dialog.preview.text().startswith(f"Postpone {len(due)} card")
    qtbot.mouseClick(
        dialog.buttons.button(QDialogButtonBox.StandardButton.Ok), Qt.MouseButton.LeftButton
    )
    assert finder.find("is:due", clock()).card_ids == ()
    with bundled.reading() as transaction:
        assert transaction.history.of_card(due[0])[-1].kind is ReviewKind.SET_DUE
    assert window.collection.undo()
    assert finder.find("is:due", clock()).card_ids == due
