"""Answer latency: from a rating to the next card ready, the write committed.

Three answerers take turns, one answer each per round: Recall, Anki on its equivalent
collection, and the floor (py-fsrs reviews the card, then sqlite3 inserts a review and
updates the card's state in one committed transaction, with the same pragmas). Recall runs
at the ``synchronous`` setting Anki's connection uses, so both pay the same durability.
"""

from __future__ import annotations

import random
import shutil
import sqlite3
import statistics
import time
from datetime import UTC, datetime
from pathlib import Path

import fsrs
from anki.collection import Collection
from anki.scheduler.v3 import CardAnswer

from benchmarks import anki_peer
from benchmarks.common import Figure
from recall.content.deck_format import ChoiceCard
from recall.scheduling import Schedulers
from recall.storage import Database
from recall.storage.database import Synchronous
from recall.study.session import StudySession
from recall.study.values import StudyCard


def _now() -> datetime:
    return datetime.now(UTC)


class RecallAnswerer:
    """Recall's review screen without its widgets: record the rating, fetch the next card.

    ``record`` commits the review and the new schedule in one transaction; ``next_card``
    and ``counts`` are what the review screen asks before it shows the next card. Picking
    a choice (``answer_choice``, which grades and previews the four intervals) happens
    before the rating and is not timed, as Anki's showing of the answer is not.
    """

    def __init__(self, path: Path, deck_key: str, synchronous: Synchronous) -> None:
        self.database = Database(path, synchronous=synchronous)
        self.session = StudySession(self.database, Schedulers(), deck_key, random.Random(1))
        self.shown: StudyCard | None = self.session.next_card(_now())
        self.answered = 0

    def step(self) -> float | None:
        """One timed answer in milliseconds; None once nothing is left today."""
        shown = self.shown
        if shown is None:
            return None
        card = shown.card
        assert isinstance(card, ChoiceCard)
        right = self.answered % 10 != 0
        wrong = next(index for index in range(len(card.choices)) if not card.choices[index].correct)
        picked = set(card.correct_indexes) if right else {wrong}
        now = _now()
        answer = self.session.answer_choice(shown, picked, now)
        start = time.perf_counter()
        self.session.record(answer, answer.proposed, now)
        self.shown = self.session.next_card(now)
        if self.shown is not None:
            self.session.counts(now)
        elapsed = (time.perf_counter() - start) * 1000
        self.answered += 1
        return elapsed

    def close(self) -> None:
        self.database.close()


class AnkiAnswerer:
    """Anki's reviewer without its web view: answer the card, fetch the next with its states."""

    def __init__(self, collection: Collection) -> None:
        self.collection = collection
        self.queued = anki_peer.next_card(collection)
        self.answered = 0

    def step(self) -> float | None:
        if not self.queued.cards:
            return None
        rating = CardAnswer.GOOD if self.answered % 10 != 0 else CardAnswer.AGAIN
        start = time.perf_counter()
        anki_peer.answer(self.collection, self.queued, rating)
        self.queued = anki_peer.next_card(self.collection)
        elapsed = (time.perf_counter() - start) * 1000
        self.answered += 1
        return elapsed


class FloorAnswerer:
    """The least any Python app can do: py-fsrs, one insert, one update, one commit."""

    def __init__(self, path: Path, synchronous: str) -> None:
        self.connection = sqlite3.connect(path, isolation_level=None)
        self.connection.execute("PRAGMA journal_mode = WAL")
        self.connection.execute(f"PRAGMA synchronous = {synchronous}")
        self.connection.execute(
            "CREATE TABLE review (id INTEGER PRIMARY KEY, card_id INTEGER, reviewed_at INTEGER, "
            "rating INTEGER, duration_ms INTEGER, state_before INTEGER)"
        )
        self.connection.execute(
            "CREATE TABLE card_memory (card_id INTEGER PRIMARY KEY, state INTEGER, step INTEGER, "
            "stability REAL, difficulty REAL, due INTEGER, last_review INTEGER)"
        )
        self.connection.execute("INSERT INTO card_memory (card_id, state) VALUES (1, 0)")
        self.scheduler = fsrs.Scheduler(enable_fuzzing=False)
        self.card = fsrs.Card(card_id=1)

    def step(self) -> float | None:
        start = time.perf_counter()
        now = _now()
        before = int(self.card.state)
        self.card, _log = self.scheduler.review_card(self.card, fsrs.Rating.Good, now)
        micros = int(now.timestamp() * 1_000_000)
        self.connection.execute("BEGIN IMMEDIATE")
        self.connection.execute(
            "INSERT INTO review (card_id, reviewed_at, rating, duration_ms, state_before) "
            "VALUES (1, ?, 3, 5000, ?)",
            (micros, before),
        )
        self.connection.execute(
            "UPDATE card_memory SET state = ?, step = ?, stability = ?, difficulty = ?, due = ?, "
            "last_review = ? WHERE card_id = 1",
            (
                int(self.card.state),
                self.card.step,
                self.card.stability,
                self.card.difficulty,
                int(self.card.due.timestamp() * 1_000_000),
                micros,
            ),
        )
        self.connection.execute("COMMIT")
        return (time.perf_counter() - start) * 1000

    def close(self) -> None:
        self.connection.close()


