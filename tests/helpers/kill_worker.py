"""A process that answers cards until it is killed, for the crash test in test_durability.py.

Usage: ``python -m tests.helpers.kill_worker DATABASE``. Prints ``ready`` once the database is open,
then ``committed REVIEW_ID`` after each answer's transaction has committed.
"""

from __future__ import annotations

import random
import sqlite3
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

from recall.content.deck_format import ChoiceCard
from recall.core.presets import DEFAULT_PRESET_ID, Preset
from recall.scheduling import Schedulers
from recall.storage import Database
from recall.study.session import StudySession

START = datetime(2026, 1, 1, 8, 0, tzinfo=UTC)


def resume_time(path: Path) -> datetime:
    """Carry on after the last stored review, so each run's clock moves forward."""
    connection = sqlite3.connect(path)
    try:
        (latest,) = connection.execute("SELECT max(reviewed_at) FROM review").fetchone()
    finally:
        connection.close()
    if latest is None:
        return START
    return datetime(1970, 1, 1, tzinfo=UTC) + timedelta(microseconds=latest, minutes=1)


def main() -> None:
    path = Path(sys.argv[1])
    now = resume_time(path)
    rng = random.Random()
    database = Database(path)
    with database.transaction() as store:  # every card of the deck may be new today
        store.options.save_preset(DEFAULT_PRESET_ID, Preset(new_per_day=9999))
    session = StudySession(database, Schedulers(fuzz=True), "bench", rng)
    print("ready", flush=True)
    while True:
        shown = session.next_card(now)
        if shown is None:
            now += timedelta(days=1)
            continue
        assert isinstance(shown.card, ChoiceCard)
        now += timedelta(seconds=rng.randint(2, 30))
        answer = session.answer_choice(shown, {rng.choice(shown.order)}, now)
        recorded = session.record(answer, answer.proposed, now)
        print(f"committed {recorded.review_id}", flush=True)


if __name__ == "__main__":
    main()
