"""Type-in and hinted cards on the review screen: typing, Enter, the comparison, grading."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from PySide6.QtCore import QSize, Qt
from PySide6.QtWidgets import QLabel, QMainWindow
from pytestqt.qtbot import QtBot

from recall.collection import importing
from recall.core.memory import Rating
from recall.host import paths
from recall.scheduling import Schedulers
from recall.storage import Database
from recall.study.session import StudySession
from recall.ui.review.view import Phase, ReviewView
from tests.conftest import ZONE, Clock

_HOSTS: list[QMainWindow] = []


def _deck(folder: Path) -> Path:
    deck = {
        "format": "recall-deck",
        "version": 1,
        "id": "capitals",
        "name": "Capitals",
        "cards": [
            {
                "id": "italy",
                "type": "basic",
                "markup": "html",
                "front": "Capital of <b>Italy</b>?",
                "back": "<br>",
                "type_answer": "Rome",
                "hints": ["It was not built in a day"],
            },
        ],
    }
    path = folder / "capitals.json"
    path.write_text(json.dumps(deck))
    return path


def _screen(qtbot: QtBot, database: Database, clock: Clock, tmp_path: Path) -> ReviewView:
    path = _deck(tmp_path)
    schedulers = Schedulers(fuzz=False)
    importing.import_files(database, schedulers, [path], clock())
    session = StudySession(database, schedulers, "capitals", random.Random(1), ZONE)
    review = ReviewView(session, clock, paths.media_dir(database.path.parent))
    host = QMainWindow()
    host.setMinimumSize(QSize(640, 480))
    host.setCentralWidget(review)
    qtbot.addWidget(host)
    _HOSTS.append(host)
    host.show()
    qtbot.waitExposed(host)
    review.start()
    return review


@pytest.fixture
def view(qtbot: QtBot, database: Database, clock: Clock, tmp_path: Path) -> ReviewView:
    return _screen(qtbot, database, clock, tmp_path)


def _type(qtbot: QtBot, view: ReviewView, text: str) -> None:
    box = view.findChild(QLabel, "typeComparison")
    assert box is not None
    assert not box.isVisible()
    typing = view._card.type_box
    assert typing.hasFocus()  # the card opens with the box ready for typing
    qtbot.keyClicks(typing, text)
    typing.window().grab().save(f"/tmp/type-in-before-{text or 'empty'}.png")
    qtbot.keyClick(typing, Qt.Key.Key_Return)


@pytest.mark.parametrize(
    ("typed", "correct", "proposed"),
    [("Rome", True, Rating.GOOD), ("Roma", False, Rating.HARD), ("Paris", False, Rating.AGAIN)],
)
def test_enter_compares_what_was_typed_and_proposes_a_rating(
    qtbot: QtBot, view: ReviewView, typed: str, correct: bool, proposed: Rating
) -> None:
    assert view._card.type_box.accessibleName() == "Type the answer"
    _type(qtbot, view, typed)
    assert view.phase is Phase.FEEDBACK  # one Enter checks; it does not also rate
    answer = view.answer
    assert answer is not None
    assert (answer.correct, answer.proposed) == (correct, proposed)
    comparison = view.findChild(QLabel, "typeComparison")
    assert comparison is not None
    assert comparison.isVisible()
    assert "Rome" in comparison.accessibleName()
    assert view._card.type_box.isReadOnly()
    assert not view._card.type_box.isVisible()  # the comparison shows what was typed
    view.window().grab().save(f"/tmp/type-in-after-{typed}.png")
    qtbot.keyClick(view.rating_buttons[proposed], Qt.Key.Key_Space)
    assert view.summary().answered == 1


def test_enter_on_an_empty_box_shows_the_answer_for_the_learner_to_rate(
    qtbot: QtBot, view: ReviewView
) -> None:
    _type(qtbot, view, "")
    answer = view.answer
    assert answer is not None
    assert (answer.correct, answer.proposed) == (None, Rating.GOOD)


def test_h_reveals_a_hint_and_the_button_does_too(qtbot: QtBot, view: ReviewView) -> None:
    button = view._card.hint_button
    assert button.isVisible()
    assert "It was not built" not in view._card.hints_text()
    view.setFocus()
    qtbot.keyClick(view, Qt.Key.Key_H)
    assert view._card.hints_text() == "It was not built in a day"
    assert not button.isVisible()


def test_tab_reaches_the_hint_button_and_space_presses_it(qtbot: QtBot, view: ReviewView) -> None:
    button = view._card.hint_button
    qtbot.keyClick(view._card.type_box, Qt.Key.Key_Tab)
    assert button.hasFocus()
    qtbot.keyClick(button, Qt.Key.Key_Space)
    assert view._card.hints_text() == "It was not built in a day"
    assert view.phase is Phase.QUESTION  # showing a hint answers nothing
