"""Cards of one note are not shown back to back: an answer buries its siblings until the
next study day, as the preset says, and undoing the answer brings them back."""

from __future__ import annotations

import json
import random

from recall.collection import importing
from recall.content.deck_format import parse_deck
from recall.core.memory import Rating
from recall.core.presets import DEFAULT_PRESET_ID, Preset
from recall.scheduling import Schedulers
from recall.storage import Database
from recall.study.session import StudySession
from tests.conftest import ZONE, Clock

DECK = "notes"


def _deck(database: Database, clock: Clock) -> None:
    cards = [
        {"id": key, "type": "basic", "front": f"front {key}", "back": f"back {key}"}
        | ({"note": note} if note else {})
        for key, note in (("a1", "a"), ("a2", "a"), ("b1", "b"), ("b2", "b"), ("c", ""))
    ]
    deck = {"format": "recall-deck", "version": 1, "id": DECK, "name": "Notes", "cards": cards}
    importing.import_deck(database, parse_deck(json.dumps(deck), "notes.json"), clock())


def _session(database: Database) -> StudySession:
    return StudySession(database, Schedulers(fuzz=False), DECK, random.Random(1), ZONE)


def _study(session: StudySession, clock: Clock, count: int) -> list[str]:
    """Answer the next ``count`` cards Easy (each graduates at once); their keys in order."""
    shown_keys = []
    for _ in range(count):
        shown = session.next_card(clock())
        if shown is None:
            break
        shown_keys.append(shown.card.id)
        session.record(session.reveal(shown, clock.advance(seconds=5)), Rating.EASY, clock())
    return shown_keys


def test_an_answer_buries_its_new_siblings_until_the_next_study_day(
    database: Database, clock: Clock
) -> None:
    _deck(database, clock)
    session = _session(database)
    assert _study(session, clock, 10) == ["a1", "b1", "c"]
    assert _session(database).next_card(clock()) is None  # a fresh read agrees
    # The next study day the siblings come (new cards, one a day per note again).
    clock.advance(days=1)
    assert _study(_session(database), clock, 10) == ["a2", "b2"]


def test_undoing_the_answer_lifts_the_burying(database: Database, clock: Clock) -> None:
    _deck(database, clock)
    session = _session(database)
    assert _study(session, clock, 1) == ["a1"]
    assert session.counts(clock()).new == 3
    session.undo(clock())
    assert session.counts(clock()).new == 5
    shown = session.next_card(clock())
    assert shown is not None
    assert shown.card.id == "a1"


def test_burying_is_a_preset_option_for_new_and_review_cards_apart(
    database: Database, clock: Clock
) -> None:
    _deck(database, clock)
    with database.transaction() as transaction:
        transaction.options.save_preset(DEFAULT_PRESET_ID, Preset(bury_new_siblings=False))
    assert _study(_session(database), clock, 10) == ["a1", "a2", "b1", "b2", "c"]
    # Every card is now a review card: due together, siblings still apart for reviews.
    clock.advance(days=60)
    first = _study(_session(database), clock, 10)
    assert first == ["a1", "b1", "c"]
    with database.transaction() as transaction:
        transaction.options.save_preset(
            DEFAULT_PRESET_ID, Preset(bury_new_siblings=False, bury_review_siblings=False)
        )
    assert _study(_session(database), clock, 10) == ["a2", "b2"]


def test_a_buried_sibling_is_not_a_schedule_change(database: Database, clock: Clock) -> None:
    _deck(database, clock)
    _study(_session(database), clock, 10)
    with database.reading() as reading:
        rows = reading.sql.rows("SELECT buried_until FROM card_memory")
        assert {row[0] for row in rows} == {None}
        assert reading.history.count() == 3
