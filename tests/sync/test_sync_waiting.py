"""What sync cannot use yet is kept, never lost: far-ahead changes, unknown events, a
read-only folder. Real data folders, real files written by hand where a newer Recall or a
wrong clock would have written them."""

from __future__ import annotations

import errno
import json
import random
import shutil
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from recall.cli.main import main
from recall.collection import importing
from recall.content.deck_format import parse_deck
from recall.storage import Database
from recall.storage.times import to_micros
from recall.sync import events as sync_events
from recall.sync import folder as sync_folder
from recall.sync.incoming import ahead_limit
from tests.conftest import DATA
from tests.helpers.sync_devices import Device, converged, read_only

TINY = (DATA / "decks" / "tiny.json").read_text()
START = datetime(2026, 11, 2, 8, 0, tzinfo=UTC)
STRANGER = "c" * 32


def _write(shared: Path, device: str, name: str, lines: list[dict[str, Any]]) -> Path:
    """A file of another device, as its Recall would have written it."""
    folder = shared / "Recall" / device
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_bytes(b"".join(json.dumps(line).encode() + b"\n" for line in lines))
    return path


def _header(format_: int = 1) -> dict[str, Any]:
    return {"recall_sync": format_, "device": STRANGER, "name": "stranger", "written": 0}


def _deck_name(device: Device, key: str) -> str:
    with device.database.reading() as transaction:
        return transaction.sync_local.decks([key])[key][1]


def _after_all(device: Device) -> int:
    """A stamp later than every change the device made or saw (stamps follow the real
    clock of the moment a change is written, not the tests' fixed one)."""
    with device.database.reading() as transaction:
        own = transaction.sync_state.device()
    assert own is not None
    return own.clock + 1_000


def _review_ids(device: Device) -> set[str]:
    with device.database.reading() as transaction:
        return {row[0] for row in transaction.sync_local.all_reviews()}


def _rename(stamp: datetime | int, name: str) -> dict[str, Any]:
    micros = stamp if isinstance(stamp, int) else to_micros(stamp)
    assert micros is not None
    return {
        "type": "deck",
        "id": f"{micros:032x}",
        "stamp": micros,
        "device": STRANGER,
        "deck": "tiny",
        "fields": {"name": name},
    }


# 1. A change stamped far ahead of this computer's clock


def test_a_change_stamped_years_ahead_waits_until_the_clock_comes_near_then_counts_everywhere(
    pair: tuple[Device, Device], shared: Path, tmp_path: Path
) -> None:
    laptop, desktop = pair
    importing.import_deck(laptop.database, parse_deck(TINY, "tiny.json"), START)
    laptop.sync(START)
    desktop.sync(START)
    # A computer whose clock ran two years ahead renamed the deck.
    ahead = START + timedelta(days=730)
    _write(shared, STRANGER, "000001-aaaaaaaa.jsonl", [_header(), _rename(ahead, "From 2028")])
    for device in (laptop, desktop):
        report = device.sync(START)
        assert "held, not merged" in "\n".join(report.notes)
        assert "(the first on 2027-11-01)" in "\n".join(report.notes)  # a year before it
        assert _deck_name(device, "tiny") == "Tiny deck"
        with device.database.reading() as transaction:
            own = transaction.sync_state.device()
        assert own is not None
        assert own.clock < (to_micros(ahead) or 0)  # a held stamp does not drag the clock along
    # Round after round it stays held (the file was read once; the change is in the database).
    shutil.rmtree(shared / "Recall" / STRANGER)
    assert "held" in "\n".join(desktop.sync(START + timedelta(days=1)).notes)
    assert _deck_name(desktop, "tiny") == "Tiny deck"
    # A year and a bit later the clock is within a year of it: merged on every computer.
    later = START + timedelta(days=400)
    for device in (laptop, desktop):
        notes = "\n".join(device.sync(later).notes)
        assert "1 change held because it was stamped more than a year ahead" in notes
        assert "clock was merged: its clock has come within a year of it" in notes
        assert _deck_name(device, "tiny") == "From 2028"
        with device.database.reading() as transaction:
            assert transaction.sync_state.held_changes() == (0, None)
    converged([laptop, desktop], tmp_path, later)


def test_a_computer_whose_clock_was_years_behind_gets_the_changes_once_it_is_set_right(
    pair: tuple[Device, Device], shared: Path, tmp_path: Path
) -> None:
    laptop, desktop = pair
    importing.import_deck(laptop.database, parse_deck(TINY, "tiny.json"), START)
    laptop.sync(START)
    wrong = START - timedelta(days=3 * 365)  # a flat clock battery
    report = desktop.sync(wrong)
    assert "held" in "\n".join(report.notes)
    assert desktop.deck_keys() == []  # every change of the laptop waits, none is dropped
    desktop.sync(START)
    assert desktop.deck_keys() == ["tiny"]
    laptop.study("tiny", 3, START, random.Random(3))
    laptop.sync(START)
    desktop.sync(START)
    converged([laptop, desktop], tmp_path, START)


