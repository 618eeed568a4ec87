"""Recall's sync over a real sync engine: two devices, each with its own data folder and its sync
folder on its own Syncthing instance, study and import while Syncthing moves the files; after
sync rounds on each until nothing new is written, both have the same decks, byte-identical
review exports and deck exports, and a healthy `recall check`.

Run with ``make test-sync-engine`` (``pytest -m syncthing``), which CI does.
"""

from __future__ import annotations

import json
import random
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from recall.content.deck_format import ChoiceCard
from recall.host import paths
from recall.scheduling import Schedulers
from recall.storage import Database
from recall.study.session import StudySession
from tests.helpers.anki_packages import picture_and_sound_package
from tests.helpers.syncthing import SyncthingPair, folder_contents, syncthing_pair

pytestmark = pytest.mark.syncthing

BUNDLED = "activation-recompute"
IMPORTED = "sync-deck"
ROUNDS = 6


def _deck_file(path: Path) -> Path:
    """A small Recall deck of choice cards, written to ``path``."""
    cards = [
        {
            "id": f"q{number}",
            "type": "choice",
            "question": f"What is {number} times {number}?",
            "choices": [
                {"text": str(number * number), "correct": True},
                {"text": str(number * number + 1), "why": "One too many."},
                {"text": str(number + number), "why": "That is the sum."},
            ],
            "explanation": "Multiply the number by itself.",
        }
        for number in range(3, 9)
    ]
    deck = {
        "format": "recall-deck",
        "version": 1,
        "id": IMPORTED,
        "name": "Squares",
        "cards": cards,
    }
    path.write_text(json.dumps(deck, indent=2))
    return path


@dataclass
class Device:
    """One learner's computer: a data folder, and its copy of the Syncthing-shared folder."""

    name: str
    data: Path
    folder: Path
    clock: datetime
    rng: random.Random

    def recall(self, *arguments: str) -> str:
        """Run a `recall` command on this device's data folder; returns what it printed."""
        result = subprocess.run(
            [sys.executable, "-m", "recall", "--data-dir", str(self.data), *arguments],
            capture_output=True,
            text=True,
            check=False,
        )
        assert result.returncode == 0, (
            f"recall {' '.join(arguments)} on {self.name} exited {result.returncode}:\n"
            f"{result.stdout}{result.stderr}"
        )
        return result.stdout

    def sync(self, *arguments: str) -> str:
        """One sync round (the first names this device's Syncthing folder: ``--folder``)."""
        return self.recall("sync", *arguments)

    def study(self, deck_key: str, count: int) -> int:
        """Answer up to ``count`` cards of a deck as the study screen does (the first choice
        shown, or Good on a basic card), a few seconds each; returns how many were answered."""
        database = Database(paths.database_path(self.data))
        try:
            session = StudySession(database, Schedulers(fuzz=True), deck_key, self.rng)
            answered = 0
            for _ in range(count):
                shown = session.next_card(self.clock)
                if shown is None:
                    break
                self.clock += timedelta(seconds=self.rng.randint(3, 20))
                if isinstance(shown.card, ChoiceCard):
                    answer = session.answer_choice(shown, {shown.order[0]}, self.clock)
                else:
                    answer = session.reveal(shown, self.clock)
                session.record(answer, answer.proposed, self.clock)
                answered += 1
        finally:
            database.close()
        return answered

    def deck_keys(self) -> set[str]:
        return {deck["id"] for deck in json.loads(self.recall("decks", "--json"))}


@pytest.fixture
def pair(tmp_path: Path) -> Iterator[SyncthingPair]:
    with syncthing_pair(tmp_path / "syncthing") as started:
        yield started


def _devices(tmp_path: Path, pair: SyncthingPair) -> tuple[Device, Device]:
    # The study happened this morning: learning steps are due by now, and what graduated is
    # due on a later day, so both devices count the same cards however long the test takes.
    morning = datetime.now(UTC).replace(microsecond=0) - timedelta(hours=3)
    first = Device("first", tmp_path / "data-first", pair.a.folder, morning, random.Random(1))
    second = Device(
        "second",
        tmp_path / "data-second",
        pair.b.folder,
        morning + timedelta(minutes=7),
        random.Random(2),
    )
    return first, second


def _sync_until_quiet(pair: SyncthingPair, devices: tuple[Device, ...]) -> int:
    """Sync rounds on every device, Syncthing settling between them, until a round writes
    nothing new into the shared folder; returns how many rounds that took."""
    before = pair.wait_in_sync()
    for round_number in range(1, ROUNDS + 1):
        for device in devices:
            device.sync()
        after = pair.wait_in_sync()
        if after == before:
            return round_number
        before = after
    changed = sorted(
        name for name in after.keys() | before.keys() if after.get(name) != before.get(name)
    )
    raise AssertionError(f"still writing after {ROUNDS} sync rounds: {changed[:10]}")


