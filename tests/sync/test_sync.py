"""Sync through a shared folder: two or three devices, real files, every merge case by hand."""

from __future__ import annotations

import json
import random
import shutil
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from recall.changes import decks as deck_changes
from recall.changes import editing
from recall.collection import importing
from recall.content.deck_format import parse_deck
from recall.options import deck_options
from recall.sync.clock import Clock, newer
from recall.sync.rounds import NoSyncFolderError
from tests.conftest import DATA
from tests.helpers.sync_devices import Device, card_content, card_id, converged

TINY = (DATA / "decks" / "tiny.json").read_text()
START = datetime(2026, 11, 2, 8, 0, tzinfo=UTC)


def test_the_clock_follows_the_wall_clock_and_never_goes_back() -> None:
    clock = Clock(100)
    assert clock.tick(500) == 500
    assert clock.tick(400) == 501  # the wall clock went back: the stamp did not
    clock.observe(10_000)  # a device whose clock runs ahead
    assert clock.tick(600) == 10_001
    assert newer(5, "b", None, [5, "a", None])
    assert not newer(5, "a", None, [5, "b", None])
    assert not newer(4, "z", None, [5, "a", None])
    # One device stamping two values alike: the greater by canonical JSON, either way round.
    assert newer(5, "a", "Zebra", [5, "a", "Apple"])
    assert not newer(5, "a", "Apple", [5, "a", "Zebra"])


def test_a_deck_imported_on_one_device_arrives_on_the_other(
    pair: tuple[Device, Device], tmp_path: Path
) -> None:
    laptop, desktop = pair
    importing.import_deck(laptop.database, parse_deck(TINY, "tiny.json"), START)
    first = laptop.sync(START)
    assert first.snapshot
    assert first.sent["card"] == 2
    report = desktop.sync(START)
    assert report.received["card"] == 2
    assert report.devices == [(first.device[0], "laptop")]
    assert "tiny" in desktop.deck_keys()
    converged([laptop, desktop], tmp_path, START)


def test_reviews_on_both_devices_all_count(pair: tuple[Device, Device], tmp_path: Path) -> None:
    laptop, desktop = pair
    importing.import_deck(laptop.database, parse_deck(TINY, "tiny.json"), START)
    laptop.sync(START)
    desktop.sync(START)
    rng = random.Random(3)
    assert laptop.study("tiny", 2, START + timedelta(hours=1), rng) == 2
    assert desktop.study("tiny", 2, START + timedelta(hours=2), rng) == 2
    later = START + timedelta(hours=3)
    for _ in range(2):
        laptop.sync(later)
        desktop.sync(later)
    assert len(laptop.review_rows()) == 4
    converged([laptop, desktop], tmp_path, later)
    # A round with nothing new sends and receives nothing.
    quiet = laptop.sync(later)
    assert not quiet.sent
    assert not quiet.received


def test_edits_of_different_fields_both_survive_and_the_latest_edit_of_one_wins(
    pair: tuple[Device, Device], tmp_path: Path
) -> None:
    laptop, desktop = pair
    importing.import_deck(laptop.database, parse_deck(TINY, "tiny.json"), START)
    laptop.sync(START)
    desktop.sync(START)
    laptop_card = card_id(laptop, "tiny", "b1")
    desktop_card = card_id(desktop, "tiny", "b1")
    data = editing.card_data(json.dumps(card_content(laptop, "tiny", "b1")))
    editing.edit_card(
        laptop.database, laptop_card, {**data, "front": "Capital of France, again?"}, START
    )
    desktop.changes().tag([desktop_card], START, add=["geography"])
    later = START + timedelta(hours=1)
    desktop.sync(later)
    laptop.sync(later)
    desktop.sync(later)
    for device in (laptop, desktop):
        content = card_content(device, "tiny", "b1")
        assert content["front"] == "Capital of France, again?"
        assert "geography" in content["tags"]
    # The same field edited on both: the edit made later wins on both.
    editing.edit_card(laptop.database, laptop_card, {**data, "back": "Paris (laptop)"}, later)
    # A change is stamped by the clock when it is written, to the millisecond: the desktop's
    # edit comes a few milliseconds after the laptop's.
    desktop.clock.advance(0.005)
    desktop_data = editing.card_data(json.dumps(card_content(desktop, "tiny", "b1")))
    editing.edit_card(
        desktop.database, desktop_card, {**desktop_data, "back": "Paris (desktop)"}, later
    )
    laptop.sync(later)
    desktop.sync(later)
    laptop.sync(later)
    assert card_content(laptop, "tiny", "b1")["back"] == "Paris (desktop)"
    assert card_content(desktop, "tiny", "b1")["back"] == "Paris (desktop)"
    converged([laptop, desktop], tmp_path, later)


