"""Studying with a fixed clock: a wrong option picked again is named with its earlier picks."""

from __future__ import annotations

import json
from datetime import timedelta

from recall import stats
from recall.collection import importing
from recall.content.deck_format import ChoiceCard, parse_deck
from recall.core.memory import Rating
from recall.core.preferences import Preferences
from recall.scheduling import Schedulers
from recall.storage import Database
from recall.study.session import StudySession
from recall.study.values import Answer
from tests.conftest import DATA, ZONE, Clock


def _answer_q1(session: StudySession, clock: Clock, choice: str) -> Answer:
    """Study until q1 shows (rating anything else Good), then pick ``choice`` on it."""
    while True:
        shown = session.next_card(clock())
        assert shown is not None
        card = shown.card
        if isinstance(card, ChoiceCard) and card.id == "q1":
            index = next(i for i, option in enumerate(card.choices) if option.text == choice)
            answer = session.answer_choice(shown, {index}, clock.advance(seconds=6))
            session.record(answer, answer.proposed, clock())
            return answer
        other = session.reveal(shown, clock.advance(seconds=3))
        session.record(other, Rating.GOOD, clock())


def test_the_same_wrong_option_on_different_days(database: Database, clock: Clock) -> None:
    deck = parse_deck((DATA / "decks" / "tiny.json").read_text(), "tiny.json")
    importing.import_deck(database, deck, clock())
    schedulers = Schedulers(fuzz=False)
    settings = Preferences()
    session = StudySession(database, schedulers, "tiny", zone=ZONE)

    first = _answer_q1(session, clock, "3")
    assert first.correct is False
    assert first.earlier_picks == ()

    clock.advance(days=2)
    second = _answer_q1(session, clock, "3")
    (earlier,) = second.earlier_picks
    assert (earlier.choice, earlier.times) == ("3", 1)
    assert earlier.last == first.answered_at

    clock.advance(days=2)
    right = _answer_q1(session, clock, "4")
    assert right.correct is True
    assert right.earlier_picks == ()  # only wrong picks are named

    figures = stats.collect(database, settings, clock(), "tiny", None, zone=ZONE)
    (misconception,) = figures.misconceptions
    assert (misconception.choice, misconception.times) == ("3", 2)
    assert misconception.last == second.answered_at
    assert misconception.still is False  # the latest review picked the right one
    assert figures.ratings.proposed_known == figures.totals.reviews
    assert json.loads(json.dumps(stats.to_json(figures)))["misconceptions"][0]["times"] == 2
    assert figures.streak.longest == 1
    assert clock() - first.answered_at > timedelta(days=3)
