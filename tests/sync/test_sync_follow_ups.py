"""Follow-up answers travel as review events of kind 5: the other computer stores them and
works out the same follow-ups from the same history; a kind-5 event that does not fit one
(a due date of its own, no picks) is refused like any bad event."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from recall.content.deck_format import ChoiceCard
from recall.core.memory import Rating, ReviewKind
from recall.scheduling.follow_ups import Standing
from recall.sync.events import EventError, ReviewEvent, encode, parse
from tests.conftest import Clock
from tests.helpers.sync_devices import Device
from tests.study.test_follow_ups import DECK, follow_ups_of, make_deck, pick, session_for


def test_follow_up_answers_arrive_and_give_the_same_follow_ups(
    pair: tuple[Device, Device],
) -> None:
    laptop, desktop = pair
    clock = Clock(datetime(2026, 1, 15, 9, 0, tzinfo=UTC))
    make_deck(laptop.database, clock)
    session = session_for(laptop.database)
    answered = 0
    for _ in range(80):
        shown = session.next_card(clock())
        if shown is None:
            clock.advance(minutes=11)
            continue
        if isinstance(shown.card, ChoiceCard):
            # Lyon in the card's first two answers, Paris ever after.
            pick(session, shown, "Lyon" if answered < 2 else "Paris", clock)
            answered += 1
            if shown.follow_up is not None:
                break
        else:
            reveal = session.reveal(shown, clock.advance(seconds=3))
            session.record(reveal, Rating.GOOD, clock.advance(seconds=1))
    else:
        raise AssertionError("no follow-up came up")
    laptop.sync(clock())
    desktop.sync(clock.advance(minutes=1))
    with desktop.database.reading() as transaction:
        deck = transaction.decks.by_key(DECK)
        assert deck is not None
        card_id = transaction.cards.keys(deck.id)["france"].id
        kinds = [review.kind for review in transaction.history.of_card(card_id)]
    assert kinds.count(ReviewKind.FOLLOW_UP) == 1
    (there,) = follow_ups_of(desktop.database)
    (here,) = follow_ups_of(laptop.database)
    assert there.follow_up == here.follow_up
    assert there.follow_up.standing is Standing.ACTIVE
    assert there.follow_up.answers == 1
    assert desktop.healthy(clock()) == []
    assert desktop.schedules_by_key() == laptop.schedules_by_key()


def _event(**more: object) -> dict[str, object]:
    review: dict[str, object] = {
        "type": "review", "id": "r-1", "deck": DECK, "card": "france",
        "at": 1_768_467_600_000_000, "kind": 5, "rating": 3, "duration_ms": 4000,
        "state_before": 2, "picked": ["Paris"], "correct": True, "set_due": None,
        "proposed": 3,
    }  # fmt: skip
    return review | more


def test_a_follow_up_event_is_read_and_one_that_does_not_fit_is_refused() -> None:
    event = parse(encode(_event()))
    assert isinstance(event, ReviewEvent)
    assert event.kind == int(ReviewKind.FOLLOW_UP)
    due = int(datetime(2026, 2, 1, tzinfo=UTC).timestamp() * 1_000_000)
    for bad in (
        _event(kind=6),
        _event(set_due=due),
        _event(picked=None),
        _event(picked=[]),
        _event(rating=0),
        _event(stability=3.0, difficulty=5.0),
    ):
        with pytest.raises(EventError):
            parse(encode(bad))
