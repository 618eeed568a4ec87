"""The peer: Anki's own Python package, on a collection equivalent to a generated Recall one.

The Anki collection gets one Basic note per Recall card (the question and its options on
the front), the same review history in its revlog, and each card's scheduling state and
FSRS memory (stability, difficulty, last review) copied from Recall's, with FSRS switched
on and the deck options set to Recall's: 20 new cards a day, learning steps 1 and 10
minutes, relearning step 10 minutes, desired retention 0.9, no cap on reviews a day.
Notes go in through Anki's API; the million revlog rows and the card states are written
with sqlite3 while the collection is closed, because Anki's Python database bridge takes
about 13 seconds per 100,000 rows.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path

from anki.collection import AddNoteRequest, Collection  # first: anki.cards needs it loaded

# isort: split
from anki.cards import Card
from anki.dbproxy import DBProxy
from anki.decks import DeckId
from anki.scheduler.v3 import CardAnswer, QueuedCards, Scheduler

from benchmarks.generate import deck_name

DECAY = 0.1542  # FSRS-6's default decay, which Recall's scheduler uses too
_DAY = 86_400
_NO_REVIEW_CAP = 9_999


def open_collection(path: Path, cards: int) -> Collection:
    """Open a collection with the generated deck of ``cards`` cards selected."""
    collection = Collection(str(path))
    collection.decks.select(_deck_id(collection, cards))
    return collection


def _deck_id(collection: Collection, cards: int) -> DeckId:
    deck_id = collection.decks.id(deck_name(cards))
    assert deck_id is not None
    return deck_id


def database(collection: Collection) -> DBProxy:
    """The open collection's database connection."""
    assert collection.db is not None, "the collection is closed"
    return collection.db


def scheduler(collection: Collection) -> Scheduler:
    """The collection's scheduler (the v3 one, which FSRS needs)."""
    sched = collection.sched
    assert isinstance(sched, Scheduler)
    return sched


def synchronous_setting(collection: Collection) -> str:
    """The ``synchronous`` setting of Anki's connection, as SQLite names it."""
    value = int(database(collection).scalar("PRAGMA synchronous"))
    return {0: "OFF", 1: "NORMAL", 2: "FULL", 3: "EXTRA"}[value]


def next_card(collection: Collection) -> QueuedCards:
    """What Anki's reviewer asks for before showing a card: the card, its next states, counts."""
    return scheduler(collection).get_queued_cards()


def answer(collection: Collection, queued: QueuedCards, rating: CardAnswer.Rating.V) -> None:
    """Answer the first queued card the way Anki's reviewer does."""
    top = queued.cards[0]
    card = Card(collection, backend_card=top.card)
    card.start_timer()
    sched = scheduler(collection)
    sched.answer_card(sched.build_answer(card=card, states=top.states, rating=rating))


def build_collection(path: Path, recall_database: Path, cards: int) -> None:
    """Write the Anki equivalent of a generated Recall database to ``path``."""
    source = sqlite3.connect(f"file:{recall_database}?mode=ro", uri=True)
    try:
        contents = source.execute(
            "SELECT card.id, card.content FROM card JOIN deck ON deck.id = card.deck_id "
            "WHERE deck.key = ? ORDER BY card.position",
            (f"bench-{cards}",),
        ).fetchall()
        collection = Collection(str(path))
        try:
            deck_id = _configure(collection, cards)
            basic = collection.models.by_name("Basic")
            assert basic is not None
            requests = []
            for _card_id, content in contents:
                note = collection.new_note(basic)
                front, back = _fields(json.loads(content))
                note["Front"] = front
                note["Back"] = back
                requests.append(AddNoteRequest(note, deck_id))
            collection.add_notes(requests)
            anki_ids = database(collection).list("SELECT id FROM cards ORDER BY nid")
            creation = int(collection.crt) - 3650 * _DAY  # every due day stays positive
            collection.crt = creation
        finally:
            collection.close()
        ids = {card_id: anki_id for (card_id, _), anki_id in zip(contents, anki_ids, strict=True)}
        target = sqlite3.connect(path, isolation_level=None)
        try:
            target.execute("BEGIN")
            target.executemany(
                "INSERT INTO revlog (id, cid, usn, ease, ivl, lastIvl, factor, time, type) "
                "VALUES (?, ?, 0, ?, ?, ?, ?, ?, ?)",
                _revlog(source, ids),
            )
            target.executemany(
                "UPDATE cards SET type = ?, queue = ?, due = ?, ivl = ?, factor = ?, reps = ?, "
                "lapses = ?, left = ?, data = ? WHERE id = ?",
                _card_states(source, ids, creation),
            )
            target.execute("COMMIT")
        finally:
            target.close()
    finally:
        source.close()


