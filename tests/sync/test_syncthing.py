"""The Syncthing harness itself: files cross between two real instances, and a file edited on
both sides while they are apart comes back with a conflict copy, as Syncthing makes it.

Run with ``make test-sync-engine`` (``pytest -m syncthing``); plain ``make test`` leaves these
out because they need the ``syncthing`` program.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.helpers.syncthing import SyncthingPair, syncthing_pair

pytestmark = pytest.mark.syncthing


@pytest.fixture
def pair(tmp_path: Path) -> Iterator[SyncthingPair]:
    with syncthing_pair(tmp_path) as started:
        yield started


def test_a_file_written_on_one_side_appears_on_the_other(pair: SyncthingPair) -> None:
    (pair.a.folder / "Recall" / "device-a").mkdir(parents=True)
    (pair.a.folder / "Recall" / "device-a" / "events-1.jsonl").write_text("one\ntwo\n")
    (pair.b.folder / "from-b.txt").write_text("written on b")

    contents = pair.wait_in_sync()

    assert contents == {
        "Recall/device-a/events-1.jsonl": b"one\ntwo\n",
        "from-b.txt": b"written on b",
    }
    assert (pair.b.folder / "Recall" / "device-a" / "events-1.jsonl").read_text() == "one\ntwo\n"
    assert (pair.a.folder / "from-b.txt").read_text() == "written on b"


def test_both_sides_editing_one_file_apart_gives_a_conflict_copy(pair: SyncthingPair) -> None:
    (pair.a.folder / "notes.txt").write_text("first\n")
    pair.wait_in_sync()
    pair.separate()

    (pair.a.folder / "notes.txt").write_text("edited on a\n")
    (pair.b.folder / "notes.txt").write_text("edited on b, later and longer\n")
    pair.rejoin()
    contents = pair.wait_in_sync()

    conflicts = [name for name in contents if name.startswith("notes.sync-conflict-")]
    assert len(conflicts) == 1, sorted(contents)
    assert conflicts[0].endswith(".txt")
    # Nothing is lost: one edit keeps the name, the other is the conflict copy, on both sides.
    assert {contents["notes.txt"], contents[conflicts[0]]} == {
        b"edited on a\n",
        b"edited on b, later and longer\n",
    }
