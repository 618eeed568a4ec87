"""Follow-ups on the review screen and in the statistics' misconceptions, with real widgets:
the banner over the question, the option's note after the answer whatever was picked, and
the three groups of misconceptions with their counts."""

from __future__ import annotations

import random
from datetime import UTC, datetime
from pathlib import Path

import pytest
from PySide6.QtCore import QSize, Qt
from PySide6.QtWidgets import QLabel, QMainWindow
from pytestqt.modeltest import ModelTester
from pytestqt.qtbot import QtBot

from recall.content.deck_format import ChoiceCard
from recall.host import paths
from recall.scheduling import Schedulers
from recall.stats.figures import FollowUpFigures, Misconception
from recall.storage import Database
from recall.study.session import StudySession
from recall.ui.review.view import Phase, ReviewView
from recall.ui.statistics.misconceptions_view import MisconceptionsView
from tests.conftest import ZONE, Clock
from tests.study.test_follow_ups import (
    DECK,
    WHY,
    make_deck,
    picked_twice,
    study_until_follow_up,
)

# The offscreen platform's note on a window sized before it is shown.
pytestmark = pytest.mark.qt_log_ignore("^This plugin does not support propagateSizeHints")
_HOSTS: list[QMainWindow] = []


def _until_follow_up_due(database: Database, clock: Clock) -> None:
    """Lyon picked twice, then the card learnt again until its follow-up is next."""
    study_until_follow_up(picked_twice(database, clock), clock)


def _host(qtbot: QtBot, widget: ReviewView | MisconceptionsView, size: QSize) -> QMainWindow:
    host = QMainWindow()
    host.resize(size)
    host.setCentralWidget(widget)
    qtbot.addWidget(host)
    _HOSTS.append(host)
    host.show()
    qtbot.waitExposed(host)
    return host


def _label(view: ReviewView, name: str) -> QLabel:
    label = view.findChild(QLabel, name)
    assert label is not None
    return label


def test_a_follow_up_shows_its_banner_and_after_any_answer_the_options_note(
    qtbot: QtBot, database: Database, clock: Clock, tmp_path: Path
) -> None:
    make_deck(database, clock)
    _until_follow_up_due(database, clock)
    session = StudySession(database, Schedulers(fuzz=False), DECK, random.Random(1), ZONE)
    view = ReviewView(session, clock, paths.media_dir(database.path.parent))
    host = _host(qtbot, view, QSize(760, 640))
    view.start()
    shown = view.shown
    assert shown is not None
    assert shown.follow_up is not None
    banner = _label(view, "followUpBanner")
    assert banner.isVisible()
    assert "picked a wrong option here twice before" in banner.text()
    assert "Lyon" not in banner.text()  # the question gives nothing away
    assert len(view.choice_buttons) == 3
    host.grab().save(str(tmp_path / "follow-up-question.png"))
    # Picking the right option still shows why Lyon is wrong, prominently.
    assert isinstance(shown.card, ChoiceCard)
    right = next(
        position for position, index in enumerate(shown.order) if shown.card.choices[index].correct
    )
    clock.advance(seconds=6)
    qtbot.keyClick(view, Qt.Key(Qt.Key.Key_1 + right))
    assert view.phase is Phase.FEEDBACK
    note = _label(view, "followUpNote")
    assert note.isVisible()
    assert "You picked \u201cLyon\u201d twice before: why it is wrong" in note.accessibleName()
    assert WHY in note.accessibleName()
    host.grab().save(str(tmp_path / "follow-up-feedback.png"))
    # The next card is an ordinary one: no banner, no note.
    view.rate()
    if view.shown is not None:
        assert view.shown.follow_up is None
        assert not _label(view, "followUpBanner").isVisible()


def _misconception(key: str, choice: str, times: int, still: bool, follow_up: str) -> Misconception:
    return Misconception(
        deck_key="fr",
        card_id=len(key),
        card_key=key,
        question=f"Capital of France ({key})?",
        choice=choice,
        times=times,
        last=datetime(2026, 3, 2, 9, 0, tzinfo=UTC),
        still=still,
        follow_up=follow_up,
    )


def test_the_misconceptions_show_persisting_fading_and_faded_with_counts(
    qtbot: QtBot, qtmodeltester: ModelTester, tmp_path: Path
) -> None:
    view = MisconceptionsView()
    host = _host(qtbot, view, QSize(900, 320))
    items = [
        _misconception("persisting", "Lyon", 4, True, "persisting"),
        _misconception("fading", "Marseille", 3, False, "fading"),
        _misconception("faded", "Nice", 2, False, "faded"),
        _misconception("once", "Lille", 1, False, ""),
    ]
    view.set_misconceptions(items, FollowUpFigures(persisting=1, fading=1, faded=1, answers=7))
    qtmodeltester.check(view.model)
    column = view.model.HEADERS.index("Follow-up")
    shown = [view.model.index(row, column).data() for row in range(view.model.rowCount())]
    assert shown == ["Persisting", "Fading", "Faded", "No follow-up"]
    counts = view.follow_ups.text()
    assert "1 persisting" in counts
    assert "1 fading" in counts
    assert "1 faded" in counts
    assert "7 follow-up answers" in counts
    host.grab().save(str(tmp_path / "misconceptions.png"))
    view.set_misconceptions([], FollowUpFigures())
    assert "No follow-ups yet" in view.follow_ups.text()
