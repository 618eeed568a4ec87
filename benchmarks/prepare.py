"""The generated files the measurements read, made once per anchor day and kept in a cache.

``benchmarks/.cache/<anchor day>/`` (git-ignored) holds, for each size, the JSON deck, the
Recall database and the Anki collection, and the 10,000-note ``.apkg``. A collection's
history ends the evening before its anchor day, so the measurements, which read the real
clock as the app does, find a day's worth of due cards; older days' folders are removed.
"""

from __future__ import annotations

import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import genanki

from benchmarks import anki_peer, generate
from benchmarks.common import CACHE

APKG_NOTES = 10_000
_APKG_DECK_ID = 2_080_600_100
_APKG_MODEL_ID = 2_080_600_101
_APKG_TIMESTAMP = 1_700_000_000  # genanki numbers notes and cards from here, in ms


@dataclass(frozen=True)
class Collections:
    """The files of one generated collection size."""

    cards: int
    deck_file: Path
    recall_database: Path
    anki_collection: Path

    @property
    def deck_key(self) -> str:
        return generate.deck_key(self.cards)


def cache_folder(now: datetime, root: Path = CACHE) -> Path:
    """Today's cache folder; other days' folders are removed."""
    day = generate.anchor_day(now).strftime("%Y-%m-%d")
    folder = root / day
    if root.exists():
        for other in root.iterdir():
            if other.is_dir() and other.name != day and other.name[:2] == "20":
                shutil.rmtree(other)
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def collections(
    cards: int, folder: Path, now: datetime, say: Callable[[str], None] = print
) -> Collections:
    """The collection of ``cards`` cards, generated into ``folder`` unless already there."""
    target = folder / str(cards)
    made = Collections(
        cards=cards,
        deck_file=target / "deck.json",
        recall_database=target / "recall.sqlite3",
        anki_collection=target / "anki.anki2",
    )
    if made.anki_collection.exists():
        return made
    if target.exists():
        shutil.rmtree(target)  # an interrupted generation
    partial = folder / f"{cards}.partial"
    if partial.exists():
        shutil.rmtree(partial)
    partial.mkdir(parents=True)
    started = time.perf_counter()
    say(f"generating {cards:,} cards with their history (cached in {folder}) ...")
    (partial / "deck.json").write_bytes(generate.deck_json(cards))
    reviews = generate.write_recall_database(
        partial / "recall.sqlite3", partial / "deck.json", cards, generate.anchor_day(now)
    )
    anki_peer.build_collection(partial / "anki.anki2", partial / "recall.sqlite3", cards)
    partial.rename(target)
    say(f"  {reviews:,} reviews, {time.perf_counter() - started:.0f} s")
    return made


def apkg(notes: int, folder: Path) -> Path:
    """A package of ``notes`` Basic notes made with genanki, as a shared Anki deck would be."""
    path = folder / f"notes-{notes}.apkg"
    if path.exists():
        return path
    model = genanki.Model(
        _APKG_MODEL_ID,
        "Benchmark Basic",
        fields=[{"name": "Front"}, {"name": "Back"}],
        templates=[{"name": "Card 1", "qfmt": "{{Front}}", "afmt": "{{FrontSide}}<hr>{{Back}}"}],
    )
    deck = genanki.Deck(_APKG_DECK_ID, f"Shared deck of {notes:,} notes")
    for index in range(notes):
        deck.add_note(
            genanki.Note(
                model=model,
                fields=[
                    f"Question {index}: what is the <b>capital</b> of place {index}?",
                    f"City {index}, on the river {index % 97}",
                ],
                guid=genanki.guid_for("benchmark", index),
                tags=[f"group{index % 20}"],
            )
        )
    partial = path.with_suffix(".partial")
    genanki.Package(deck).write_to_file(str(partial), _APKG_TIMESTAMP)
    partial.rename(path)
    return path


def today() -> datetime:
    """The real time, as the app reads it."""
    return datetime.now(UTC)
