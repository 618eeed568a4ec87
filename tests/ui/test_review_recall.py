"""A mature choice card on the review screen asked as type-in: the box, Enter, the way back to
the choices, and what a screen reader hears."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from PySide6.QtCore import QSize, Qt
from PySide6.QtWidgets import QLabel, QMainWindow, QPushButton
from pytestqt.qtbot import QtBot

from recall.collection import importing
from recall.content.deck_format import ChoiceCard
from recall.core.memory import Rating
from recall.host import paths
from recall.scheduling import Schedulers
from recall.storage import Database
from recall.study.session import StudySession
from recall.ui.review.card_panel import AS_RECALL, CHOICES_SHOWN
from recall.ui.review.view import Phase, ReviewView
from tests.conftest import ZONE, Clock
from tests.helpers.mature_choice import due_review, use_threshold, write_deck

_HOSTS: list[QMainWindow] = []


@pytest.fixture
def spoken() -> list[str]:
    """What the review screen announced to screen readers, in order."""
    return []


@pytest.fixture
def view(
    qtbot: QtBot, database: Database, clock: Clock, tmp_path: Path, spoken: list[str]
) -> ReviewView:
    """The review screen showing the France card, mature and asked as type-in."""
    schedulers = Schedulers(fuzz=False)
    importing.import_files(database, schedulers, [write_deck(tmp_path)], clock())
    use_threshold(database, 1)
    earlier = StudySession(database, schedulers, "capitals", random.Random(3), ZONE)
    due_review(earlier, clock, "france")  # studied until the card is due in review
    session = StudySession(database, schedulers, "capitals", random.Random(3), ZONE)
    review = ReviewView(session, clock, paths.media_dir(database.path.parent))
    host = QMainWindow()
    host.setMinimumSize(QSize(640, 480))
    host.setCentralWidget(review)
    qtbot.addWidget(host)
    _HOSTS.append(host)
    host.show()
    qtbot.waitExposed(host)
    review.announced.connect(spoken.append)
    review.start()
    shown = review.shown
    assert shown is not None
    assert (shown.card.id, shown.as_recall) == ("france", True)
    return review


def _type_and_enter(qtbot: QtBot, view: ReviewView, text: str, shot: str = "") -> None:
    box = view._card.type_box
    assert box.hasFocus()  # the card opens with the box ready for typing
    qtbot.keyClicks(box, text)
    if shot:
        view.window().grab().save(shot)
    qtbot.keyClick(box, Qt.Key.Key_Return)


def test_the_question_comes_with_the_box_why_and_no_choices(
    view: ReviewView, spoken: list[str]
) -> None:
    assert view.choice_buttons == []
    assert view._card.type_box.isVisible()
    note = view.findChild(QLabel, "recallNote")
    button = view.findChild(QPushButton, "showChoices")
    assert note is not None
    assert button is not None
    assert note.isVisible()
    assert note.accessibleName() == AS_RECALL
    assert (button.isVisible(), button.accessibleName()) == (True, "Show choices")
    assert view._ratings.key_hint.text() == "Type the answer · Enter: check · Alt+C: show choices"
    said = spoken[-1]
    assert said.startswith("Question: What is the capital of France?")
    assert AS_RECALL in said
    assert "Lyon" not in said  # the choices are not read out either


def test_typing_the_right_option_and_enter_shows_the_difference_and_records_good(
    qtbot: QtBot, view: ReviewView, database: Database, tmp_path: Path, spoken: list[str]
) -> None:
    _type_and_enter(qtbot, view, "paris", str(tmp_path / "question.png"))
    assert view.phase is Phase.FEEDBACK  # Enter checks; it does not also rate
    answer = view.answer
    assert answer is not None
    assert (answer.correct, answer.proposed) == (True, Rating.GOOD)
    comparison = view.findChild(QLabel, "typeComparison")
    assert comparison is not None
    assert comparison.isVisible()
    assert comparison.accessibleName() == "You typed Paris: right."
    feedback = view._card.feedback
    assert feedback.verdict.text() == "Correct"
    assert "On the Seine." in feedback.picked_note.accessibleName()
    assert "since 987" in feedback.explanation.accessibleName()
    note = view.findChild(QLabel, "recallNote")
    assert note is not None
    assert not note.isVisible()
    assert "Suggested: Good" in spoken[-1]
    view.window().grab().save(str(tmp_path / "answer.png"))
    qtbot.keyClick(view.rating_buttons[Rating.GOOD], Qt.Key.Key_Space)
    assert view.summary().answered == 1
    with database.reading() as tx:
        last = tx.history.of_card(answer.card.card_id)[-1]
    assert (last.correct, last.picked, last.rating) == (True, ("**Paris**",), Rating.GOOD)


def test_typing_a_wrong_option_shows_its_note_and_records_that_pick(
    qtbot: QtBot, view: ReviewView, database: Database, tmp_path: Path
) -> None:
    _type_and_enter(qtbot, view, "Lyon")
    answer = view.answer
    assert answer is not None
    assert (answer.correct, answer.proposed) == (False, Rating.AGAIN)
    feedback = view._card.feedback
    assert feedback.verdict.text() == "Not quite"
    assert "third city" in feedback.picked_note.accessibleName()
    comparison = view.findChild(QLabel, "typeComparison")
    assert comparison is not None
    assert comparison.accessibleName() == "You typed Lyon; the answer is Paris."
    view.window().grab().save(str(tmp_path / "wrong.png"))
    qtbot.keyClick(view, Qt.Key.Key_Space)
    with database.reading() as tx:
        last = tx.history.of_card(answer.card.card_id)[-1]
    assert (last.correct, last.picked, last.rating) == (False, ("Lyon",), Rating.AGAIN)


def test_after_again_the_card_comes_back_with_its_choices(
    qtbot: QtBot, view: ReviewView, clock: Clock
) -> None:
    first = view.shown
    assert first is not None
    _type_and_enter(qtbot, view, "Marseille")
    qtbot.keyClick(view, Qt.Key.Key_1)  # Again
    between = view.shown
    assert between is not None
    if between.card.id == "primes":  # due in review too: answered first
        assert isinstance(between.card, ChoiceCard)
        for position, index in enumerate(between.order):
            if index in between.card.correct_indexes:
                view.pick(position)
        qtbot.keyClick(view, Qt.Key.Key_Space)
        qtbot.keyClick(view, Qt.Key.Key_Space)
    shown = view.shown
    assert shown is not None
    assert shown.card_id == first.card_id  # its relearning step, within learn-ahead
    assert shown is not None
    assert not shown.as_recall
    assert len(view.choice_buttons) == 3
    assert not view._card.type_box.isVisible()


@pytest.mark.parametrize("how", ["alt-c", "button", "empty-enter"])
def test_the_choices_come_back_on_asking_and_a_right_one_suggests_hard(
    qtbot: QtBot, view: ReviewView, tmp_path: Path, how: str, spoken: list[str]
) -> None:
    box = view._card.type_box
    if how == "alt-c":
        qtbot.keyClick(box, Qt.Key.Key_C, Qt.KeyboardModifier.AltModifier)
    elif how == "button":
        button = view.findChild(QPushButton, "showChoices")
        assert button is not None
        qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    else:
        qtbot.keyClick(box, Qt.Key.Key_Return)
    assert view.phase is Phase.QUESTION  # nothing is answered yet
    assert not box.isVisible()
    assert len(view.choice_buttons) == 3
    note = view.findChild(QLabel, "recallNote")
    assert note is not None
    assert note.accessibleName() == CHOICES_SHOWN
    assert "Choice 1: Paris." in spoken[-1]  # the choices are read out now
    view.window().grab().save(str(tmp_path / "choices.png"))
    shown = view.shown
    assert shown is not None
    assert isinstance(shown.card, ChoiceCard)
    right = next(p for p, i in enumerate(shown.order) if i in shown.card.correct_indexes)
    qtbot.keyClick(view, getattr(Qt.Key, f"Key_{right + 1}"))
    answer = view.answer
    assert answer is not None
    assert (answer.correct, answer.proposed) == (True, Rating.HARD)
