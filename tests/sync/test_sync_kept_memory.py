"""A memory state kept from Anki (a memory entry) reaches every device and schedules the same."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from recall.collection import importing
from recall.collection.imported_history import write_history
from recall.content.deck_format import parse_deck
from recall.core.memory import CardState, Rating, ReviewKind
from recall.importers import ImportedChange, ImportedReview
from recall.sync.events import EventError, ReviewEvent, encode, parse
from tests.conftest import DATA
from tests.helpers.sync_devices import Device, card_id, converged

TINY = (DATA / "decks" / "tiny.json").read_text()
START = datetime(2026, 11, 2, 8, 0, tzinfo=UTC)
STABILITY, DIFFICULTY = 12.345678901, 6.54321


def _keep_memory(device: Device) -> str:
    """Import, as an Anki import would, an answer and then a memory entry for one card."""
    deck = parse_deck(TINY, "tiny.json")
    importing.import_deck(device.database, deck, START)
    card_key = deck.cards[0].id
    due = START + timedelta(days=9, hours=4)
    with device.database.transaction() as transaction:
        write_history(
            transaction,
            device.schedulers,
            deck,
            {(deck.id, card_key): [ImportedReview(START, Rating.GOOD, 4000)]},
            changes={
                (deck.id, card_key): [
                    ImportedChange(
                        START + timedelta(minutes=1),
                        ReviewKind.MEMORY,
                        due,
                        restates=True,
                        stability=STABILITY,
                        difficulty=DIFFICULTY,
                    )
                ]
            },
        )
    return card_key


def test_two_devices_converge_on_a_kept_memory_state(
    pair: tuple[Device, Device], tmp_path: Path
) -> None:
    laptop, desktop = pair
    card_key = _keep_memory(laptop)
    laptop.sync(START + timedelta(minutes=2))
    desktop.sync(START + timedelta(minutes=2))
    converged([laptop, desktop], tmp_path, START + timedelta(minutes=2))
    with desktop.database.reading() as reading:
        card = reading.cards.get(card_id(desktop, "tiny", card_key))
    assert card.memory.state is CardState.REVIEW
    assert (card.memory.stability, card.memory.difficulty) == (STABILITY, DIFFICULTY)
    assert card.memory.last_review == START  # the answer's, as the laptop has it
    # Both study the card later; the answer schedules alike from the kept memory.
    later = START + timedelta(days=9)
    laptop.study("tiny", 3, later, random.Random(4))
    laptop.sync(later)
    desktop.sync(later)
    converged([laptop, desktop], tmp_path, later)


def _review_line(kind: int, **memory: object) -> dict[str, object]:
    line: dict[str, object] = {
        "type": "review",
        "id": "r1",
        "deck": "tiny",
        "card": "c1",
        "at": 1_790_000_000_000_000,
        "kind": kind,
        "rating": 0,
        "duration_ms": 0,
        "state_before": 2,
        "picked": None,
        "correct": False,
        "set_due": 1_790_900_000_000_000,
        "proposed": None,
    }
    return line | memory


def test_a_memory_event_is_read_with_its_memory_state() -> None:
    event = parse(encode(_review_line(4, stability=3.5, difficulty=7.25)))
    assert isinstance(event, ReviewEvent)
    assert (event.kind, event.stability, event.difficulty) == (4, 3.5, 7.25)


@pytest.mark.parametrize(
    "line",
    [
        _review_line(4),  # no memory state
        _review_line(4, stability=0.0, difficulty=5.0),  # below FSRS's least stability
        _review_line(4, stability=40_000.0, difficulty=5.0),
        _review_line(4, stability=3.0, difficulty=10.5),
        _review_line(4, stability=3.0, difficulty=True),
        _review_line(4, stability=float("nan"), difficulty=5.0),
        _review_line(2, stability=3.0, difficulty=5.0),  # a due date set carries none
    ],
)
def test_a_memory_state_out_of_fsrs_s_bounds_is_refused(line: dict[str, object]) -> None:
    with pytest.raises(EventError, match=r"memory state|not JSON"):
        parse(encode(line))
