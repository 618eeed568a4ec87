"""Reviews that wait here (for a card not yet arrived, or a time not yet come) are bounded:
an idle round reads none that cannot be stored yet, and a device sending endless reviews of
cards it never sends cannot grow the database without end."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest

from recall.sync import merge_reviews
from tests.helpers.sync_devices import Device
from tests.sync.test_sync_hostile_events import (
    STAMP,
    START,
    card_event,
    deck_event,
    review_event,
    write_folder,
)

HOUR_US = 3_600_000_000


@pytest.fixture
def receiver(tmp_path: Path, shared: Path) -> Iterator[Device]:
    device = Device(tmp_path, "desktop", shared, fuzz=False)
    yield device
    device.close()


def _held(device: Device) -> tuple[int, int]:
    """(how many reviews wait, how many of them an idle round would read)."""
    latest = int((START + timedelta(days=400)).timestamp()) * 1_000_000
    with device.database.reading() as transaction:
        return transaction.sync_state.held_count(), len(transaction.sync_state.held_ready(latest))


def test_reviews_of_a_card_never_sent_wait_unread_until_it_arrives(
    receiver: Device, shared: Path
) -> None:
    reviews = [review_event("later", "c1", f"r{n}", STAMP - (n + 1) * HOUR_US) for n in range(40)]
    write_folder(shared, [deck_event("later", "Later deck"), *reviews])
    receiver.sync(START)
    assert _held(receiver) == (40, 0)  # waiting, and no idle round reads them
    receiver.sync(START + timedelta(minutes=5))
    assert _held(receiver) == (40, 0)

    write_folder(shared, [card_event("later", "c1")], "000002-0000000b.jsonl")
    receiver.sync(START + timedelta(minutes=10))
    assert _held(receiver) == (0, 0)
    with receiver.database.reading() as transaction:
        assert transaction.history.count(None) == 40
    assert receiver.healthy(START + timedelta(minutes=10)) == []


def test_reviews_dated_ahead_wait_for_their_time(receiver: Device, shared: Path) -> None:
    ahead = STAMP + 2 * 24 * HOUR_US
    write_folder(
        shared,
        [deck_event("d", "Deck"), card_event("d", "c1"), review_event("d", "c1", "r1", ahead)],
    )
    receiver.sync(START)
    with receiver.database.reading() as transaction:
        assert transaction.sync_state.held_count() == 1
        assert transaction.sync_state.held_ready(STAMP) == []
        assert len(transaction.sync_state.held_ready(ahead)) == 1
    receiver.sync(START + timedelta(days=3))
    with receiver.database.reading() as transaction:
        assert transaction.sync_state.held_count() == 0
        assert transaction.history.count(None) == 1


def test_beyond_the_bound_arriving_reviews_are_left_out_with_a_note(
    receiver: Device, shared: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(merge_reviews, "MAX_HELD", 30)
    reviews = [review_event("ghost", f"c{n}", f"r{n:03}", STAMP - HOUR_US) for n in range(50)]
    write_folder(shared, [deck_event("ghost", "Ghost deck"), *reviews])
    report = receiver.sync(START)
    assert _held(receiver)[0] == 30
    assert any("20 reviews left out" in note for note in report.notes), report.notes

    # Later rounds add nothing past the bound, and a later good event still arrives.
    more = [review_event("ghost", "c99", f"s{n:03}", STAMP - HOUR_US) for n in range(5)]
    write_folder(shared, [*more, deck_event("fine", "Fine deck")], "000002-0000000b.jsonl")
    receiver.sync(START + timedelta(minutes=5))
    assert _held(receiver)[0] == 30
    assert "fine" in receiver.deck_keys()
    assert receiver.healthy(START + timedelta(minutes=5)) == []
