"""A generated collection for search tests: nested decks, tags, flags, states and history.

Every card's schedule is the replay of its generated history, as Recall keeps it. Fields
that no use case sets to the past (when a card was added or edited) and the cards' seeds
(drawn at random by an import) are set through SQLite directly, so each run is the same.
"""

from __future__ import annotations

import json
import random
import sqlite3
from dataclasses import dataclass
from datetime import datetime, timedelta

from recall.collection import importing
from recall.content.deck_format import parse_deck
from recall.core.memory import NEW_CARD, Rating
from recall.scheduling import Scheduler
from recall.storage import Database
from recall.storage.times import to_micros

WORDS = ("apple", "river", "stone", "cloud", "amber", "piano", "tiger", "lemon", "mango", "salt")
TAGS = ("verb", "noun", "verb::irregular", "verb::regular", "geo", "leech", "Mixed")
DECKS = (
    ("spanish", "Spanish"),
    ("spanish-verbs", "Spanish::Verbs"),
    ("spanish-verbs-irregular", "Spanish::Verbs::Irregular"),
    ("math", "Math"),
    ("math-algebra", "Math::Algebra"),
    ("mathematics", "Mathematics"),
)


@dataclass(frozen=True)
class Generated:
    """What was generated: the database and its card count."""

    database: Database
    cards: int


def _sentence(rng: random.Random, words: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(words))


def _card(rng: random.Random, index: int) -> dict[str, object]:
    tags = sorted(set(rng.sample(TAGS, rng.randint(0, 3))))
    if rng.random() < 0.6:
        choices: list[dict[str, object]] = [
            {"text": f"{_sentence(rng, 2)} {index}-{n}"} for n in range(rng.randint(2, 5))
        ]
        choices[0]["correct"] = True
        if rng.random() < 0.5:
            choices[-1]["why"] = _sentence(rng, 3)
        return {
            "id": f"c{index}",
            "type": "choice",
            "question": _sentence(rng, rng.randint(1, 5)),
            "choices": choices,
            "explanation": _sentence(rng, 2) if rng.random() < 0.5 else "",
            "tags": tags,
        }
    return {
        "id": f"c{index}",
        "type": "basic",
        "front": _sentence(rng, rng.randint(1, 4)),
        "back": _sentence(rng, 2),
        "tags": tags,
    }


def generate(database: Database, scheduler: Scheduler, now: datetime, seed: int = 7) -> Generated:
    """Fill ``database`` with about 240 cards over six decks, some studied, flagged, hidden."""
    rng = random.Random(seed)
    index = 0
    for key, name in DECKS:
        cards = []
        for _ in range(40):
            cards.append(_card(rng, index))
            index += 1
        deck = {"format": "recall-deck", "version": 1, "id": key, "name": name, "cards": cards}
        importing.import_deck(database, parse_deck(json.dumps(deck), key), now)
    connection = sqlite3.connect(database.path)
    try:
        # Seeds drawn from a generator of their own (an import draws them at random), so
        # the fuzzed schedules, and what every search finds, are the same each run.
        seeds = random.Random(seed + 1)
        stored = [
            (card_id, seeds.randrange(1, 1 << 62))
            for (card_id,) in connection.execute("SELECT id FROM card ORDER BY id")
        ]
        connection.executemany(
            "UPDATE card SET seed = ? WHERE id = ?", [(s, card_id) for card_id, s in stored]
        )
        for card_id, card_seed in stored:
            added = now - timedelta(days=rng.randint(0, 60), hours=rng.randint(0, 23))
            edited = added + timedelta(days=rng.randint(0, 3))
            connection.execute(
                "UPDATE card SET added_at = ?, updated_at = ?, flag = ? WHERE id = ?",
                (
                    to_micros(added),
                    to_micros(min(edited, now)),
                    rng.choice((0, 0, 1, 3, 7)),
                    card_id,
                ),
            )
            connection.execute(
                "UPDATE card_memory SET suspended = ?, buried_until = ? WHERE card_id = ?",
                (
                    rng.random() < 0.15,
                    rng.choice(
                        (
                            None,
                            None,
                            None,
                            to_micros(now + timedelta(hours=5)),
                            to_micros(now - timedelta(hours=5)),
                        )
                    ),
                    card_id,
                ),
            )
            if rng.random() < 0.3:
                continue
            _history(connection, scheduler, card_id, card_seed, now, rng)
        connection.commit()
    finally:
        connection.close()
    return Generated(database, len(stored))


def _history(
    connection: sqlite3.Connection,
    scheduler: Scheduler,
    card_id: int,
    seed: int,
    now: datetime,
    rng: random.Random,
) -> None:
    memory = NEW_CARD
    moment = now - timedelta(days=rng.randint(1, 50), minutes=rng.randint(0, 600))
    while moment < now:
        rating = Rating(rng.choice((1, 1, 2, 3, 3, 3, 4)))
        after = scheduler.review(seed, memory, rating, moment)
        connection.execute(
            "INSERT INTO review (card_id, reviewed_at, rating, duration_ms, state_before, "
            "picked, correct, kind) VALUES (?, ?, ?, ?, ?, NULL, ?, 0)",
            (card_id, to_micros(moment), int(rating), 4000, int(memory.state), rating > 1),
        )
        memory = after
        assert after.due is not None
        moment = max(after.due, moment + timedelta(minutes=1)) + timedelta(hours=rng.randint(0, 30))
    connection.execute(
        "UPDATE card_memory SET state = ?, step = ?, stability = ?, difficulty = ?, due = ?, "
        "last_review = ? WHERE card_id = ?",
        (
            int(memory.state),
            memory.step,
            memory.stability,
            memory.difficulty,
            to_micros(memory.due),
            to_micros(memory.last_review),
            card_id,
        ),
    )