def measure_answers(
    recall_database: Path,
    recall_full_database: Path,
    anki_collection: Path,
    cards: int,
    deck_key: str,
    work: Path,
    rounds: int,
) -> list[Figure]:
    """Answer up to ``rounds`` cards with each answerer in turns; the figures for the docs."""
    # Counted on a copy made before the timed answers, which may leave nothing due today.
    counted_copy = work / "recall-counted.sqlite3"
    shutil.copyfile(recall_database, counted_copy)
    collection = anki_peer.open_collection(anki_collection, cards)
    synchronous = anki_peer.synchronous_setting(collection)
    assert synchronous in ("FULL", "NORMAL"), f"Anki runs with synchronous={synchronous}"
    same = RecallAnswerer(recall_database, deck_key, synchronous)  # type: ignore[arg-type]
    # The other setting on a copy: FULL is Recall's default, NORMAL shows what FULL costs.
    other_setting: Synchronous = "NORMAL" if synchronous == "FULL" else "FULL"
    other = RecallAnswerer(recall_full_database, deck_key, other_setting)
    floor = FloorAnswerer(work / "floor.sqlite3", synchronous)
    anki = AnkiAnswerer(collection)
    ours: list[float] = []
    ours_other: list[float] = []
    theirs: list[float] = []
    floors: list[float] = []
    try:
        for index in range(rounds):
            steps = [same.step, anki.step, floor.step, other.step]
            turn = steps[index % len(steps) :] + steps[: index % len(steps)]
            results = {step: step() for step in turn}
            if any(value is None for value in results.values()):
                break
            ours.append(results[same.step] or 0.0)
            theirs.append(results[anki.step] or 0.0)
            floors.append(results[floor.step] or 0.0)
            ours_other.append(results[other.step] or 0.0)
    finally:
        same.close()
        floor.close()
        other.close()
        collection.close()
    full, normal = (ours, ours_other) if synchronous == "FULL" else (ours_other, ours)
    size = f"{cards:,}-card collection"
    both = f"both with synchronous={synchronous}, as Anki's collection is opened"
    answered = (
        "from the rating to the next card ready: the review and the new schedule committed, "
        "then the next card and today's counts fetched"
    )
    figures = [
        Figure(
            title=f"Answer a card, {size}",
            measures=f"{answered} ({both}); {len(ours)} answers, 1 in 10 wrong",
            recall=ours,
            baseline_name="Anki: build_answer, answer_card, get_queued_cards",
            baseline=theirs,
            tail=True,
            goal="ratio <= 1.0",
        ),
        Figure(
            title=f"Answer a card, {size}, Recall's default (synchronous=FULL)",
            measures=f"the same answers against the floor, at synchronous={synchronous}",
            recall=full,
            baseline_name="floor: py-fsrs review_card, one insert, one update, commit",
            baseline=floors,
            tail=True,
        ),
        Figure(
            title=f"What durability costs an answer, {size}",
            measures=(
                "the same answers with synchronous=FULL (a committed review survives a power "
                "cut; Recall's default) against synchronous=NORMAL (it survives a crash of "
                "Recall only)"
            ),
            recall=full,
            baseline_name="Recall with synchronous=NORMAL",
            baseline=normal,
            tail=True,
        ),
    ]
    written = _what_an_answer_writes(counted_copy, deck_key, synchronous)
    counted = (
        f"Per answer, counted over {_COUNTED_ANSWERS} untimed answers on a copy of the "
        "collection as the timed ones found it (medians; SQLite's trace counts each trigger "
        "a statement sets off once more): "
        + "; ".join(
            f"{kind} ({answers}): {statements:g} SQL statements run by Recall, "
            f"{pages:g} WAL pages written by its commits"
            for kind, (answers, statements, pages) in written.items()
        )
    )
    figures[0] = _with_goal(
        Figure(**{**figures[0].__dict__, "notes": [*figures[0].notes, counted]}),
        figures[0].ratio <= 1.0,
    )
    return figures


_COUNTED_ANSWERS = 20


def _what_an_answer_writes(
    path: Path, deck_key: str, synchronous: str
) -> dict[str, tuple[int, float, float]]:
    """By kind of answer (a card's own, a follow-up's): how many were counted, and the
    medians of the statements Recall runs and of the WAL pages its commits write.

    Untimed. The WAL is left to grow (no checkpoint on these connections), so what an
    answer adds to its file is the answer's alone: a checkpoint by another connection
    would change what the session's ``PRAGMA data_version`` says, and it would read
    today's queue again at every answer."""
    statements = [0]

    def count(_statement: str) -> None:
        statements[0] += 1

    def trace(connection: sqlite3.Connection) -> None:
        connection.execute("PRAGMA wal_autocheckpoint = 0")
        connection.set_trace_callback(count)

    answerer = RecallAnswerer(path, deck_key, synchronous)  # type: ignore[arg-type]
    answerer.database._connections.hooks.append(trace)
    answerer.database._connections.close()
    answerer.database.watched().close()
    wal = path.with_name(path.name + "-wal")
    with sqlite3.connect(path) as side:
        (page_size,) = side.execute("PRAGMA page_size").fetchone()
    side.close()
    frame = page_size + 24  # a WAL frame: its header and the page
    per_answer: dict[str, list[tuple[int, int]]] = {}
    try:
        answerer.step()  # the first reads today's queue again on the connections opened anew
        for _ in range(_COUNTED_ANSWERS):
            before = wal.stat().st_size
            statements[0] = 0
            shown = answerer.shown
            if answerer.step() is None or shown is None:
                break
            frames = (wal.stat().st_size - before) // frame
            kind = "card answers" if shown.follow_up is None else "follow-up answers"
            per_answer.setdefault(kind, []).append((statements[0], frames))
    finally:
        answerer.close()
    return {
        kind: (
            len(counts),
            float(statistics.median(count for count, _ in counts)),
            float(statistics.median(frames for _, frames in counts)),
        )
        for kind, counts in sorted(per_answer.items())
    }


def _with_goal(figure: Figure, met: bool) -> Figure:
    return Figure(**{**figure.__dict__, "goal_met": met})
