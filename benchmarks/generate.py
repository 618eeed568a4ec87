"""Deterministic large collections: a JSON deck, and a Recall database with FSRS-simulated history.

A collection of N cards is one deck of multiple-choice cards. About 8% were never studied;
the others were introduced one after another over two years before the anchor day and
reviewed whenever due (a few hours late at most) until the evening before it, each review
scheduled by Recall's own FSRS scheduler, so a card's stored schedule is exactly the
replay of its history and ``recall check`` passes. The ratings come from one seeded
generator, so the same anchor day gives the same collection. Reviews and schedules are
written in bulk with ``executemany`` against Recall's schema; the reviews are stored in the
order they were answered (each card's are simulated at once, then sorted by time), as in a
collection studied day by day, so the table's rows are in time order, not card by card.
"""

from __future__ import annotations

import json
import random
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

from recall.collection import importing
from recall.content.deck_format import parse_deck
from recall.core.memory import NEW_CARD, CardState, MemoryState, Rating
from recall.scheduling import Scheduler
from recall.storage import Database

NEVER_STUDIED = 0.08  # share of the cards never reviewed
HISTORY_DAYS = 2 * 365  # the first card was introduced this long before the anchor
LAST_SESSION = timedelta(hours=10)  # the learner last studied the evening before
OPTIONS = 4
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def deck_key(cards: int) -> str:
    """The deck file id of the generated deck of ``cards`` cards."""
    return f"bench-{cards}"


def deck_name(cards: int) -> str:
    """The generated deck's name."""
    return f"Benchmark deck of {cards:,} cards"


def option_text(card: int, option: int) -> str:
    """The text of one option; option 0 is the right one."""
    return f"Option {option} of question {card}"


def card_question(card: int, rng: random.Random) -> str:
    """A question of a realistic length."""
    return f"Question {card}: which of these options holds the value {rng.random():.6f}?"


def deck_json(cards: int) -> bytes:
    """A Recall JSON deck of ``cards`` choice cards (the same text every time)."""
    rng = random.Random(cards)
    raw = {
        "format": "recall-deck",
        "version": 1,
        "id": deck_key(cards),
        "name": deck_name(cards),
        "description": "Generated for the benchmarks.",
        "cards": [
            {
                "id": f"c{index}",
                "type": "choice",
                "question": card_question(index, rng),
                "choices": [
                    {"text": option_text(index, option), "correct": option == 0}
                    for option in range(OPTIONS)
                ],
                "explanation": "An explanation of two sentences. It teaches the idea.",
                "source": "A source",
            }
            for index in range(cards)
        ],
    }
    return json.dumps(raw).encode()


@dataclass(frozen=True, slots=True)
class SimulatedReview:
    """One simulated answer, as Recall stores it."""

    card_id: int
    reviewed_at: datetime
    rating: Rating
    duration_ms: int
    state_before: CardState


def anchor_day(now: datetime) -> datetime:
    """The anchor of collections generated at ``now``: midnight UTC of that day."""
    return now.astimezone(UTC).replace(hour=0, minute=0, second=0, microsecond=0)


def _rating(state: CardState, rng: random.Random) -> Rating:
    draw = rng.random()
    if state is not CardState.REVIEW:
        return Rating.AGAIN if draw < 0.15 else Rating.GOOD
    if draw < 0.06:
        return Rating.AGAIN
    if draw < 0.16:
        return Rating.HARD
    return Rating.GOOD if draw < 0.92 else Rating.EASY