def test_a_deletion_wins_over_a_review_made_meanwhile(
    pair: tuple[Device, Device], tmp_path: Path
) -> None:
    laptop, desktop = pair
    importing.import_deck(laptop.database, parse_deck(TINY, "tiny.json"), START)
    laptop.sync(START)
    desktop.sync(START)
    later = START + timedelta(hours=1)
    laptop.changes().delete([card_id(laptop, "tiny", "q1")], later)
    desktop.study("tiny", 2, later, random.Random(1))
    desktop.sync(later)
    laptop.sync(later)
    desktop.sync(later)
    for device in (laptop, desktop):
        with device.database.reading() as transaction:
            assert transaction.sync_local.cards([("tiny", "q1")]) == {}
    converged([laptop, desktop], tmp_path, later)


def test_suspension_flag_and_a_deleted_deck_travel(
    pair: tuple[Device, Device], tmp_path: Path
) -> None:
    laptop, desktop = pair
    importing.import_deck(laptop.database, parse_deck(TINY, "tiny.json"), START)
    laptop.sync(START)
    desktop.sync(START)
    card = card_id(laptop, "tiny", "q1")
    laptop.changes().suspend([card])
    laptop.changes().flag([card], 3)
    laptop.sync(START)
    desktop.sync(START)
    with desktop.database.reading() as transaction:
        _, columns = transaction.sync_local.cards([("tiny", "q1")])[("tiny", "q1")]
    assert columns["suspended"] is True
    assert columns["flag"] == 3
    with desktop.database.reading() as transaction:
        deck = transaction.decks.by_key("tiny")
    assert deck is not None
    deck_changes.delete_deck(desktop.database, deck.id, START)
    desktop.sync(START)
    laptop.sync(START)
    assert "tiny" not in laptop.deck_keys()
    converged([laptop, desktop], tmp_path, START)


def test_an_undone_review_is_taken_back_everywhere(
    pair: tuple[Device, Device], tmp_path: Path
) -> None:
    laptop, desktop = pair
    importing.import_deck(laptop.database, parse_deck(TINY, "tiny.json"), START)
    laptop.sync(START)
    desktop.sync(START)
    from recall.study.session import StudySession

    session = StudySession(laptop.database, laptop.schedulers, "tiny", rng=random.Random(2))
    shown = session.next_card(START)
    assert shown is not None
    session.record(session.reveal(shown, START), session.reveal(shown, START).proposed, START)
    laptop.sync(START)
    desktop.sync(START)
    assert len(desktop.review_rows()) == 1
    session.undo(START)
    report = laptop.sync(START)
    assert report.sent["unreview"] == 1
    desktop.sync(START)
    assert desktop.review_rows() == []
    converged([laptop, desktop], tmp_path, START)


def test_a_preset_and_its_options_travel_and_reschedule(
    pair: tuple[Device, Device], tmp_path: Path
) -> None:
    laptop, desktop = pair
    importing.import_deck(laptop.database, parse_deck(TINY, "tiny.json"), START)
    laptop.sync(START)
    desktop.sync(START)
    laptop.study("tiny", 2, START, random.Random(5))
    preset = deck_options.add_preset(laptop.database, "Exam")
    with laptop.database.reading() as transaction:
        deck = transaction.decks.by_key("tiny")
    assert deck is not None
    deck_options.apply(laptop.database, laptop.schedulers, {}, {deck.id: preset}, START)
    deck_options.change_preset(
        laptop.database, laptop.schedulers, preset, {"desired_retention": 0.8}, START
    )
    laptop.sync(START)
    desktop.sync(START)
    options = deck_options.deck_options(desktop.database, "tiny")
    assert options.preset.name == "Exam"
    assert options.preset.desired_retention == 0.8
    converged([laptop, desktop], tmp_path, START)


def test_a_partly_arrived_file_is_read_to_its_last_complete_line(
    pair: tuple[Device, Device], shared: Path, tmp_path: Path
) -> None:
    laptop, desktop = pair
    importing.import_deck(laptop.database, parse_deck(TINY, "tiny.json"), START)
    report = laptop.sync(START)
    assert report.file is not None
    folder = shared / "Recall" / report.device[0]
    whole = (folder / report.file).read_bytes()
    cut = whole.rfind(b'{"type":"card"')  # the last card's line only partly there
    (folder / report.file).write_bytes(whole[: cut + 20])
    desktop.sync(START)
    assert desktop.review_rows() == []
    with desktop.database.reading() as transaction:
        assert len(transaction.sync_local.cards([("tiny", "q1"), ("tiny", "b1")])) == 1
    (folder / report.file).write_bytes(whole)  # the rest arrives
    desktop.sync(START)
    converged([laptop, desktop], tmp_path, START)


