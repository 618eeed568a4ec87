"""Today's queue: the next card to show and what is left today, on the large collection.

The review screen asks for both before each card; the session answers from the queue it
keeps in memory (after checking the database's ``data_version``), as Anki's scheduler does
from its own. What reading the queue afresh costs (a new session, or a change made
elsewhere) is measured too and given in the figure's notes.
"""

from __future__ import annotations

import random
from datetime import UTC, datetime
from pathlib import Path

from anki.collection import Collection

from benchmarks import anki_peer
from benchmarks.common import Figure, alternate, elapsed_ms
from recall.scheduling import Schedulers
from recall.storage import Database
from recall.study.session import StudySession

QUEUE_GOAL_MS = 20.0
QUEUE_GOAL_RATIO = 3.0


def measure_queue(
    recall_database: Path, collection: Collection, cards: int, deck_key: str, rounds: int
) -> Figure:
    """Recall's next card and counts against Anki's ``get_queued_cards``, in turns."""
    database = Database(recall_database)
    session = StudySession(database, Schedulers(), deck_key, random.Random(1))

    def recall_queue() -> float:
        now = datetime.now(UTC)
        return elapsed_ms(lambda: (session.next_card(now), session.counts(now)))

    def anki_queue() -> float:
        return elapsed_ms(lambda: anki_peer.next_card(collection))

    def afresh() -> float:
        now = datetime.now(UTC)

        def read() -> None:
            fresh = StudySession(database, Schedulers(), deck_key, random.Random(1))
            fresh.next_card(now)
            fresh.counts(now)

        return elapsed_ms(read)

    try:
        recall_queue()  # the first call of each warms SQLite's page cache
        anki_queue()
        ours, theirs = alternate(recall_queue, anki_queue, rounds)
        counts = session.counts(datetime.now(UTC))
        fresh = sorted(afresh() for _ in range(max(3, rounds // 20)))
    finally:
        database.close()
    queued = anki_peer.next_card(collection)
    figure = Figure(
        title=f"Today's queue, {cards:,}-card collection",
        measures=(
            "the next card to show and today's counts, read in one go as the review screen "
            "does before each card"
        ),
        recall=ours,
        baseline_name="Anki: get_queued_cards (the next card, its states and the counts)",
        baseline=theirs,
        tail=True,
        goal=f"Recall's median < {QUEUE_GOAL_MS:g} ms and ratio <= {QUEUE_GOAL_RATIO:g}",
        notes=[
            f"left today: Recall {counts.new} new and {counts.due} due (its preset allows "
            f"{session.preset.reviews_per_day} reviews a day); Anki {queued.new_count} new, "
            f"{queued.learning_count} learning and {queued.review_count} due",
            f"reading the queue afresh (a new session, or after a change made elsewhere): "
            f"{fresh[len(fresh) // 2]:.2f} ms (median of {len(fresh)})",
        ],
    )
    met = figure.recall_median < QUEUE_GOAL_MS and figure.ratio <= QUEUE_GOAL_RATIO
    return Figure(**{**figure.__dict__, "goal_met": met})
