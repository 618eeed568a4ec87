"""Searching: typical queries beside Anki's ``col.find_cards`` with the same queries, sorted by
due, and the browser window opening on every card of the largest collection.

Both collections get the same tag on the same cards first (the generated decks have no
tags): the cards whose question number ends in 0. Each query is written the same way for
both apps (their syntax agrees on these), so the figures compare like with like; the notes
give both apps' match counts.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

from anki.collection import Collection

from benchmarks import anki_peer
from benchmarks.common import BENCHMARKS, Figure, alternate, child_environment, elapsed_ms
from benchmarks.generate import deck_name
from recall.changes.cards import Changes
from recall.collection.browse import Finder
from recall.core.preferences import Preferences
from recall.scheduling import Scheduler, Schedulers
from recall.storage import Database

SEARCH_GOAL_RATIO = 1.0
BROWSER_GOAL_MS = 300.0
TAGGED = '"value 0.5"'  # about one question in ten ("... holds the value 0.5...")


def queries(cards: int) -> list[tuple[str, str]]:
    """(what it is, the query) for each typical search; Anki reads each the same way."""
    return [
        ("a phrase", '"question 12"'),
        ("deck:", f'"deck:{deck_name(cards)}"'),
        ("is:due", "is:due"),
        ("tag:", "tag:verb"),
        ("prop:", "prop:ivl>=10"),
        ("rated:7", "rated:7"),
        ("combined with - and or", "(is:due or tag:verb) -rated:7"),
    ]


def _tag(recall_database: Path, collection: Collection) -> tuple[int, int]:
    """Tag the same cards ``verb`` in both collections; returns how many each tagged."""
    database = Database(recall_database)
    schedulers = Schedulers()
    settings = Preferences()
    try:
        now = datetime.now(UTC)
        finder = Finder(database, Scheduler(), settings)
        ids = finder.find(TAGGED, now).card_ids
        Changes(database, schedulers, settings).tag(ids, now, add=["verb"])
    finally:
        database.close()
    notes = collection.find_notes(TAGGED)
    collection.tags.bulk_add(notes, "verb")
    return len(ids), len(notes)


def measure_search(
    recall_database: Path, anki_collection: Path, cards: int, work: Path, rounds: int
) -> list[Figure]:
    """One figure per typical query, then one for the browser opening on every card."""
    folder = work / f"search-{cards}"
    folder.mkdir()
    recall_copy = folder / "recall.sqlite3"
    anki_copy = folder / "anki.anki2"
    shutil.copyfile(recall_database, recall_copy)
    shutil.copyfile(anki_collection, anki_copy)
    collection = anki_peer.open_collection(anki_copy, cards)
    figures = []
    try:
        tagged = _tag(recall_copy, collection)
        due_column = collection.get_browser_column("cardDue")
        assert due_column is not None
        database = Database(recall_copy)
        settings = Preferences()
        finder = Finder(database, Scheduler(), settings)
        try:
            for label, query in queries(cards):
                found: dict[str, int] = {}

                def recall_find(query: str = query, found: dict[str, int] = found) -> float:
                    now = datetime.now(UTC)
                    return elapsed_ms(
                        lambda: found.update(recall=len(finder.find(query, now).card_ids))
                    )

                def anki_find(query: str = query, found: dict[str, int] = found) -> float:
                    return elapsed_ms(
                        lambda: found.update(
                            anki=len(collection.find_cards(query, order=due_column))
                        )
                    )

                recall_find()  # warm the page caches of both
                anki_find()
                ours, theirs = alternate(recall_find, anki_find, rounds)
                figure = Figure(
                    title=f"Search {label}: {query}, {cards:,} cards",
                    measures="the matching card ids, sorted by due, as the browser asks",
                    recall=ours,
                    baseline_name="Anki: col.find_cards with the same query, sorted by due",
                    baseline=theirs,
                    goal=f"Recall's median <= {SEARCH_GOAL_RATIO:g}x Anki's",
                    notes=[
                        f"matches: Recall {found['recall']:,}, Anki {found['anki']:,}"
                        + (
                            f"; tagged: Recall {tagged[0]:,}, Anki {tagged[1]:,}"
                            if "tag" in query
                            else ""
                        )
                    ],
                )
                met = figure.ratio <= SEARCH_GOAL_RATIO
                figures.append(Figure(**{**figure.__dict__, "goal_met": met}))
        finally:
            database.close()
    finally:
        collection.close()
    figures.append(_browser_open(recall_copy, cards, rounds))
    return figures


def _browser_open(recall_database: Path, cards: int, rounds: int) -> Figure:
    """The browser window opened on every card, in a child process (offscreen Qt)."""
    environment = child_environment(QT_QPA_PLATFORM="offscreen")
    result = subprocess.run(
        [sys.executable, "-m", "benchmarks.browser_open", str(recall_database), str(rounds)],
        capture_output=True,
        text=True,
        check=True,
        cwd=BENCHMARKS.parent,
        env=environment,
    )
    opened, searched, shown = json.loads(result.stdout.splitlines()[-1])
    figure = Figure(
        title=f"Browser open on all {cards:,} cards",
        measures=(
            "from creating the browser window to its table showing the first rows of every "
            f"card sorted by due ({shown:,} matches; rows are read as they scroll)"
        ),
        recall=opened,
        baseline_name="the search alone (every card's id, sorted by due in SQL)",
        baseline=searched,
        goal=f"Recall's median <= {BROWSER_GOAL_MS:g} ms",
    )
    return Figure(**{**figure.__dict__, "goal_met": figure.recall_median <= BROWSER_GOAL_MS})