def test_conflict_copies_and_duplicates_change_nothing(
    pair: tuple[Device, Device], shared: Path, tmp_path: Path
) -> None:
    laptop, desktop = pair
    importing.import_deck(laptop.database, parse_deck(TINY, "tiny.json"), START)
    laptop.sync(START)
    desktop.sync(START)
    laptop.study("tiny", 2, START, random.Random(4))
    report = laptop.sync(START)
    assert report.file is not None
    folder = shared / "Recall" / report.device[0]
    stem = report.file.removesuffix(".jsonl")
    shutil.copy(
        folder / report.file, folder / f"{stem}.sync-conflict-20261102-090000-ABCDEFG.jsonl"
    )
    shutil.copy(
        folder / report.file, folder / f"{stem} (desktop's conflicted copy 2026-11-02).jsonl"
    )
    merged = desktop.sync(START)
    assert merged.received["review"] == 6  # three copies of two reviews, kept once
    assert len(desktop.review_rows()) == 2
    converged([laptop, desktop], tmp_path, START)


def test_unknown_events_and_newer_files_are_kept_and_skipped_with_a_note(
    pair: tuple[Device, Device], shared: Path, tmp_path: Path
) -> None:
    laptop, desktop = pair
    importing.import_deck(laptop.database, parse_deck(TINY, "tiny.json"), START)
    laptop.sync(START)
    future_device = shared / "Recall" / ("f" * 32)
    future_device.mkdir()
    (future_device / "000001-aaaaaaaa.jsonl").write_text(
        json.dumps({"recall_sync": 1, "device": "f" * 32, "name": "newer"})
        + "\n"
        + json.dumps({"type": "hologram", "id": "x"})
        + "\n"
        + "not json at all\n"
    )
    (future_device / "000002-bbbbbbbb.jsonl").write_text(
        json.dumps({"recall_sync": 9, "device": "f" * 32, "name": "newer"}) + "\n"
    )
    report = desktop.sync(START)
    notes = "\n".join(report.notes)
    assert "1 event of a type 'hologram' (from a newer Recall) skipped; it stays" in notes
    assert "000001-aaaaaaaa.jsonl: 1 line that is not an event Recall can merge" in notes
    assert "newer Recall (format 9)" in notes
    assert (future_device / "000002-bbbbbbbb.jsonl").exists()
    assert "tiny" in desktop.deck_keys()
    converged([laptop, desktop], tmp_path, START)


def test_a_deleted_device_folder_is_written_again_and_nothing_is_lost(
    pair: tuple[Device, Device], shared: Path, tmp_path: Path
) -> None:
    laptop, desktop = pair
    importing.import_deck(laptop.database, parse_deck(TINY, "tiny.json"), START)
    laptop.sync(START)
    laptop.study("tiny", 2, START, random.Random(6))
    report = laptop.sync(START)
    shutil.rmtree(shared / "Recall" / report.device[0])
    again = laptop.sync(START)
    assert again.snapshot
    assert again.sent["review"] == 2
    third = Device(tmp_path, "tablet", shared)
    try:
        third.sync(START)
        converged([laptop, third], tmp_path, START)
    finally:
        third.close()
    desktop.sync(START)
    converged([laptop, desktop], tmp_path, START)


def test_the_folder_is_remembered_and_required(tmp_path: Path, shared: Path) -> None:
    from recall.storage import Database
    from recall.sync.rounds import sync

    database = Database(tmp_path / "alone" / "recall.sqlite3")
    try:
        with pytest.raises(NoSyncFolderError):
            sync(database, START)
        sync(database, START, shared)
        assert sync(database, START).folder == shared
    finally:
        database.close()


def test_a_card_moved_to_another_deck_takes_its_history_along(
    pair: tuple[Device, Device], tmp_path: Path
) -> None:
    laptop, desktop = pair
    importing.import_deck(laptop.database, parse_deck(TINY, "tiny.json"), START)
    laptop.study("tiny", 2, START, random.Random(8))
    laptop.sync(START)
    desktop.sync(START)
    deck_changes.new_deck(laptop.database, "Arithmetic", START)
    with laptop.database.reading() as transaction:
        target = next(deck for deck in transaction.browsing.decks() if deck.name == "Arithmetic")
    laptop.changes().move([card_id(laptop, "tiny", "q1")], target)
    later = START + timedelta(hours=1)
    laptop.sync(later)
    desktop.sync(later)
    with desktop.database.reading() as transaction:
        moved = list(transaction.sync_local.cards([(target.key, "q1")]))
    assert moved == [(target.key, "q1")]
    assert len(desktop.review_rows()) == 2
    converged([laptop, desktop], tmp_path, later)


