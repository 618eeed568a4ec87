"""What a screen reader can read on each screen: every visible text, every control named."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QSize, Qt
from PySide6.QtWidgets import QLabel, QMainWindow, QPushButton, QVBoxLayout, QWidget
from pytestqt.qtbot import QtBot

from recall.collection import importing
from recall.core.memory import Rating
from recall.scheduling import Schedulers
from recall.storage import Database
from recall.ui.data.backups_dialog import BackupsDialog
from recall.ui.main_window import MainWindow
from recall.ui.review.view import Phase
from tests.conftest import DATA, Clock
from tests.ui.accessible_tree import unnamed_controls, unreachable_texts
from tests.ui.conftest import FakePrompts, WindowFactory
from tests.ui.test_review_window import DIGITS, reviews_in, right_position, start_studying


def assert_readable(page: QWidget) -> None:
    assert unreachable_texts(page) == []
    assert unnamed_controls(page) == []


def test_the_checks_fail_on_an_unnamed_control_and_a_label_named_by_its_role(
    qtbot: QtBot,
) -> None:
    host = QMainWindow()
    host.setMinimumSize(QSize(320, 200))
    qtbot.addWidget(host)
    page = QWidget()
    host.setCentralWidget(page)
    layout = QVBoxLayout(page)
    icon_only = QPushButton()
    icon_only.setObjectName("iconOnly")
    role_named = QLabel("<b>Paris</b> is the capital")
    role_named.setObjectName("answer")
    role_named.setAccessibleName("Answer")  # what Recall did before: the role, not the text
    layout.addWidget(icon_only)
    layout.addWidget(role_named)
    host.show()
    qtbot.waitExposed(host)
    assert unnamed_controls(page) == ["Button iconOnly"]
    (problem,) = unreachable_texts(page)
    assert problem == (
        "answer: 'Paris is the capital' lacks ['capital', 'is', 'paris', 'the'] in 'Answer'"
    )


def test_deck_list_and_its_details_are_readable(window: MainWindow) -> None:
    assert_readable(window.deck_list)


def test_a_choice_card_its_feedback_and_the_summary_are_readable(
    qtbot: QtBot, window: MainWindow, clock: Clock
) -> None:
    review = start_studying(qtbot, window)
    assert_readable(review)
    question = review.shown
    assert question is not None
    assert question.card.type == "choice"
    label = review.findChild(QLabel, "question")
    assert label is not None
    assert label.accessibleName() == " ".join(question.card.question.replace("`", "").split())
    assert label.accessibleDescription() == "Question"

    right = right_position(review)
    qtbot.keyClick(review, DIGITS[(right + 1) % 4 + 1])  # a wrong answer: marks and notes
    assert_readable(review)
    explanation = review.findChild(QLabel, "explanation")
    assert explanation is not None
    assert explanation.accessibleName()
    assert explanation.accessibleName() != "Explanation"
    assert explanation.accessibleDescription() == "Explanation"

    while window.pages.currentWidget() is review:
        clock.advance(seconds=5)
        if review.phase is Phase.QUESTION:
            qtbot.keyClick(review, DIGITS[right_position(review) + 1])
        else:
            qtbot.keyClick(review, Qt.Key.Key_Space)
    assert window.pages.currentWidget() is window.summary
    assert_readable(window.summary)
    assert window.summary.reviewed.accessibleName().startswith("Cards reviewed today: ")


def test_a_basic_card_revealed_is_readable(
    qtbot: QtBot, make_window: WindowFactory, bundled: Database, clock: Clock
) -> None:
    importing.import_files(bundled, Schedulers(), [DATA / "decks" / "tiny.json"], clock())
    window = make_window()
    window.study("tiny")
    review = window.review
    assert review is not None
    qtbot.keyClick(review, DIGITS[right_position(review) + 1])
    qtbot.keyClick(review, Qt.Key.Key_Space)
    assert review.shown is not None
    assert review.shown.card.id == "b1"
    qtbot.keyClick(review, Qt.Key.Key_Space)
    assert_readable(review)
    back = review.findChild(QLabel, "back")
    assert back is not None
    assert back.accessibleName() == "Paris"


def test_announcements_say_the_card_and_then_the_verdict(qtbot: QtBot, window: MainWindow) -> None:
    said: list[str] = []
    qtbot.keyClick(window.deck_list.table, Qt.Key.Key_Return)
    review = window.review
    assert review is not None
    review.announced.connect(said.append)
    shown = review.shown
    assert shown is not None
    qtbot.keyClick(review, DIGITS[right_position(review) + 1])
    (verdict,) = said
    assert verdict.startswith("Correct\n")
    assert verdict.endswith("Suggested: Good")
    qtbot.keyClick(review.focusWidget() or review, Qt.Key.Key_Space)
    assert said[1].startswith("Question: ")
    assert "Choice 1: " in said[1]


def test_after_an_answer_the_focus_is_on_the_suggested_rating_and_keys_still_work(
    qtbot: QtBot, window: MainWindow, bundled: Database
) -> None:
    review = start_studying(qtbot, window)
    qtbot.keyClick(review, DIGITS[right_position(review) + 1])
    focused = window.focusWidget()
    assert focused is review.rating_buttons[Rating.GOOD]
    assert focused.accessibleName().endswith(", suggested")
    qtbot.keyClick(focused, Qt.Key.Key_2)  # a digit on the focused button still rates
    assert review.phase is Phase.QUESTION
    assert [rating for _, rating, _ in reviews_in(bundled)] == [Rating.HARD]


@pytest.mark.qt_log_ignore("does not support propagateSizeHints")  # offscreen, a dialog
def test_the_backups_dialog_works_by_keyboard_and_is_readable(
    qtbot: QtBot, window: MainWindow, bundled: Database, clock: Clock, prompts: FakePrompts
) -> None:
    dialog = BackupsDialog(bundled, Schedulers(), clock, prompts, parent=window)
    dialog.show()
    qtbot.waitExposed(dialog)
    dialog.activateWindow()
    qtbot.waitUntil(lambda: dialog.focusWidget() is not None)
    assert_readable(dialog)
    reached = set()
    for _ in range(8):
        focused = dialog.focusWidget()
        assert focused is not None
        assert focused.accessibleName()
        reached.add(focused.objectName() or focused.accessibleName())
        qtbot.keyClick(focused, Qt.Key.Key_Tab)
    assert {"Backups", "Back up now", "Close"} <= reached
    with qtbot.waitSignal(dialog.rejected):
        qtbot.keyClick(dialog.focusWidget() or dialog, Qt.Key.Key_Escape)
