"""Sync: a first sync of a whole collection into an empty device, and a daily sync.

The first sync reads another device's snapshot of the generated collection (every card
and every review) into an empty database, merges it and replays every card; beside it,
a plain ``recall import`` of the same cards and history (the same collection exported by
Anki as an .apkg with scheduling). The daily sync merges one day's 200 reviews made on
the other device into a device that already holds the collection.
"""

from __future__ import annotations

import functools
import random
import shutil
import tempfile
from datetime import UTC, datetime, timedelta
from pathlib import Path

from anki.collection import Collection, DeckIdLimit, ExportAnkiPackageOptions
from anki.decks import DeckId

from benchmarks.common import Figure, alternate, elapsed_ms
from recall.collection import importing
from recall.core.memory import Rating
from recall.scheduling import Schedulers
from recall.storage import Database
from recall.study.follow_up_summary import bring_up_to_date
from recall.study.session import StudySession
from recall.sync.rounds import sync

DAILY_REVIEWS = 200


def collection_package(anki_collection: Path, folder: Path) -> Path:
    """The generated Anki collection's deck exported by Anki with its scheduling, made once."""
    path = folder / f"{anki_collection.parent.name}-collection.apkg"
    if path.exists():
        return path
    work = folder / f"{anki_collection.parent.name}-collection-export"
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir()
    copy = work / "collection.anki2"
    shutil.copyfile(anki_collection, copy)
    collection = Collection(str(copy))
    try:
        deck = next(item for item in collection.decks.all_names_and_ids() if item.name != "Default")
        partial = path.with_suffix(".partial")
        collection.export_anki_package(
            out_path=str(partial),
            options=ExportAnkiPackageOptions(
                with_scheduling=True, with_deck_configs=False, with_media=False, legacy=False
            ),
            limit=DeckIdLimit(DeckId(deck.id)),
        )
        partial.rename(path)
    finally:
        collection.close()
        shutil.rmtree(work, ignore_errors=True)
    return path


def _first_sync(shared: Path, work: Path) -> float:
    with tempfile.TemporaryDirectory(dir=work) as name:
        database = Database(Path(name) / "recall.sqlite3")
        try:
            now = datetime.now(UTC)
            return elapsed_ms(lambda: sync(database, now, shared, "empty", Schedulers()))
        finally:
            database.close()


def _import(package: Path, work: Path) -> float:
    with tempfile.TemporaryDirectory(dir=work) as name:
        database = Database(Path(name) / "recall.sqlite3")
        try:
            now = datetime.now(UTC)
            return elapsed_ms(
                lambda: importing.import_files(database, Schedulers(), [package], now)
            )
        finally:
            database.close()


def _round(database: Database, now: datetime, shared: Path) -> None:
    sync(database, now, shared, "receiving", Schedulers())


def _copy(source: Path, target: Path) -> Path:
    target.mkdir(parents=True)
    shutil.copyfile(source, target / "recall.sqlite3")
    return target / "recall.sqlite3"


def measure_sync(
    recall_database: Path,
    anki_collection: Path,
    deck_key: str,
    cards: int,
    cache: Path,
    work: Path,
    rounds: int,
) -> list[Figure]:
    """The first sync into an empty device against an import; a daily sync of 200 reviews.

    Args:
        recall_database: The generated collection, as Recall stores it.
        anki_collection: The same collection in Anki, exported as the import's package.
        deck_key: The generated deck's key.
        cards: How many cards it holds, for the titles.
        cache: Where the exported package is kept between runs.
        work: A scratch folder.
        rounds: How many times each is measured.
    """
    package = collection_package(anki_collection, cache)
    folder = work / f"sync-{cards}"
    shared = folder / "shared"
    shared.mkdir(parents=True)
    source = Database(_copy(recall_database, folder / "studying"))  # upgraded on opening
    now = datetime.now(UTC)
    try:
        sync(source, now, shared, "studying", Schedulers())
    finally:
        source.close()
    first, imported = alternate(
        lambda: _first_sync(shared, work), lambda: _import(package, work), rounds
    )
    first_figure = Figure(
        title=f"First sync of {cards:,} cards and their history into an empty device",
        measures="another device's snapshot read, merged and every card replayed, beside a "
        "plain recall import of the same cards and history (Anki's .apkg of the collection)",
        recall=first,
        baseline_name="recall import of the same collection as an .apkg with scheduling",
        baseline=imported,
        goal="ratio <= 2.0",
    )
    first_figure = Figure(**{**first_figure.__dict__, "goal_met": first_figure.ratio <= 2.0})
    # The receiving device: the collection, synced once.
    receiving = _copy(recall_database, folder / "receiving")
    database = Database(receiving)
    try:
        sync(database, now, shared, "receiving", Schedulers())
    finally:
        database.close()
    # One day's study on the other device, written as its next file.
    source = Database(folder / "studying" / "recall.sqlite3")
    try:
        # As the app does when it opens a collection: the follow-ups of cards marked stale
        # (every card of a file just upgraded) are worked out and stored once, not again
        # at each of the day's cards.
        bring_up_to_date(source)
        later = now + timedelta(days=1)
        session = StudySession(source, Schedulers(), deck_key, rng=random.Random(1))
        studied = 0
        for _ in range(DAILY_REVIEWS):
            shown = session.next_card(later)
            if shown is None:
                break  # a small collection has fewer cards due in a day
            session.record(session.reveal(shown, later), Rating.GOOD, later)
            later += timedelta(seconds=20)
            studied += 1
        sync(source, later, shared, "studying", Schedulers())
    finally:
        source.close()
    daily: list[float] = []
    quiet: list[float] = []
    for index in range(rounds):
        for samples, round_name in ((daily, "daily"), (quiet, "quiet")):
            copy = _copy(receiving, folder / f"{round_name}-{index}")
            database = Database(copy)
            try:
                if round_name == "quiet":
                    sync(database, later, shared, "receiving", Schedulers())
                samples.append(elapsed_ms(functools.partial(_round, database, later, shared)))
            finally:
                database.close()
            shutil.rmtree(copy.parent)
    daily_figure = Figure(
        title=f"Daily sync: {studied} reviews from another device, {cards:,} cards",
        measures="one round that reads one day's reviews made on another device, merges "
        "them and replays their cards",
        recall=daily,
        baseline_name="a round with nothing new",
        baseline=quiet,
        goal="recall <= 1 s",
    )
    return [
        first_figure,
        Figure(**{**daily_figure.__dict__, "goal_met": daily_figure.recall_median <= 1000}),
    ]