def test_two_devices_study_and_import_while_syncthing_moves_the_files(
    tmp_path: Path, pair: SyncthingPair
) -> None:
    first, second = _devices(tmp_path, pair)
    answered = 0
    for device in (first, second):
        device.recall("decks")
        device.sync("--folder", str(device.folder))  # later rounds remember the folder

    # Both study offline from each other while Syncthing carries whatever each sync writes.
    first.recall("import", str(_deck_file(tmp_path / "squares.json")))
    answered += first.study(BUNDLED, 3)
    answered += second.study(BUNDLED, 3)
    first.sync()
    answered += first.study(IMPORTED, 2)
    second.sync()
    answered += second.study(BUNDLED, 2)
    first.sync()
    second.sync()

    # The deck imported on the first device arrives on the second, which studies it too.
    pair.wait_in_sync()
    second.sync()
    assert IMPORTED in second.deck_keys()
    answered += second.study(IMPORTED, 3)
    answered += first.study(BUNDLED, 2)
    second.sync()
    first.sync()

    _sync_until_quiet(pair, (first, second))

    # Each device wrote its own folder under Recall/, and Syncthing copied both everywhere.
    shared = folder_contents(pair.a.folder)
    assert len({name.split("/")[1] for name in shared if name.startswith("Recall/")}) == 2
    decks = [json.loads(device.recall("decks", "--json")) for device in (first, second)]
    assert decks[0] == decks[1]
    assert {deck["id"] for deck in decks[0]} == {BUNDLED, IMPORTED}
    reviews = [device.recall("export-reviews", "-") for device in (first, second)]
    assert reviews[0] == reviews[1]
    assert len(reviews[0].splitlines()) == 1 + answered, "every answer on either device, once"
    for device in (first, second):
        device.recall("export", IMPORTED, str(device.data / "squares-out.json"))
        assert "healthy" in device.recall("check")
    assert (first.data / "squares-out.json").read_bytes() == (
        second.data / "squares-out.json"
    ).read_bytes()


def test_a_device_folder_deleted_on_the_other_computer_is_written_again(
    tmp_path: Path, pair: SyncthingPair
) -> None:
    first, second = _devices(tmp_path, pair)
    first.recall("import", str(_deck_file(tmp_path / "squares.json")))
    answered = first.study(IMPORTED, 3)
    first.sync("--folder", str(first.folder))
    (own,) = (pair.a.folder / "Recall").iterdir()
    pair.wait_in_sync()
    second.sync("--folder", str(second.folder))
    answered += second.study(IMPORTED, 2)

    # Someone tidies the shared folder on the second computer; Syncthing deletes the first
    # device's files on the first computer too.
    shutil.rmtree(pair.b.folder / "Recall" / own.name)
    pair.wait_in_sync()
    assert not own.exists()

    _sync_until_quiet(pair, (first, second))
    rewritten = pair.b.folder / "Recall" / own.name
    assert rewritten.is_dir()
    assert any(rewritten.iterdir())

    # A computer joining now gets everything from the files as they are.
    newcomer = Device(
        "newcomer", tmp_path / "data-newcomer", pair.b.folder, first.clock, random.Random(3)
    )
    newcomer.sync("--folder", str(newcomer.folder))
    reviews = {device.recall("export-reviews", "-") for device in (first, second, newcomer)}
    assert len(reviews) == 1
    assert len(reviews.pop().splitlines()) == 1 + answered
    for device in (first, second, newcomer):
        assert IMPORTED in device.deck_keys()
        assert "healthy" in device.recall("check")


def test_an_image_and_a_sound_imported_on_one_computer_arrive_on_the_other(
    tmp_path: Path, pair: SyncthingPair
) -> None:
    first, second = _devices(tmp_path, pair)
    picture, sound = b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 400, b"ID3\x03" + b"miaou" * 9000
    package = picture_and_sound_package(tmp_path, picture, sound)
    first.recall("import", str(package))
    stored = sorted((paths.media_dir(first.data)).iterdir())
    assert len(stored) == 2
    assert "2 media files" in first.sync("--folder", str(first.folder))
    pair.wait_in_sync()
    received = second.sync("--folder", str(second.folder))
    assert "2 media files" in received.splitlines()[2], received
    for path in stored:
        assert (paths.media_dir(second.data) / path.name).read_bytes() == path.read_bytes()
    # The card on the second computer refers to the files it now holds.
    exported = second.data / "animals.json"
    (key,) = second.deck_keys() - {BUNDLED}
    second.recall("export", key, str(exported))
    text = exported.read_text()
    assert all(path.name in text for path in stored)
    _sync_until_quiet(pair, (first, second))
    for device in (first, second):
        assert "healthy" in device.recall("check")
