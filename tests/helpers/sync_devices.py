"""Devices for sync tests: a data folder each, sharing one sync folder, driven by use cases."""

from __future__ import annotations

import csv
import io
import json
import os
import random
import shutil
import sqlite3
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from recall.changes.cards import Changes
from recall.collection import importing, review_log
from recall.collection.exporting import export_deck
from recall.content.deck_format import parse_deck
from recall.core.memory import Rating
from recall.core.preferences import Preferences
from recall.safekeeping import integrity
from recall.scheduling import Schedulers
from recall.storage import Database
from recall.storage.times import to_micros
from recall.study.session import StudySession
from recall.sync.rounds import SyncReport, sync


class ChangeClock:
    """The time the sync triggers stamp each change with: the wall clock, moved on by
    ``advance`` so a test can make a change later than another without waiting for it.

    It stands in for SQLite's ``julianday('now')`` (the triggers' only use of
    ``julianday``) on every connection of a device's database.
    """

    def __init__(self) -> None:
        self._ahead = 0.0
        self._last = 0.0

    def advance(self, seconds: float) -> None:
        """Let ``seconds`` pass: every change made from now on is stamped that much later."""
        self._ahead += seconds

    def install(self, connection: sqlite3.Connection) -> None:
        """Make ``connection``'s ``julianday('now')`` read this clock."""
        connection.create_function("julianday", 1, self._julianday)

    def _julianday(self, value: object) -> float:
        if value != "now":
            raise ValueError(f"julianday({value!r}): only 'now' is stood in for")
        self._last = max(self._last, time.time() + self._ahead)
        return self._last / 86400 + 2440587.5  # the Unix epoch is Julian day 2440587.5


class Device:
    """One learner's computer: its own database, its own clock skew, the shared folder.

    ``clock`` stamps its changes (one of its own unless given: devices given the same one
    see the same time pass).
    """

    def __init__(
        self,
        root: Path,
        name: str,
        shared: Path,
        fuzz: bool = True,
        clock: ChangeClock | None = None,
    ) -> None:
        self.name = name
        self.shared = shared
        self.clock = ChangeClock() if clock is None else clock
        self.database = Database(root / name / "recall.sqlite3")
        connections = self.database._connections
        connections.hooks.append(self.clock.install)
        connections.close()  # the ones opened so far reopen with the hook
        self.schedulers = Schedulers(fuzz=fuzz)

    def close(self) -> None:
        self.database.close()

    def sync(self, now: datetime) -> SyncReport:
        return sync(self.database, now, self.shared, self.name, self.schedulers)

    def changes(self) -> Changes:
        return Changes(self.database, self.schedulers, Preferences(), rng=random.Random(1))

    def study(self, deck_key: str, count: int, now: datetime, rng: random.Random) -> int:
        """Answer up to ``count`` cards of a deck; returns how many were answered."""
        session = StudySession(self.database, self.schedulers, deck_key, rng=rng)
        done = 0
        for _ in range(count):
            shown = session.next_card(now)
            if shown is None:
                break
            answer = session.reveal(shown, now)
            session.record(answer, rng.choice(list(Rating)), now)
            done += 1
        return done

    def card_ids(self) -> list[int]:
        with self.database.reading() as transaction:
            return sorted(
                card.id
                for deck in transaction.browsing.decks()
                for card in transaction.cards.of_deck(deck.id)
            )

    def deck_keys(self) -> list[str]:
        with self.database.reading() as transaction:
            return sorted(deck.key for deck in transaction.browsing.decks())

    def review_log(self) -> str:
        """``recall export-reviews`` as it writes it: the same bytes on every device that
        holds the same history (each card named by its seed, which travels with it)."""
        out = io.StringIO()
        review_log.export_reviews(self.database, out)
        return out.getvalue()

    def review_rows(self) -> list[list[str]]:
        """The review log's rows, without its header."""
        return list(csv.reader(io.StringIO(self.review_log())))[1:]

    def deck_exports(self, folder: Path) -> dict[str, bytes]:
        """Each deck's JSON export, by deck key."""
        folder.mkdir(parents=True, exist_ok=True)
        out: dict[str, bytes] = {}
        for key in self.deck_keys():
            target = folder / f"{self.name}-{key}.json"
            export_deck(self.database, key, target)
            out[key] = target.read_bytes()
        return out

    def schedules_by_key(self) -> dict[str, tuple[object, ...]]:
        """Each card's schedule, suspension and flag by its keys (fuzz included: it is drawn
        from the card's seed, the same on every device)."""
        with self.database.reading() as transaction:
            rows = transaction.sql.rows(
                "SELECT deck.key, card.key, card_memory.state, card_memory.due, "
                "card_memory.last_review, card_memory.stability, card_memory.suspended, "
                "card_memory.buried_until, card.flag FROM card "
                "JOIN deck ON deck.id = card.deck_id "
                "JOIN card_memory ON card_memory.card_id = card.id"
            )
        return {f"{row[0]}/{row[1]}": tuple(row[2:]) for row in rows}

    def healthy(self, now: datetime) -> list[str]:
        return integrity.check(self.database, self.schedulers, now).problems