def test_reviews_from_a_clock_running_ahead_wait_until_their_time(
    pair: tuple[Device, Device], tmp_path: Path
) -> None:
    laptop, desktop = pair
    importing.import_deck(laptop.database, parse_deck(TINY, "tiny.json"), START)
    laptop.sync(START)
    desktop.sync(START)
    ahead = START + timedelta(hours=2)  # the laptop's clock runs two hours ahead
    laptop.study("tiny", 2, ahead, random.Random(9))
    laptop.sync(ahead)
    report = desktop.sync(START)
    assert (
        "2 reviews dated after now (another computer's clock runs ahead?) wait until that time"
        in report.notes
    )
    assert desktop.review_rows() == []
    assert desktop.healthy(START) == []  # recall check holds meanwhile
    later = desktop.sync(ahead + timedelta(minutes=1))
    assert not any("held" in note for note in later.notes)
    converged([laptop, desktop], tmp_path, ahead + timedelta(minutes=1))


def test_a_card_that_is_not_a_card_is_left_out_with_a_note(
    pair: tuple[Device, Device], shared: Path, tmp_path: Path
) -> None:
    laptop, desktop = pair
    importing.import_deck(laptop.database, parse_deck(TINY, "tiny.json"), START)
    laptop.sync(START)
    desktop.sync(START)
    broken = shared / "Recall" / ("e" * 32)
    broken.mkdir()
    event = {
        "type": "card",
        "id": "1" * 32,
        "stamp": 190_000_000_000_000_000,  # in the year 8000: held, with a note
        "device": "e" * 32,
        "deck": "tiny",
        "card": "q1",
        "fields": {"content.choices": [[]]},  # a choice card without choices
    }
    (broken / "000001-00000000.jsonl").write_text(
        json.dumps({"recall_sync": 1, "device": "e" * 32, "name": "broken"})
        + "\n"
        + json.dumps(event)
        + "\n"
    )
    report = desktop.sync(START)
    assert any("more than a year ahead" in note for note in report.notes)
    with desktop.database.reading() as transaction:
        stamped = transaction.sync_state.entities([("card", "tiny", "q1")])[("card", "tiny", "q1")]
    event["stamp"] = max(int(field[0]) for field in stamped.values()) + 1  # the latest
    event["id"] = "2" * 32
    (broken / "000002-00000000.jsonl").write_text(
        json.dumps({"recall_sync": 1, "device": "e" * 32, "name": "broken"})
        + "\n"
        + json.dumps(event)
        + "\n"
    )
    report = desktop.sync(START)
    assert any("tiny/q1" in note and "not a card" in note for note in report.notes)
    assert card_content(desktop, "tiny", "q1") == card_content(laptop, "tiny", "q1")
    assert desktop.healthy(START) == []


def test_recall_sync_prints_what_went_out_and_came_in(
    tmp_path: Path, shared: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from recall.cli.main import main

    laptop, desktop = str(tmp_path / "laptop"), str(tmp_path / "desktop")
    assert main(["--data-dir", laptop, "import", str(DATA / "decks" / "tiny.json")]) == 0
    folder = ["--folder", str(shared)]
    assert main(["--data-dir", laptop, "sync", *folder, "--name", "laptop"]) == 0
    assert main(["--data-dir", desktop, "sync", *folder, "--name", "desktop"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[-5].startswith("synced desktop (")
    assert out[-4] == "sent: 8 cards, 1 deck (everything)"  # its bundled deck
    assert out[-3] == "received: 10 cards, 2 decks"
    # Its bundled deck's cards take the seeds the laptop sent first, and are replayed.
    assert out[-2] == "rescheduled 8 cards from their merged history"
    assert out[-1].startswith("devices seen: 1: laptop (")
    assert main(["--data-dir", desktop, "sync"]) == 0  # the folder is remembered
    assert capsys.readouterr().out.splitlines()[1:3] == ["sent: nothing", "received: nothing"]
    assert main(["--data-dir", str(tmp_path / "third"), "sync"]) == 1
    assert "no sync folder chosen" in capsys.readouterr().err
