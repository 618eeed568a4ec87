"""Sync and the cards' seeds: a card keeps one seed on every device, so fuzzed due dates and
``recall export-reviews`` are the same everywhere, however the card came to each."""

from __future__ import annotations

import json
import random
import sqlite3
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from recall.changes import decks as deck_changes
from recall.collection import importing, opening
from recall.content.deck_format import parse_deck
from recall.core.memory import Rating
from recall.study.session import StudySession
from tests.conftest import DATA
from tests.helpers.sync_devices import Device

TINY = (DATA / "decks" / "tiny.json").read_text()
START = datetime(2026, 11, 2, 8, 0, tzinfo=UTC)


@pytest.fixture
def pair(tmp_path: Path) -> Iterator[tuple[Device, Device]]:
    shared = tmp_path / "shared"
    shared.mkdir()
    first = Device(tmp_path, "laptop", shared)
    second = Device(tmp_path, "desktop", shared)
    yield first, second
    first.close()
    second.close()


def seeds(device: Device) -> dict[tuple[str, str], int]:
    """(deck key, card key) -> seed, read without Recall's code."""
    connection = sqlite3.connect(device.database.path)
    try:
        rows = connection.execute(
            "SELECT deck.key, card.key, card.seed FROM card JOIN deck ON deck.id = card.deck_id"
        ).fetchall()
    finally:
        connection.close()
    return {(deck, key): seed for deck, key, seed in rows}


def study_days(device: Device, deck: str, start: datetime, days: int, seed: int) -> None:
    """Study a deck each day for ``days`` days, a few answers 10 s apart each day, from a
    minute of the hour of this seed's own (no card is answered twice at one moment)."""
    rng = random.Random(seed)
    session = StudySession(device.database, device.schedulers, deck, rng=rng)
    for day in range(days):
        moment = start + timedelta(days=day, hours=rng.randint(0, 3), minutes=seed)
        for _ in range(3):
            moment += timedelta(seconds=10)
            shown = session.next_card(moment)
            if shown is None:
                break
            session.record(session.reveal(shown, moment), rng.choice(list(Rating)), moment)


def same_everywhere(devices: list[Device], now: datetime) -> None:
    reference = devices[0]
    for device in devices[1:]:
        assert seeds(device) == seeds(reference)
        assert device.review_log() == reference.review_log()
        assert device.schedules_by_key() == reference.schedules_by_key()
    for device in devices:
        assert device.healthy(now) == []
    assert len(reference.review_rows()) > 10
    values = list(seeds(reference).values())
    assert len(set(values)) == len(values)


def test_the_same_deck_installed_on_both_settles_on_the_seeds_sent_first(
    pair: tuple[Device, Device],
) -> None:
    laptop, desktop = pair
    for device in pair:  # each installs the bundled deck at its first start
        opening.install_bundled_decks(device.database, START)
    assert all(seeds(laptop)[key] != seed for key, seed in seeds(desktop).items())
    study_days(laptop, "activation-recompute", START, 12, 1)
    study_days(desktop, "activation-recompute", START, 12, 2)
    before = seeds(laptop)
    later = START + timedelta(days=13)
    laptop.sync(later)  # the laptop sends its cards first: their seeds win
    desktop.sync(later + timedelta(minutes=1))
    laptop.sync(later + timedelta(minutes=2))
    assert seeds(desktop) == before
    same_everywhere([laptop, desktop], later + timedelta(minutes=2))
    # Both go on studying; every due date, fuzz included, stays the same on both.
    study_days(laptop, "activation-recompute", later + timedelta(days=1), 20, 3)
    study_days(desktop, "activation-recompute", later + timedelta(days=1), 20, 4)
    end = later + timedelta(days=22)
    for _ in range(2):
        laptop.sync(end)
        desktop.sync(end)
    same_everywhere([laptop, desktop], end)


def test_a_card_arriving_takes_the_seed_it_was_sent_with(pair: tuple[Device, Device]) -> None:
    laptop, desktop = pair
    opening.install_bundled_decks(laptop.database, START)
    study_days(laptop, "activation-recompute", START, 15, 5)
    laptop.sync(START + timedelta(days=16))
    desktop.sync(START + timedelta(days=16))
    assert seeds(desktop) == seeds(laptop)
    same_everywhere([laptop, desktop], START + timedelta(days=16))


def carried_over(device: Device) -> None:
    """Make every card's seed its id, as the upgrade to seeds leaves a database."""
    connection = sqlite3.connect(device.database.path)
    with connection:
        connection.execute("UPDATE card SET seed = id")
    connection.close()


def test_cards_from_before_seeds_draw_their_own_before_they_are_first_sent(
    pair: tuple[Device, Device],
) -> None:
    laptop, desktop = pair
    other = json.loads(TINY)
    other["id"], other["name"] = "other", "Other"
    # Each database numbered its own cards from 1: their ids, and so their seeds, clash.
    opening.install_bundled_decks(laptop.database, START)
    importing.import_deck(desktop.database, parse_deck(TINY, "tiny.json"), START)
    importing.import_deck(desktop.database, parse_deck(json.dumps(other), "o.json"), START)
    for index, device in enumerate(pair):
        carried_over(device)
        study_days(device, device.deck_keys()[0], START, 12, index)
        assert device.healthy(START + timedelta(days=12)) == []
    later = START + timedelta(days=13)
    report = laptop.sync(later)
    assert any("from before cards had seeds" in note for note in report.notes)
    desktop.sync(later)
    laptop.sync(later)
    same_everywhere([laptop, desktop], later)
    assert all(seed > 1_000_000 for seed in seeds(laptop).values())
    # Only the first round draws them: the next has nothing carried over to draw for.
    quiet = desktop.sync(later)
    assert not any("from before cards had seeds" in note for note in quiet.notes)


def test_a_card_moved_and_made_again_in_its_old_deck_keeps_the_seeds_apart(
    pair: tuple[Device, Device],
) -> None:
    laptop, desktop = pair
    importing.import_deck(laptop.database, parse_deck(TINY, "tiny.json"), START)
    laptop.sync(START)
    desktop.sync(START)
    study_days(laptop, "tiny", START, 12, 7)
    later = START + timedelta(days=12)
    deck_changes.new_deck(laptop.database, "Moved", later)
    with laptop.database.reading() as transaction:
        target = next(deck for deck in transaction.browsing.decks() if deck.name == "Moved")
        moved = next(card for card in transaction.cards.of_deck(1) if card.key == "q1")
    laptop.changes().move([moved.id], target)
    # As after a move an older Recall made, which kept no origin: imported again before
    # the next sync, q1 is back in the deck, a new card.
    with laptop.database.transaction() as transaction:
        transaction.sql.run("DELETE FROM card_origin WHERE card_id = ?", (moved.id,))
    importing.import_deck(laptop.database, parse_deck(TINY, "tiny.json"), later)
    for _ in range(2):
        laptop.sync(later)
        desktop.sync(later)
    keys = seeds(laptop)
    # The moved card keeps its seed under its new keys; the card made again takes a key
    # of its own (q1 is deleted everywhere by the move) and a seed of its own.
    assert keys[(target.key, "q1")] == moved.seed
    assert ("tiny", "q1") not in keys
    assert keys[("tiny", "q1-2")] != moved.seed
    same_everywhere([laptop, desktop], later)