def _configure(collection: Collection, cards: int) -> DeckId:
    collection.set_config("fsrs", True)
    deck_id = _deck_id(collection, cards)
    config = collection.decks.config_dict_for_deck_id(deck_id)
    config["new"]["perDay"] = 20
    config["new"]["delays"] = [1.0, 10.0]
    config["lapse"]["delays"] = [10.0]
    config["rev"]["perDay"] = _NO_REVIEW_CAP
    config["rev"]["maxIvl"] = 36_500
    config["desiredRetention"] = 0.9
    collection.decks.update_config(config)
    collection.decks.select(deck_id)
    return deck_id


def _fields(card: dict[str, object]) -> tuple[str, str]:
    choices = card["choices"]
    assert isinstance(choices, list)
    options = "".join(f"<li>{choice['text']}</li>" for choice in choices)
    right = next(choice["text"] for choice in choices if choice.get("correct"))
    return f"{card['question']}<ol>{options}</ol>", f"{right}<br>{card['explanation']}"


def _seconds(micros: int) -> int:
    return micros // 1_000_000


def _revlog(source: sqlite3.Connection, ids: dict[int, int]) -> Iterator[tuple[int, ...]]:
    """Revlog rows: unique millisecond ids, Anki's review kinds, intervals to the next review."""
    used: set[int] = set()
    rows = source.execute(
        "SELECT review.card_id, review.reviewed_at, review.rating, review.duration_ms, "
        "review.state_before, card_memory.due FROM review "
        "JOIN card_memory ON card_memory.card_id = review.card_id "
        "ORDER BY review.card_id, review.id"
    )
    previous: tuple[int, ...] | None = None
    last_interval = 0
    for row in rows:
        if previous is not None:
            interval = _interval(previous[1], row[1] if row[0] == previous[0] else previous[5])
            last_interval = interval if row[0] == previous[0] else 0
            yield _revlog_row(previous, ids, used, interval, last_interval)
        previous = row
    if previous is not None:
        yield _revlog_row(previous, ids, used, _interval(previous[1], previous[5]), 0)


def _interval(start: int, end: int | None) -> int:
    """Anki's revlog interval: days when a day or more, else negative seconds."""
    if end is None:
        return 0
    seconds = _seconds(end - start)
    return seconds // _DAY if seconds >= _DAY else -seconds


def _revlog_row(
    row: tuple[int, ...], ids: dict[int, int], used: set[int], interval: int, last: int
) -> tuple[int, ...]:
    card_id, reviewed_at, rating, duration_ms, state_before, _due = row
    stamp = reviewed_at // 1000
    while stamp in used:
        stamp += 1
    used.add(stamp)
    kind = {0: 0, 1: 0, 2: 1, 3: 2}[state_before]
    return (stamp, ids[card_id], rating, interval, last, 2500, min(duration_ms, 60_000), kind)


def _card_states(
    source: sqlite3.Connection, ids: dict[int, int], creation: int
) -> Iterator[tuple[object, ...]]:
    counts = {
        card_id: (reps, lapses)
        for card_id, reps, lapses in source.execute(
            "SELECT card_id, count(*), sum(rating = 1 AND state_before = 2) FROM review "
            "GROUP BY card_id"
        )
    }
    memories = source.execute(
        "SELECT card_id, state, step, stability, difficulty, due, last_review FROM card_memory "
        "WHERE state != 0"
    )
    for card_id, state, step, stability, difficulty, due, last_review in memories:
        reps, lapses = counts[card_id]
        data = json.dumps(
            {
                "s": round(stability, 4),
                "d": round(difficulty, 3),
                "dr": 0.9,
                "decay": DECAY,
                "lrt": _seconds(last_review),
            },
            separators=(",", ":"),
        )
        if state == 2:
            interval = max(1, round((due - last_review) / 1_000_000 / _DAY))
            due_day = (_seconds(due) - creation) // _DAY
            yield (2, 2, due_day, interval, 2500, reps, lapses, 0, data, ids[card_id])
        else:
            steps = 2 if state == 1 else 1
            left = steps - (step or 0)
            yield (state, 1, _seconds(due), 0, 2500, reps, lapses, left, data, ids[card_id])
