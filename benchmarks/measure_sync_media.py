"""Sync with card media: a round with nothing new on a device whose cards use 2,000 files.

Two devices share a folder; one imports a deck of 2,000 cards, each showing its own image,
and both sync until everything (the 2,000 files too) has arrived. A round with nothing new
on the receiving device is then timed beside the same round on a pair that synced the
same cards without images: a round must not look at every media file when nothing new
refers to media.
"""

from __future__ import annotations

import hashlib
import json
import random
from datetime import UTC, datetime
from pathlib import Path

from benchmarks.common import Figure, alternate, elapsed_ms
from recall.collection import importing
from recall.content.deck_format import parse_deck
from recall.host import paths
from recall.scheduling import Schedulers
from recall.storage import Database
from recall.sync.rounds import sync

FILES = 2_000
IMAGE_BYTES = 4_096


def _pair(folder: Path, with_media: bool, now: datetime) -> Database:
    """Two devices synced until quiet; returns the receiving one's database (open)."""
    shared = folder / "shared"
    shared.mkdir(parents=True)
    sending = Database(folder / "sending" / "recall.sqlite3")
    receiving = Database(folder / "receiving" / "recall.sqlite3")
    rng = random.Random(FILES)
    media = paths.media_dir(folder / "sending")
    media.mkdir(parents=True)
    cards = []
    for number in range(FILES):
        front = f"Card {number}"
        if with_media:
            data = b"\x89PNG\r\n\x1a\n" + rng.randbytes(IMAGE_BYTES)
            name = f"{hashlib.sha256(data).hexdigest()}.png"
            (media / name).write_bytes(data)
            front += f' <img src="{name}">'
        cards.append(
            {"id": f"c{number}", "type": "basic", "markup": "html", "front": front, "back": "b"}
        )
    deck = {"format": "recall-deck", "version": 1, "id": "pictures", "name": "P", "cards": cards}
    try:
        importing.import_deck(sending, parse_deck(json.dumps(deck), "pictures.json"), now)
        for _ in range(2):
            sync(sending, now, shared, "sending", Schedulers())
            sync(receiving, now, shared, "receiving", Schedulers())
    finally:
        sending.close()
    held = paths.media_dir(folder / "receiving")
    arrived = sum(1 for _ in held.iterdir()) if held.is_dir() else 0
    assert arrived == (FILES if with_media else 0), arrived
    return receiving


def measure_sync_media(work: Path, rounds: int) -> Figure:
    """A round with nothing new on a device with 2,000 media files, beside one without.

    Args:
        work: A scratch folder.
        rounds: How many times each is measured.
    """
    now = datetime.now(UTC)
    folder = work / "sync-media"
    with_media = _pair(folder / "with", True, now)
    without = _pair(folder / "without", False, now)
    try:
        recall, baseline = alternate(
            lambda: elapsed_ms(lambda: sync(with_media, now, schedulers=Schedulers())),
            lambda: elapsed_ms(lambda: sync(without, now, schedulers=Schedulers())),
            rounds,
        )
    finally:
        with_media.close()
        without.close()
    figure = Figure(
        title=f"A sync round with nothing new, {FILES:,} cards each showing its own image",
        measures="one round on a device whose cards refer to 2,000 media files, all arrived, "
        "when nothing new was sent by any device",
        recall=recall,
        baseline_name="the same round, the same cards without images",
        baseline=baseline,
        goal="ratio <= 1.5 (no media file looked at)",
    )
    return Figure(**{**figure.__dict__, "goal_met": figure.ratio <= 1.5})