def _whole_ms(moment: datetime) -> datetime:
    return moment.replace(microsecond=moment.microsecond // 1000 * 1000)


def simulate_card(
    scheduler: Scheduler, card_id: int, start: datetime, stop: datetime, rng: random.Random
) -> tuple[list[SimulatedReview], MemoryState]:
    """Review one card from ``start`` whenever it is due, until ``stop``.

    The card's id seeds the fuzz: ``write_recall_database`` gives each card its id as seed.
    """
    memory = NEW_CARD
    moment = _whole_ms(start)
    reviews: list[SimulatedReview] = []
    while moment < stop:
        rating = _rating(memory.state, rng)
        reviews.append(
            SimulatedReview(card_id, moment, rating, rng.randint(2_000, 20_000), memory.state)
        )
        memory = scheduler.review(card_id, memory, rating, moment)
        assert memory.due is not None
        if memory.state is CardState.REVIEW:
            late = timedelta(seconds=rng.uniform(0, 6 * 3600))
        else:
            late = timedelta(seconds=rng.uniform(0, 300))
        moment = _whole_ms(memory.due + late)
    return reviews, memory


def simulate(
    card_ids: list[int], anchor: datetime, seed: int
) -> Iterator[tuple[int, list[SimulatedReview], MemoryState]]:
    """Each card's simulated history and resulting schedule, in deck order."""
    scheduler = Scheduler()
    rng = random.Random(seed)
    studied = round(len(card_ids) * (1 - NEVER_STUDIED))
    stop = anchor - LAST_SESSION
    first = anchor - timedelta(days=HISTORY_DAYS)
    for position, card_id in enumerate(card_ids[:studied]):
        start = first + (stop - first) * (position / max(studied, 1))
        start += timedelta(seconds=rng.uniform(0, 3600))
        reviews, memory = simulate_card(scheduler, card_id, start, stop, rng)
        yield card_id, reviews, memory


def _micros(moment: datetime | None) -> int | None:
    return None if moment is None else (moment - _EPOCH) // timedelta(microseconds=1)


def write_recall_database(path: Path, deck_file: Path, cards: int, anchor: datetime) -> int:
    """Import the deck, then write its simulated history in bulk; returns the review count."""
    database = Database(path)
    try:
        # Parsed from its bytes: the million-card deck (about 460 MB) is past the size a
        # deck file opened by a user may have, which ``load_deck`` holds to.
        parsed = parse_deck(deck_file.read_bytes(), str(deck_file))
        importing.import_deck(database, parsed, anchor - timedelta(days=5 * 365))
        with database.transaction() as tx:
            deck = tx.decks.by_key(deck_key(cards))
            assert deck is not None
            ids = [row.id for row in tx.cards.of_deck(deck.id)]
    finally:
        database.close()
    connection = sqlite3.connect(path, isolation_level=None)
    reviews = 0
    try:
        connection.execute("PRAGMA journal_mode = WAL")
        connection.execute("BEGIN IMMEDIATE")
        # Each card's seed is its id, as in a collection from before seeds were random, so
        # the simulated history (its fuzz seeded by the id) is the same on every run.
        connection.execute("UPDATE card SET seed = id")
        # Simulated card by card, stored in the order they were answered: sorted by SQLite
        # from a temporary table, so a million cards' reviews never sit in memory.
        connection.execute(f"CREATE TEMP TABLE simulated ({_REVIEW_COLUMNS})")
        memories = []
        batch: list[tuple[object, ...]] = []
        for position, (card_id, history, memory) in enumerate(simulate(ids, anchor, cards)):
            for review in history:
                right = review.rating is not Rating.AGAIN
                picked = option_text(position, 0 if right else 1 + review.duration_ms % 3)
                batch.append(
                    (
                        review.card_id,
                        _micros(review.reviewed_at),
                        int(review.rating),
                        review.duration_ms,
                        int(review.state_before),
                        json.dumps([picked]),
                        right,
                    )
                )
            memories.append(
                (
                    int(memory.state),
                    memory.step,
                    memory.stability,
                    memory.difficulty,
                    _micros(memory.due),
                    _micros(memory.last_review),
                    card_id,
                )
            )
            if len(batch) > 50_000:
                reviews += _insert_reviews(connection, batch)
                batch = []
        reviews += _insert_reviews(connection, batch)
        connection.execute(
            f"INSERT INTO review ({_REVIEW_COLUMNS}) SELECT {_REVIEW_COLUMNS} FROM "
            "temp.simulated ORDER BY reviewed_at, card_id"
        )
        connection.execute("DROP TABLE temp.simulated")
        connection.executemany(
            "UPDATE card_memory SET state = ?, step = ?, stability = ?, difficulty = ?, "
            "due = ?, last_review = ? WHERE card_id = ?",
            memories,
        )
        connection.execute("COMMIT")
        connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        connection.close()
    return reviews


_REVIEW_COLUMNS = "card_id, reviewed_at, rating, duration_ms, state_before, picked, correct"


def _insert_reviews(connection: sqlite3.Connection, rows: list[tuple[object, ...]]) -> int:
    connection.executemany(
        f"INSERT INTO temp.simulated ({_REVIEW_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?)", rows
    )
    return len(rows)
