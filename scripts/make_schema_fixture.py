"""Write tests/data/schema-N.sqlite3: a small database made by this Recall, for upgrade tests.

Run once per schema version (``.venv/bin/python scripts/make_schema_fixture.py``) and commit
the result; ``tests/storage/test_migrations.py`` then checks that every later Recall opens it with
every review intact. Its review log is written beside it as ``schema-N.reviews.csv``.
"""

from __future__ import annotations

import json
import random
import tempfile
from datetime import UTC, datetime, timedelta
from pathlib import Path

from recall.changes.cards import Changes
from recall.collection import browse, importing, opening, review_log
from recall.content.deck_format import ChoiceCard, parse_deck
from recall.core.memory import Rating
from recall.core.preferences import Preferences
from recall.core.presets import Preset
from recall.scheduling import Scheduler, Schedulers
from recall.storage import SCHEMA_VERSION, Database, copy_database
from recall.study.session import StudySession

DATA = Path(__file__).resolve().parent.parent / "tests" / "data"


def main() -> None:
    target = DATA / f"schema-{SCHEMA_VERSION}.sqlite3"
    now = datetime(2026, 3, 2, 8, 0, tzinfo=UTC)
    rng = random.Random(SCHEMA_VERSION)
    with tempfile.TemporaryDirectory() as folder:
        database = Database(Path(folder) / "recall.sqlite3")
        opening.install_bundled_decks(database, now)
        tiny = json.loads((DATA / "decks" / "tiny.json").read_text())
        importing.import_deck(database, parse_deck(json.dumps(tiny), "tiny.json"), now)
        with database.transaction() as store:  # schema 4 on: a preset and preferences
            tiny_deck = store.decks.by_key("tiny")
            assert tiny_deck is not None
            preset = Preset(name="Small steps", new_per_day=5, desired_retention=0.85)
            store.options.set_deck_preset([tiny_deck.id], store.options.save_preset(None, preset))
            store.options.set_preferences(Preferences(theme="dark", day_rollover_hour=3))
        for deck in ("activation-recompute", "tiny"):
            session = StudySession(database, Schedulers(fuzz=True), deck, rng)
            for day in range(4):
                clock = now + timedelta(days=day)
                while (shown := session.next_card(clock)) is not None:
                    clock += timedelta(seconds=rng.randint(3, 40))
                    if isinstance(shown.card, ChoiceCard):
                        picked = {shown.order[rng.randrange(len(shown.order))]}
                        answer = session.answer_choice(shown, picked, clock)
                        session.record(answer, answer.proposed, clock)
                    else:
                        answer = session.reveal(shown, clock)
                        session.record(answer, Rating(rng.randint(1, 4)), clock)
        # What the browser changes by hand: suspended, buried, flagged and tagged cards, a
        # forget and a due date set by hand recorded in the history, and a card moved.
        end = now + timedelta(days=4)
        preferences = Preferences(theme="dark", day_rollover_hour=3)
        finder = browse.Finder(database, Scheduler(), preferences)
        cards = finder.find("", end).card_ids
        changes = Changes(database, Schedulers(fuzz=True), preferences, rng=rng)
        changes.suspend(cards[:2])
        changes.bury(cards[2:3], end)
        changes.flag(cards[3:5], 2)
        changes.tag(cards[5:7], end, add=["hand-tagged"])
        changes.forget(cards[7:8], end)
        changes.set_due(cards[8:10], "2-5", end)
        bundled = finder.find("deck:activation-recompute", end).card_ids
        changes.move(bundled[-1:], tiny_deck)  # schema 23 on: where it came from is kept
        with (DATA / f"schema-{SCHEMA_VERSION}.reviews.csv").open("w", newline="") as out:
            review_log.export_reviews(database, out)
        copy_database(database.path, target)
        database.close()
    print(target)


if __name__ == "__main__":
    main()
