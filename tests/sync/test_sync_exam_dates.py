"""A deck's exam day travels with the deck: set on one computer, cleared on another."""

from __future__ import annotations

import json
import random
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

from recall.collection import importing
from recall.content.deck_format import parse_deck
from recall.core.memory import Rating
from recall.options import exam_dates
from recall.study.session import StudySession
from tests.conftest import DATA
from tests.helpers.sync_devices import Device, converged

TINY = (DATA / "decks" / "tiny.json").read_text()
START = datetime(2026, 11, 2, 8, 0, tzinfo=UTC)
EXAM = date(2026, 11, 7)


def test_an_exam_day_set_on_one_computer_is_set_and_cleared_on_the_other(
    pair: tuple[Device, Device], shared: Path, tmp_path: Path
) -> None:
    laptop, desktop = pair
    importing.import_deck(laptop.database, parse_deck(TINY, "tiny.json"), START)
    laptop.sync(START)
    desktop.sync(START)
    assert exam_dates.exam_date(desktop.database, "tiny") is None

    exam_dates.set_exam_date(laptop.database, "tiny", EXAM, START)
    sent = laptop.sync(START + timedelta(minutes=1))
    assert sent.sent["deck"] == 1
    events = [
        json.loads(line)
        for path in (shared / "Recall").rglob("*.jsonl")
        for line in path.read_text().splitlines()
    ]
    assert [event["fields"] for event in events if "exam" in event.get("fields", {})] == [
        {"exam": "2026-11-07"}  # only the field that changed, as for a rename
    ]
    desktop.sync(START + timedelta(minutes=2))
    assert exam_dates.exam_date(desktop.database, "tiny") == EXAM

    # Studied on the desktop with the exam ahead: the capped due dates replay alike.
    session = StudySession(desktop.database, desktop.schedulers, "tiny", rng=random.Random(2))
    moment = START + timedelta(days=1)
    while (shown := session.next_card(moment)) is not None:
        session.record(session.reveal(shown, moment), Rating.EASY, moment)  # days past the exam
    exam_dates.set_exam_date(desktop.database, "tiny", None, START + timedelta(days=3))
    later = START + timedelta(days=3, minutes=5)
    desktop.sync(later)
    laptop.sync(later)
    assert exam_dates.exam_date(laptop.database, "tiny") is None
    with laptop.database.reading() as transaction:
        capped = [row.set_due for row in transaction.history.all() if row.set_due is not None]
    assert capped  # answers whose due date the exam moved arrived with it
    assert all(due.date() < EXAM for due in capped)
    converged([laptop, desktop], tmp_path, later)
