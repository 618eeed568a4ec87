"""The sync folder's files as untrusted input: pipes, links, over-long lines, huge media.

Every byte in the sync folder comes from other programs and computers. A round must end
whatever is there, read nothing through a link, write nothing through one, and hold no
more of a file in memory than its bounds.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
import tracemalloc
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from recall.collection import importing
from recall.content.deck_format import parse_deck
from recall.host import paths
from recall.sync import folder as sync_folder
from recall.sync import media
from recall.sync.folder import SyncFolderError
from recall.sync.report import MEDIA_COUNTED, SyncReport
from tests.helpers.sync_devices import Device

START = datetime(2026, 11, 2, 8, 0, tzinfo=UTC)
PICTURE = b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 40
OTHER = "b" * 32  # a device that wrote its folder by hand
STAMP = 1_793_606_400_000_000

pipes = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes on this system")


def _finishes(round_: Callable[[], SyncReport], within: float = 120) -> SyncReport:
    """Run a round in a thread and wait for it a bounded time: a round blocked on a pipe
    fails the test instead of hanging it."""
    outcome: list[SyncReport | BaseException] = []

    def run() -> None:
        try:
            outcome.append(round_())
        except BaseException as error:  # handed to the test
            outcome.append(error)

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(within)
    assert not worker.is_alive(), "the round did not end: it waits on something in the folder"
    if isinstance(outcome[0], BaseException):
        raise outcome[0]
    return outcome[0]


def _deck_json(key: str, front: str) -> str:
    return json.dumps(
        {
            "format": "recall-deck",
            "version": 1,
            "id": key,
            "name": key.title(),
            "cards": [{"id": "c1", "type": "basic", "markup": "html", "front": front, "back": "b"}],
        }
    )


def _import(device: Device, key: str, front: str = "Question?") -> None:
    importing.import_deck(device.database, parse_deck(_deck_json(key, front), f"{key}.json"), START)


def _deck_event(key: str, number: int) -> dict[str, object]:
    return {
        "type": "deck",
        "id": f"{number:032x}",
        "stamp": STAMP + number,
        "device": OTHER,
        "deck": key,
        "fields": {"name": key.title(), "description": "", "preset": "default"},
    }


def _event_file(path: Path, *lines: bytes) -> None:
    """An event file as another computer writes it: its header, then ``lines``."""
    header = {"recall_sync": 1, "device": OTHER, "name": "by hand"}
    path.write_bytes(json.dumps(header).encode() + b"\n" + b"".join(lines))


def _line(event: dict[str, object]) -> bytes:
    return json.dumps(event).encode() + b"\n"


def _decks(device: Device) -> list[str]:
    return device.deck_keys()


def _snapshot(folder: Path) -> dict[str, bytes]:
    """Every file under ``folder`` with its bytes."""
    return {
        str(path.relative_to(folder)): path.read_bytes()
        for path in sorted(folder.rglob("*"))
        if path.is_file()
    }


def _picture_card(laptop: Device, shared: Path) -> tuple[str, Path]:
    """A card with an image on the laptop, synced; returns the image's name and the file
    the laptop put in the sync folder."""
    name = hashlib.sha256(PICTURE).hexdigest() + ".png"
    held = paths.media_dir(laptop.database.path.parent)
    held.mkdir(parents=True, exist_ok=True)
    (held / name).write_bytes(PICTURE)
    _import(laptop, "pics", f'<img src="{name}">')
    report = laptop.sync(START)
    sent = shared / "Recall" / report.device[0] / media.FOLDER / name
    assert sent.read_bytes() == PICTURE
    return name, sent


# Named pipes and devices


@pipes
def test_a_named_pipe_as_a_media_file_is_skipped_with_a_note_and_the_round_ends(
    pair: tuple[Device, Device], shared: Path
) -> None:
    laptop, desktop = pair
    name, sent = _picture_card(laptop, shared)
    sent.unlink()
    os.mkfifo(sent)  # no one ever writes to it: opening it to read would wait forever

    report = _finishes(lambda: desktop.sync(START))

    assert report.received["card"] == 1
    assert MEDIA_COUNTED not in report.received
    assert any(
        "was not taken" in note and "named pipe" in note and name[:8] in note
        for note in report.notes
    ), report.notes
    assert not (paths.media_dir(desktop.database.path.parent) / name).exists()
    # The real file, once it arrives, is taken at the next round.
    sent.unlink()
    sent.write_bytes(PICTURE)
    assert _finishes(lambda: desktop.sync(START)).received[MEDIA_COUNTED] == 1


@pipes
def test_a_named_pipe_as_an_event_file_is_skipped_with_a_note_and_the_rest_is_read(
    pair: tuple[Device, Device], shared: Path
) -> None:
    laptop, desktop = pair
    _import(laptop, "first")
    own = shared / "Recall" / laptop.sync(START).device[0]
    os.mkfifo(own / "000007-0badf11e.jsonl")

    report = _finishes(lambda: desktop.sync(START))

    assert _decks(desktop) == ["first"]
    assert any("000007-0badf11e.jsonl" in note and "not read" in note for note in report.notes)
    # The writer's own round ends too, and goes on sending.
    _import(laptop, "second")
    assert _finishes(lambda: laptop.sync(START)).sent["deck"] == 1
    _finishes(lambda: desktop.sync(START))
    assert _decks(desktop) == ["first", "second"]


# Links


def test_a_device_folder_that_is_a_link_is_not_read(
    pair: tuple[Device, Device], shared: Path, tmp_path: Path
) -> None:
    _laptop, desktop = pair
    outside = tmp_path / "outside"
    outside.mkdir()
    _event_file(outside / "000001-00000001.jsonl", _line(_deck_event("planted", 1)))
    before = _snapshot(outside)
    desktop.sync(START)
    (shared / "Recall" / OTHER).symlink_to(outside, target_is_directory=True)

    report = desktop.sync(START)

    assert "planted" not in _decks(desktop)
    assert any(f"{OTHER[:8]}/" in note and "not read" in note for note in report.notes)
    assert _snapshot(outside) == before


def test_an_event_file_that_is_a_link_is_not_read(
    pair: tuple[Device, Device], shared: Path, tmp_path: Path
) -> None:
    _laptop, desktop = pair
    folder = shared / "Recall" / OTHER
    folder.mkdir(parents=True)
    _event_file(folder / "000001-00000001.jsonl", _line(_deck_event("honest", 1)))
    outside = tmp_path / "outside.jsonl"
    _event_file(outside, _line(_deck_event("planted", 2)))
    before = outside.read_bytes()
    (folder / "000002-00000002.jsonl").symlink_to(outside)

    report = desktop.sync(START)

    assert _decks(desktop) == ["honest"]
    assert any(f"{OTHER[:8]}/000002-00000002.jsonl" in note for note in report.notes)
    assert outside.read_bytes() == before


def test_this_computers_folder_as_a_link_is_never_written_through(
    pair: tuple[Device, Device], shared: Path, tmp_path: Path
) -> None:
    laptop, desktop = pair
    _import(laptop, "first")
    own = shared / "Recall" / laptop.sync(START).device[0]
    outside = tmp_path / "outside"
    own.rename(outside)
    own.symlink_to(outside, target_is_directory=True)
    before = _snapshot(outside)
    _import(laptop, "second", f'<img src="{hashlib.sha256(PICTURE).hexdigest()}.png">')

    report = laptop.sync(START)

    assert report.problem is not None
    assert "link" in report.problem
    assert str(own) in report.problem
    assert report.kept == -1  # the whole snapshot it owes waits, in its database
    assert _snapshot(outside) == before
    assert not list(outside.glob(".*"))  # no temporary file left there either
    # Put right, the next round sends everything it kept.
    own.unlink()
    report = laptop.sync(START)
    assert report.problem is None
    assert report.snapshot
    desktop.sync(START)
    assert _decks(desktop) == ["first", "second"]


def test_this_computers_media_folder_as_a_link_is_never_written_through(
    pair: tuple[Device, Device], shared: Path, tmp_path: Path
) -> None:
    laptop, _desktop = pair
    name, sent = _picture_card(laptop, shared)
    outside = tmp_path / "outside"
    sent.parent.rename(outside)
    sent.parent.symlink_to(outside, target_is_directory=True)
    (outside / name).unlink()

    report = laptop.sync(START)

    assert report.problem is not None
    assert "link" in report.problem
    assert list(outside.iterdir()) == []


def test_a_recall_folder_that_is_a_link_is_refused_and_nothing_is_written(
    pair: tuple[Device, Device], shared: Path, tmp_path: Path
) -> None:
    laptop, _desktop = pair
    outside = tmp_path / "outside"
    outside.mkdir()
    planted = outside / OTHER
    planted.mkdir()
    _event_file(planted / "000001-00000001.jsonl", _line(_deck_event("planted", 1)))
    before = _snapshot(outside)
    (shared / sync_folder.ROOT).symlink_to(outside, target_is_directory=True)
    _import(laptop, "first")

    with pytest.raises(SyncFolderError, match="symbolic link") as raised:
        laptop.sync(START)

    assert str(shared / sync_folder.ROOT) in str(raised.value)
    assert _snapshot(outside) == before
    assert _decks(laptop) == ["first"]


# Bounds


def test_an_over_long_line_is_skipped_with_a_note_and_the_next_line_arrives(
    pair: tuple[Device, Device], shared: Path
) -> None:
    _laptop, desktop = pair
    folder = shared / "Recall" / OTHER
    folder.mkdir(parents=True)
    long_event = _deck_event("huge", 1)
    long_event["fields"] = {"name": "x" * (sync_folder.MAX_LINE_BYTES + 10)}
    _event_file(folder / "000001-00000001.jsonl", _line(long_event), _line(_deck_event("after", 2)))

    report = desktop.sync(START)

    assert _decks(desktop) == ["after"]
    assert any("1 line longer than 8 MiB, skipped" in note for note in report.notes)
    # The file was read to its end: the next round finds nothing new in it.
    assert desktop.sync(START).received == {}


def test_a_line_of_many_megabytes_is_read_in_bounded_memory(tmp_path: Path) -> None:
    folder = tmp_path / OTHER
    folder.mkdir()
    length = 6 * sync_folder.MAX_LINE_BYTES
    with (folder / "big.jsonl").open("wb") as out:
        out.write(b"header\n")
        for _ in range(length // (1 << 20)):
            out.write(b"y" * (1 << 20))
        out.write(b"\nlast\n")
    tracemalloc.start()
    try:
        lines = list(sync_folder.lines_after(tmp_path, OTHER, "big.jsonl", 0))
        _current, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert lines == [b"header\n", sync_folder.LongLine(length + 1), b"last\n"]
    assert peak < 2 * sync_folder.MAX_LINE_BYTES + (4 << 20)  # the line is 6 times that


def test_an_over_long_line_still_arriving_is_left_for_the_next_read(tmp_path: Path) -> None:
    folder = tmp_path / OTHER
    folder.mkdir()
    path = folder / "part.jsonl"
    path.write_bytes(b"header\n" + b"z" * (sync_folder.MAX_LINE_BYTES + 5))
    assert list(sync_folder.lines_after(tmp_path, OTHER, "part.jsonl", 0)) == [b"header\n"]
    with path.open("ab") as out:
        out.write(b"\n")
    assert list(sync_folder.lines_after(tmp_path, OTHER, "part.jsonl", 7)) == [
        sync_folder.LongLine(sync_folder.MAX_LINE_BYTES + 6)
    ]


def test_a_media_file_over_the_size_an_import_takes_is_not_taken_nor_read(
    pair: tuple[Device, Device], shared: Path
) -> None:
    laptop, desktop = pair
    name, sent = _picture_card(laptop, shared)
    sent.unlink()
    with sent.open("wb") as out:  # sparse: 1 GiB on paper, nothing on disk
        out.truncate(1024**3)

    report = desktop.sync(START + timedelta(minutes=1))

    assert MEDIA_COUNTED not in report.received
    assert any(
        name[:8] in note and "1,024 MiB, larger than the 64 MiB" in note for note in report.notes
    ), report.notes
    assert not (paths.media_dir(desktop.database.path.parent) / name).exists()
    assert media.max_bytes("x.mp3") == media.MAX_SOUND_BYTES == 64 * 1024**2
    assert media.max_bytes("x.mp4") == media.MAX_VIDEO_BYTES
