"""`recall sync` killed (SIGKILL) at random moments, many times: nothing lost, nothing doubled.

A device with a few thousand cards and reviews syncs in a subprocess that is killed at a
random moment while it writes its file or merges the other's; after the kills, each
device syncs to the end, and both hold the same decks and history, ``recall check``
finds nothing, and no temporary file is left in the sync folder.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from recall.collection import importing
from recall.content.deck_format import parse_deck
from recall.core.memory import CardState, Rating
from recall.safekeeping import integrity, repair
from recall.scheduling import Schedulers
from recall.storage import Database, NewReview
from tests.helpers.kills import kill_rounds, round_length
from tests.helpers.sync_devices import Device, read_only

pytestmark = pytest.mark.slow  # each test runs dozens of `recall sync` processes

START = datetime(2026, 6, 1, 8, 0, tzinfo=UTC)
CARDS = 1500


def _big_deck(key: str) -> str:
    return json.dumps(
        {
            "format": "recall-deck",
            "version": 1,
            "id": key,
            "name": f"Deck {key}",
            "cards": [
                {"id": f"c{n}", "type": "basic", "front": f"Front {n} of {key}", "back": "Back"}
                for n in range(CARDS)
            ],
        }
    )


def _with_history(database: Database, key: str, rng: random.Random) -> None:
    """Import a deck and give most cards a few reviews, then store each replayed schedule."""
    importing.import_deck(database, parse_deck(_big_deck(key), f"{key}.json"), START)
    with database.transaction() as transaction:
        deck = transaction.decks.by_key(key)
        assert deck is not None
        reviews = [
            NewReview.rated(
                card.id,
                START + timedelta(days=day, minutes=n),
                Rating(rng.randint(1, 4)),
                3000,
                CardState.NEW,
            )
            for n, card in enumerate(transaction.cards.of_deck(deck.id))
            for day in range(rng.randint(0, 4))
        ]
        transaction.history.add_many(reviews)
    schedulers = Schedulers()
    report = integrity.check(database, schedulers, START + timedelta(days=30))
    repair.repair(database, schedulers, report, START + timedelta(days=30))


def _sync(data: Path, shared: Path) -> list[str]:
    return ["--data-dir", str(data), "sync", "--folder", str(shared)]


@pytest.mark.skipif(os.name != "posix", reason="SIGKILL")
def test_a_sync_killed_at_random_moments_loses_and_doubles_nothing(tmp_path: Path) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    rng = random.Random(15)
    laptop = Device(tmp_path, "laptop", shared, fuzz=True)
    desktop = Device(tmp_path, "desktop", shared, fuzz=True)
    try:
        _with_history(laptop.database, "big", rng)
        _with_history(desktop.database, "other", rng)
    finally:
        laptop.close()
        desktop.close()
    # How long a whole round of each takes here (on copies), so the kills land all
    # through one however busy the machine is.
    lengths = []
    for name in ("laptop", "desktop"):
        trial = tmp_path / "trial"
        shutil.copytree(tmp_path / name, trial / name)
        shutil.copytree(shared, trial / "shared", dirs_exist_ok=True)
        lengths.append(round_length(_sync(trial / name, trial / "shared")))
    shutil.rmtree(tmp_path / "trial")
    commands = [_sync(tmp_path / name, shared) for name in ("laptop", "desktop")]
    kills = kill_rounds(commands, lengths, rng, kills=12, attempts=60)
    assert kills == 12, "the kills should land while the rounds run"
    for _ in range(2):
        for name in ("laptop", "desktop"):
            # --folder again: a device whose every round was killed early never stored it.
            command = ["--data-dir", str(tmp_path / name), "sync", "--folder", str(shared)]
            done = subprocess.run(
                [sys.executable, "-m", "recall", *command], capture_output=True, text=True
            )
            assert done.returncode == 0, done.stderr
    assert not list(shared.rglob("*.tmp"))
    laptop = Device(tmp_path, "laptop", shared, fuzz=True)
    desktop = Device(tmp_path, "desktop", shared, fuzz=True)
    try:
        assert laptop.review_log() == desktop.review_log()  # byte for byte
        reviews = laptop.review_rows()
        assert len(reviews) == len({tuple(row) for row in reviews})  # nothing doubled
        with laptop.database.reading() as transaction:
            assert transaction.cards.count() == 2 * CARDS + 8  # both decks and the bundled one
            total = transaction.history.count()
        assert total == len(reviews) > CARDS  # nothing lost: both devices' histories
        assert laptop.deck_keys() == desktop.deck_keys() == ["activation-recompute", "big", "other"]
        for device in (laptop, desktop):
            assert device.healthy(START + timedelta(days=30)) == []
            check = subprocess.run(
                [
                    sys.executable,
                    "-m",
                    "recall",
                    "--data-dir",
                    str(tmp_path / device.name),
                    "check",
                ],
                capture_output=True,
                text=True,
            )
            assert check.returncode == 0, check.stdout + check.stderr
    finally:
        laptop.close()
        desktop.close()


@pytest.mark.skipif(os.name != "posix", reason="SIGKILL")
def test_changes_kept_while_the_folder_was_read_only_survive_kills_when_sent(
    tmp_path: Path,
) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    rng = random.Random(16)
    laptop = Device(tmp_path, "laptop", shared, fuzz=True)
    desktop = Device(tmp_path, "desktop", shared, fuzz=True)
    try:
        importing.import_deck(laptop.database, parse_deck(_big_deck("small"), "s.json"), START)
        laptop.sync(START)
        own = shared / "Recall" / desktop.sync(START).device[0]
        desktop.study("small", 1, START, rng)
        desktop.sync(START)
        _with_history(desktop.database, "other", rng)
        with read_only(own):
            kept = desktop.sync(START + timedelta(days=30))
        assert kept.problem is not None
        assert kept.kept > CARDS
    finally:
        laptop.close()
        desktop.close()
    trial = tmp_path / "trial"
    shutil.copytree(tmp_path / "desktop", trial / "desktop")
    shutil.copytree(shared, trial / "shared")
    length = round_length(_sync(trial / "desktop", trial / "shared"))
    commands = [_sync(tmp_path / "desktop", shared)]
    kills = kill_rounds(commands, [length], rng, kills=6, attempts=30, within=(0.2, 1.0))
    assert kills == 6, "the kills should land while the rounds run"
    for name in ("desktop", "laptop", "desktop"):
        command = ["--data-dir", str(tmp_path / name), "sync", "--folder", str(shared)]
        done = subprocess.run([sys.executable, "-m", "recall", *command], capture_output=True)
        assert done.returncode == 0, done.stderr
    laptop = Device(tmp_path, "laptop", shared, fuzz=True)
    desktop = Device(tmp_path, "desktop", shared, fuzz=True)
    try:
        with desktop.database.reading() as transaction:
            assert transaction.sync_state.pending_count() == 0
        assert laptop.review_log() == desktop.review_log()
        reviews = laptop.review_rows()
        assert len(reviews) == len({tuple(row) for row in reviews}) > CARDS
        assert (
            laptop.deck_keys() == desktop.deck_keys() == ["activation-recompute", "other", "small"]
        )
        for device in (laptop, desktop):
            assert device.healthy(START + timedelta(days=30)) == []
    finally:
        laptop.close()
        desktop.close()