def test_the_limit_is_a_year_and_a_day_past_the_tolerance_for_clocks() -> None:
    limit = ahead_limit(START)
    day_366 = to_micros(START + timedelta(days=366))
    day_367 = to_micros(START + timedelta(days=367))
    assert day_366 is not None
    assert day_367 is not None
    assert day_366 < limit < day_367


# 2. Events this Recall does not know, and files of a newer format


def test_a_file_with_unknown_events_is_read_again_from_them_once_recall_knows_more(
    pair: tuple[Device, Device], shared: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    laptop, desktop = pair
    importing.import_deck(laptop.database, parse_deck(TINY, "tiny.json"), START)
    laptop.study("tiny", 2, START, random.Random(2))
    laptop.sync(START)
    desktop.sync(START)
    taken_back = sorted(_review_ids(desktop))[0]
    # Another computer took a review back: an `unreview`, after an event of a type no
    # Recall knows yet.
    _write(
        shared,
        STRANGER,
        "000001-bbbbbbbb.jsonl",
        [
            _header(),
            _rename(_after_all(laptop), "Renamed"),
            {"type": "hologram", "id": "h1"},
            {"type": "unreview", "id": "u1", "review": taken_back},
        ],
    )
    # An older Recall that did not know `unreview` yet.
    monkeypatch.setattr(sync_events, "TYPES", sync_events.TYPES - {"unreview"})
    notes = "\n".join(desktop.sync(START).notes)
    assert "'unreview'" in notes
    assert "read again when Recall is updated" in notes
    assert _deck_name(desktop, "tiny") == "Renamed"
    assert taken_back in _review_ids(desktop)
    # Nothing new is known: the file is not read again.
    again = desktop.sync(START)
    assert sum(again.received.values()) == 0
    assert "'unreview'" not in "\n".join(again.notes)
    # Updated: the file is read again from its first unknown event, and what it says counts.
    monkeypatch.undo()
    updated = desktop.sync(START)
    assert updated.received["unreview"] == 1
    assert "'hologram'" in "\n".join(updated.notes)  # still unknown: still noted
    assert taken_back not in _review_ids(desktop)
    with desktop.database.reading() as transaction:
        assert list(transaction.sync_state.revisits()) == [(STRANGER, "000001-bbbbbbbb.jsonl")]
    laptop.sync(START)
    desktop.sync(START)
    assert taken_back not in _review_ids(laptop)
    converged([laptop, desktop], tmp_path, START)


def test_a_file_of_a_newer_format_is_read_whole_after_an_update(
    pair: tuple[Device, Device], shared: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    laptop, desktop = pair
    importing.import_deck(laptop.database, parse_deck(TINY, "tiny.json"), START)
    laptop.sync(START)
    desktop.sync(START)
    newer = sync_events.FORMAT + 1
    rename = _rename(_after_all(laptop), "Format next")
    _write(shared, STRANGER, "000001-cccccccc.jsonl", [_header(newer), rename])
    for _ in range(2):
        notes = "\n".join(desktop.sync(START).notes)
        assert f"newer Recall (format {newer})" in notes
        assert _deck_name(desktop, "tiny") == "Tiny deck"
    monkeypatch.setattr(sync_folder, "FORMAT", newer)  # the Recall that knows that format
    report = desktop.sync(START)
    assert report.received["deck"] == 1
    assert _deck_name(desktop, "tiny") == "Format next"


# 3. A sync folder this computer cannot write


def _outbox(device: Device) -> int:
    with device.database.reading() as transaction:
        return transaction.sync_state.outbox_end()


def _pending(device: Device) -> int:
    with device.database.reading() as transaction:
        return transaction.sync_state.pending_count()


def test_a_computer_that_cannot_write_still_receives_and_sends_its_changes_later(
    pair: tuple[Device, Device], shared: Path, tmp_path: Path
) -> None:
    laptop, desktop = pair
    importing.import_deck(laptop.database, parse_deck(TINY, "tiny.json"), START)
    laptop.sync(START)
    desktop.sync(START)
    desktop.study("tiny", 1, START, random.Random(1))
    own = shared / "Recall" / desktop.sync(START).device[0]
    later = START + timedelta(hours=2)
    laptop.study("tiny", 2, later, random.Random(2))
    laptop.sync(later)
    desktop.study("tiny", 2, later + timedelta(minutes=1), random.Random(4))
    files_before = sorted(path.name for path in own.iterdir())
    with read_only(own):
        report = desktop.sync(later)
        line = "\n".join(report.lines())
        assert "sending failed: the sync folder is read-only" in line
        assert "your changes are kept" in line
        assert "sent when it can be written" in line
        assert report.problem is not None
        assert report.sent == {}
        assert report.kept == 2 == _pending(desktop)  # the two answers, stamped, waiting
        assert _outbox(desktop) == 0
        assert report.received["review"] == 2  # the laptop's answers came in all the same
        assert len(desktop.review_rows()) == 5
        # Another round: nothing is kept twice; a new answer joins the waiting ones.
        desktop.study("tiny", 1, later + timedelta(minutes=2), random.Random(5))
        assert desktop.sync(later).kept == 3 == _pending(desktop)
    assert sorted(path.name for path in own.iterdir()) == files_before
    written = desktop.sync(later)
    assert written.problem is None
    assert written.sent["review"] == 3
    assert _pending(desktop) == 0
    assert laptop.sync(later).received["review"] == 3
    assert len(laptop.review_rows()) == 6
    converged([laptop, desktop], tmp_path, later)


def test_recall_sync_exits_1_when_it_could_not_send_and_0_once_it_has(
    pair: tuple[Device, Device], shared: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    laptop, desktop = pair
    importing.import_deck(desktop.database, parse_deck(TINY, "tiny.json"), START)
    own = shared / "Recall" / desktop.sync(START).device[0]
    desktop.study("tiny", 2, START + timedelta(minutes=1), random.Random(3))
    command = ["--data-dir", str(tmp_path / "desktop"), "sync"]
    capsys.readouterr()
    with read_only(own):
        assert main(command) == 1
        printed = capsys.readouterr().out
        assert "sent: nothing: sending failed: the sync folder is read-only" in printed
        assert "your changes are kept (" in printed
    assert main(command) == 0
    sent = capsys.readouterr().out.splitlines()[1]
    assert sent.startswith("sent: ")
    assert sent.endswith(", 2 reviews")  # and the bundled deck the command line installed
    assert laptop.sync(START + timedelta(minutes=2)).received["review"] == 2


def test_a_new_computer_on_a_read_only_folder_receives_and_sends_everything_once_it_can(
    pair: tuple[Device, Device], shared: Path, tmp_path: Path
) -> None:
    laptop, desktop = pair
    importing.import_deck(laptop.database, parse_deck(TINY, "tiny.json"), START)
    laptop.sync(START)
    with read_only(shared / "Recall"):
        first = desktop.sync(START)
        assert first.problem is None  # nothing to send yet: nothing failed
        assert desktop.deck_keys() == ["tiny"]
        desktop.study("tiny", 2, START, random.Random(7))
        report = desktop.sync(START)
        assert report.kept == -1
        assert "(everything)" in (report.not_sent() or "")
        assert "read-only" in (report.problem or "")
    assert desktop.sync(START).snapshot  # what could not go out goes now, all of it
    assert laptop.sync(START).received["review"] == 2
    converged([laptop, desktop], tmp_path, START)


def test_why_a_file_could_not_be_written_is_said_in_words() -> None:
    full = sync_folder.write_problem(OSError(errno.ENOSPC, "No space left on device"))
    assert full == "the disk of the sync folder is full"
    denied = sync_folder.write_problem(OSError(errno.EROFS, "Read-only file system"))
    assert denied == "the sync folder is read-only here"
    other = sync_folder.write_problem(OSError(errno.EIO, "Input/output error"))
    assert other == "the sync folder cannot be written"


def test_schema_11_upgraded_keeps_sync_state_and_gains_what_waits(tmp_path: Path) -> None:
    target = tmp_path / "data" / "recall.sqlite3"
    target.parent.mkdir()
    shutil.copyfile(DATA / "schema-11.sqlite3", target)
    database = Database(target)
    try:
        with database.transaction() as transaction:
            assert transaction.sync_state.pending_count() == 0
            assert transaction.sync_state.held_changes() == (0, None)
            assert transaction.sync_state.revisits() == {}
            transaction.sync_state.keep_pending(['{"type": "unreview", "id": "a", "review": "b"}'])
            transaction.sync_state.set_revisit("d" * 32, "f.jsonl", 10, "[]")
            transaction.sync_state.hold_changes([("e1", 5, "{}")])
        with database.reading() as transaction:
            assert list(transaction.sync_state.pending()) == [
                '{"type": "unreview", "id": "a", "review": "b"}'
            ]
            assert transaction.sync_state.revisits() == {("d" * 32, "f.jsonl"): (10, "[]")}
            assert transaction.sync_state.held_changes() == (1, 5)
    finally:
        database.close()
