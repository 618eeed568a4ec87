"""Due days chosen by load balancing travel with the answers: every device keeps them."""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime, timedelta

from recall.collection import importing, opening
from recall.content.deck_format import parse_deck
from tests.conftest import DATA
from tests.helpers.sync_devices import Device
from tests.study.test_balancing import study_days

START = datetime(2026, 3, 2, 8, 0, tzinfo=UTC)


def chosen_days(device: Device) -> dict[tuple[str, str, int], int | None]:
    """Each answer's stored chosen day by its card's keys and time, read without Recall's code."""
    connection = sqlite3.connect(device.database.path)
    try:
        rows = connection.execute(
            "SELECT deck.key, card.key, review.reviewed_at, review.set_due FROM review "
            "JOIN card ON card.id = review.card_id JOIN deck ON deck.id = card.deck_id"
        ).fetchall()
    finally:
        connection.close()
    return {(deck, card, at): due for deck, card, at, due in rows}


def test_a_second_device_gets_the_due_days_the_first_chose(pair: tuple[Device, Device]) -> None:
    laptop, desktop = pair
    opening.install_bundled_decks(laptop.database, START)
    study_days(laptop.database, START, 30)
    # The desktop has a deck of its own with other loads: choosing again there would give
    # other days, but its replay reads the days the laptop stored.
    tiny = (DATA / "decks" / "tiny.json").read_text()
    importing.import_deck(desktop.database, parse_deck(tiny, "tiny.json"), START)
    end = START + timedelta(days=30)
    laptop.sync(end)
    desktop.sync(end + timedelta(minutes=1))
    laptop.sync(end + timedelta(minutes=2))
    sent = chosen_days(laptop)
    assert sum(due is not None for due in sent.values()) >= 8
    assert chosen_days(desktop) == sent
    assert desktop.schedules_by_key() == laptop.schedules_by_key()
    assert desktop.healthy(end) == []
    assert laptop.healthy(end) == []