def large_history(shared: Path, cards: int, now: datetime) -> int:
    """A sync folder holding a deck of ``cards`` cards and three answers to each, as two
    other computers wrote them (one imported the deck, the other answered); returns the
    number of reviews."""
    deck = {
        "format": "recall-deck",
        "version": 1,
        "id": "large",
        "name": "Large deck",
        "cards": [
            {"id": f"c{n}", "type": "basic", "front": f"Question {n}?", "back": f"Answer {n}"}
            for n in range(cards)
        ],
    }
    importer = Device(shared.parent, "importer", shared)
    try:
        importing.import_deck(importer.database, parse_deck(json.dumps(deck), "large.json"), now)
        importer.sync(now)
    finally:
        importer.close()
    folder = shared / "Recall" / ("a" * 32)
    folder.mkdir()
    day = 86_400_000_000
    start = to_micros(now - timedelta(days=30))
    assert start is not None
    with (folder / "000001-0000000a.jsonl").open("w") as out:
        out.write(json.dumps({"recall_sync": 1, "device": "a" * 32, "name": "laptop"}) + "\n")
        for n in range(cards):
            for step, (days, rating, state) in enumerate(((0, 3, 0), (2, 3, 1), (9, 2, 2))):
                review = {
                    "type": "review",
                    "id": f"{n:024x}{step:08x}",
                    "deck": "large",
                    "card": f"c{n}",
                    "at": start + days * day + n,
                    "kind": 0,
                    "rating": rating,
                    "duration_ms": 4000,
                    "state_before": state,
                    "picked": None,
                    "correct": rating > 1,
                    "set_due": None,
                    "proposed": None,
                }
                out.write(json.dumps(review) + "\n")
    return 3 * cards


def converged(devices: list[Device], folder: Path, now: datetime) -> None:
    """Assert the devices hold the same decks, review log, schedules and deck exports
    (written under ``folder``), and that `recall check` passes on each."""
    reference = devices[0]
    for device in devices[1:]:
        assert device.deck_keys() == reference.deck_keys()
        assert device.review_log() == reference.review_log()
        assert device.schedules_by_key() == reference.schedules_by_key()
        assert device.deck_exports(folder / "exports") == reference.deck_exports(folder / "exports")
    for device in devices:
        assert device.healthy(now) == []


def card_id(device: Device, deck: str, card: str) -> int:
    """The database id of the card under these keys on a device."""
    with device.database.reading() as transaction:
        found = transaction.sync_local.cards([(deck, card)])
    return found[(deck, card)][0]


def card_content(device: Device, deck: str, card: str) -> dict[str, Any]:
    """The JSON content of the card under these keys on a device."""
    with device.database.reading() as transaction:
        found = transaction.sync_local.cards([(deck, card)])
    loaded: dict[str, Any] = json.loads(found[(deck, card)][1]["content"])
    return loaded


@contextmanager
def read_only(path: Path) -> Iterator[None]:
    """Make a folder read-only for this process (root ignores modes: it is made immutable)."""
    if os.geteuid() == 0:
        if shutil.which("chattr") is None:
            pytest.skip("running as root without chattr: cannot make a folder read-only")
        made = subprocess.run(["chattr", "+i", str(path)], capture_output=True, check=False)
        if made.returncode != 0:
            pytest.skip(f"chattr +i refused here: {made.stderr.decode().strip()}")
        try:
            yield
        finally:
            subprocess.run(["chattr", "-i", str(path)], check=True)
    else:
        mode = path.stat().st_mode
        path.chmod(0o555)
        try:
            yield
        finally:
            path.chmod(mode)
