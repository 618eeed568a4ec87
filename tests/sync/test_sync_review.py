"""Sync scenarios where devices could diverge or lose data: each names what went wrong once."""

from __future__ import annotations

import json
import random
import shutil
import sqlite3
import tracemalloc
from datetime import UTC, datetime, timedelta
from pathlib import Path

from recall.changes import decks as deck_changes
from recall.changes import editing
from recall.collection import importing
from recall.content.deck_format import parse_deck
from recall.options import deck_options
from recall.storage.records import DeckRow
from recall.sync.incoming import read_events
from recall.sync.rounds import sync
from tests.conftest import DATA
from tests.helpers.sync_devices import Device, card_content, card_id, converged

TINY = (DATA / "decks" / "tiny.json").read_text()
START = datetime(2026, 11, 2, 8, 0, tzinfo=UTC)


def _deck(device: Device, key: str) -> DeckRow:
    with device.database.reading() as transaction:
        return next(deck for deck in transaction.browsing.decks() if deck.key == key)


def _presets_of_decks(device: Device) -> dict[str, str]:
    """The name of the preset each deck uses, by deck key."""
    with device.database.reading() as transaction:
        presets = transaction.options.deck_presets()
        return {deck.key: presets.of_deck(deck.id).name for deck in transaction.browsing.decks()}


def _own_folder(device: Device) -> Path:
    with device.database.reading() as transaction:
        found = transaction.sync_state.device()
    assert found is not None
    return device.shared / "Recall" / found.id


def test_a_preset_that_arrives_after_the_deck_using_it_still_applies(
    trio: tuple[Device, Device, Device], tmp_path: Path
) -> None:
    laptop, desktop, tablet = trio
    importing.import_deck(laptop.database, parse_deck(TINY, "tiny.json"), START)
    laptop.study("tiny", 2, START, random.Random(2))
    laptop.sync(START)
    desktop.sync(START)
    tablet.sync(START)
    # The laptop makes a preset; the desktop, having seen it, gives it to the deck.
    preset = deck_options.add_preset(laptop.database, "Exam")
    deck_options.change_preset(
        laptop.database, laptop.schedulers, preset, {"desired_retention": 0.8}, START
    )
    later = START + timedelta(hours=1)
    laptop.sync(later)
    desktop.sync(later)
    with desktop.database.reading() as transaction:
        exam = next(
            preset_id
            for preset_id, (name, _) in transaction.sync_local.presets().items()
            if name == "Exam"
        )
    deck = _deck(desktop, "tiny")
    deck_options.apply(desktop.database, desktop.schedulers, {}, {deck.id: exam}, later)
    desktop.sync(later)
    # The tablet gets the desktop's file before the laptop's (a sync tool moves files in
    # any order): the deck names a preset it has not seen yet.
    laptop_files = _own_folder(laptop)
    hidden = tmp_path / "in-transit"
    shutil.move(laptop_files, hidden)
    tablet.sync(later)
    shutil.move(hidden, laptop_files)
    tablet.sync(later)
    for device in trio:
        device.sync(later)
    converged(list(trio), tmp_path, later)
    assert [_presets_of_decks(device) for device in trio] == [{"tiny": "Exam"}] * 3


def test_an_edit_made_while_a_round_runs_is_not_overwritten_by_what_comes_in(
    trio: tuple[Device, Device, Device], tmp_path: Path
) -> None:
    laptop, desktop, _ = trio
    importing.import_deck(laptop.database, parse_deck(TINY, "tiny.json"), START)
    laptop.sync(START)
    desktop.sync(START)
    desktop.changes().tag([card_id(desktop, "tiny", "b1")], START, add=["geography"])
    later = START + timedelta(hours=1)
    desktop.sync(later)
    edited = False

    def edit_between_sending_and_receiving(text: str) -> None:
        # The window runs a round off its thread; the learner edits meanwhile.
        nonlocal edited
        if text.startswith("Looking") and not edited:
            edited = True
            card = card_id(laptop, "tiny", "b1")
            data = editing.card_data(json.dumps(card_content(laptop, "tiny", "b1")))
            editing.edit_card(laptop.database, card, {**data, "back": "Paris!"}, later)

    sync(
        laptop.database,
        later,
        laptop.shared,
        laptop.name,
        laptop.schedulers,
        describe=edit_between_sending_and_receiving,
    )
    assert edited
    for _ in range(2):
        laptop.sync(later)
        desktop.sync(later)
    for device in (laptop, desktop):
        content = card_content(device, "tiny", "b1")
        assert content["back"] == "Paris!", device.name
        assert "geography" in content["tags"], device.name
    converged([laptop, desktop], tmp_path, later)


def test_a_card_moved_away_and_back_keeps_living_with_its_history(
    trio: tuple[Device, Device, Device], tmp_path: Path
) -> None:
    laptop, desktop, _ = trio
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
    laptop.changes().move([card_id(laptop, target.key, "q1")], _deck(laptop, "tiny"))
    laptop.sync(later)
    desktop.sync(later)
    laptop.sync(later)
    for device in (laptop, desktop):
        assert card_id(device, "tiny", "q1-2")
        assert len(device.review_rows()) == 2, device.name
    converged([laptop, desktop], tmp_path, later)


def test_a_line_with_a_number_too_large_to_store_is_skipped_and_sync_goes_on(
    trio: tuple[Device, Device, Device], tmp_path: Path
) -> None:
    laptop, desktop, _ = trio
    importing.import_deck(laptop.database, parse_deck(TINY, "tiny.json"), START)
    laptop.study("tiny", 1, START, random.Random(4))
    report = laptop.sync(START)
    assert report.file is not None
    own = _own_folder(laptop)
    lines = (own / report.file).read_bytes().splitlines()
    review = next(json.loads(line) for line in lines if b'"review"' in line)
    broken = {**review, "id": "f" * 32, "duration_ms": 10**30}
    stranger = laptop.shared / "Recall" / ("e" * 32)
    stranger.mkdir()
    header = {"recall_sync": 1, "device": "e" * 32, "name": "odd", "written": 0}
    (stranger / "000001-00000000.jsonl").write_bytes(
        b"\n".join(json.dumps(item).encode() for item in (header, broken)) + b"\n"
    )
    first = desktop.sync(START)
    assert any("1 line that is not an event Recall can merge" in note for note in first.notes)
    laptop.study("tiny", 1, START + timedelta(hours=1), random.Random(5))
    later = START + timedelta(hours=2)
    laptop.sync(later)
    desktop.sync(later)
    assert len(desktop.review_rows()) == 2
    converged([laptop, desktop], tmp_path, later)


def test_a_review_made_before_learning_of_a_move_follows_the_card(
    trio: tuple[Device, Device, Device], tmp_path: Path
) -> None:
    laptop, desktop, tablet = trio
    importing.import_deck(laptop.database, parse_deck(TINY, "tiny.json"), START)
    for device in trio:
        device.sync(START)
    deck_changes.new_deck(laptop.database, "Arithmetic", START)
    target = _deck(laptop, "arithmetic")
    laptop.changes().move([card_id(laptop, "tiny", "q1")], target)
    later = START + timedelta(hours=1)
    laptop.sync(later)
    # The desktop studies the card before the move reaches it.
    assert desktop.study("tiny", 2, later, random.Random(6)) == 2
    for device in (desktop, laptop, tablet, desktop, laptop):
        device.sync(later + timedelta(hours=1))
    for device in trio:
        assert len(device.review_rows()) == 2, device.name
        assert card_id(device, "arithmetic", "q1")
    converged(list(trio), tmp_path, later + timedelta(hours=1))


def test_a_card_moved_under_a_new_key_can_be_studied_there_and_moved_back(
    trio: tuple[Device, Device, Device],
) -> None:
    laptop = trio[0]
    importing.import_deck(laptop.database, parse_deck(TINY, "tiny.json"), START)
    laptop.sync(START)
    deck_changes.new_deck(laptop.database, "Arithmetic", START)
    laptop.changes().move([card_id(laptop, "tiny", "q1")], _deck(laptop, "arithmetic"))
    laptop.sync(START)
    card = card_id(laptop, "arithmetic", "q1")
    changes = laptop.changes()
    changes.move([card], _deck(laptop, "tiny"))  # q1 there was deleted for good
    assert card_content(laptop, "tiny", "q1-2")["id"] == "q1-2"
    assert laptop.study("tiny", 2, START, random.Random(1)) == 2
    changes.undo()
    assert card_content(laptop, "arithmetic", "q1")["id"] == "q1"
    assert laptop.healthy(START) == []


def test_the_same_deck_imported_on_two_computers_before_their_first_sync_is_one(
    trio: tuple[Device, Device, Device], tmp_path: Path
) -> None:
    laptop, desktop, tablet = trio
    for index, device in enumerate(trio[:2]):
        importing.import_deck(device.database, parse_deck(TINY, "tiny.json"), START)
        device.study("tiny", 1, START + timedelta(minutes=index), random.Random(index))
    deck_changes.rename_deck(laptop.database, _deck(laptop, "tiny").id, "Laptop's", START)
    later = START + timedelta(hours=1)
    for device in (laptop, desktop, tablet, laptop, desktop):
        device.sync(later)
    assert len(tablet.review_rows()) == 2
    assert {_deck(device, "tiny").name for device in trio} == {"Laptop's"}
    converged(list(trio), tmp_path, later)


def test_a_deck_deleted_while_its_card_is_studied_elsewhere_is_gone_everywhere(
    trio: tuple[Device, Device, Device], tmp_path: Path
) -> None:
    laptop, desktop, tablet = trio
    importing.import_deck(laptop.database, parse_deck(TINY, "tiny.json"), START)
    for device in trio:
        device.sync(START)
    deck_changes.delete_deck(laptop.database, _deck(laptop, "tiny").id, START)
    desktop.study("tiny", 2, START, random.Random(3))
    later = START + timedelta(hours=1)
    for device in (desktop, tablet, laptop, desktop, tablet):
        device.sync(later)
    assert [device.deck_keys() for device in trio] == [[], [], []]
    converged(list(trio), tmp_path, later)


def test_a_round_killed_after_its_file_was_written_but_before_it_was_recorded(
    tmp_path: Path,
) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    laptop, desktop = Device(tmp_path, "laptop", shared), Device(tmp_path, "desktop", shared)
    importing.import_deck(laptop.database, parse_deck(TINY, "tiny.json"), START)
    laptop.sync(START)
    desktop.sync(START)
    laptop.study("tiny", 2, START, random.Random(7))
    card = card_id(laptop, "tiny", "b1")
    laptop.changes().tag([card], START, add=["killed"])
    before = tmp_path / "before.sqlite3"
    source, copy = sqlite3.connect(tmp_path / "laptop" / "recall.sqlite3"), sqlite3.connect(before)
    source.backup(copy)
    copy.close()
    source.close()
    later = START + timedelta(hours=1)
    assert laptop.sync(later).file is not None
    laptop.close()
    # The database as it was when the round was killed: the file is there, unrecorded.
    for suffix in ("", "-wal", "-shm"):
        (tmp_path / "laptop" / f"recall.sqlite3{suffix}").unlink(missing_ok=True)
    shutil.copy(before, tmp_path / "laptop" / "recall.sqlite3")
    laptop = Device(tmp_path, "laptop", shared)
    try:
        laptop.changes().tag([card], later, add=["after"])
        for device in (laptop, desktop, laptop, desktop):
            device.sync(later)
        for device in (laptop, desktop):
            assert len(device.review_rows()) == 2
            tags = card_content(device, "tiny", "b1")["tags"]
            assert isinstance(tags, list)
            assert {"killed", "after"} <= set(tags)
        converged([laptop, desktop], tmp_path, later)
    finally:
        laptop.close()
        desktop.close()


def test_a_file_is_read_line_by_line_and_never_held_whole(tmp_path: Path) -> None:
    device = "a" * 32
    (tmp_path / device).mkdir()
    path = tmp_path / device / "000001-00000000.jsonl"
    review = {
        "type": "review",
        "deck": "big",
        "at": 1_793_606_400_000_000,
        "kind": 0,
        "rating": 3,
        "duration_ms": 4000,
        "state_before": 2,
        "picked": None,
        "correct": True,
        "set_due": None,
        "proposed": 3,
    }
    with path.open("wb") as out:
        out.write(b'{"recall_sync": 1, "name": "big"}\n')
        for n in range(20_000):
            line = {**review, "id": f"{n:032x}", "card": f"c{n}"}
            out.write(json.dumps(line, separators=(",", ":")).encode() + b"\n")
        out.write(b'{"type":"review","id":"partly arrived')
    tracemalloc.start()
    try:
        read = read_events(tmp_path, device, path.name, 0, "b" * 32)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert not isinstance(read, str)
    assert (read.name, len(read.events), read.unknown, read.bad) == ("big", 20_000, {}, 0)
    assert read.end == path.stat().st_size - len(b'{"type":"review","id":"partly arrived')
    # The events themselves, not the file's bytes beside them (read whole, it took 2.9
    # times the file's size).
    assert peak < 2 * path.stat().st_size


def test_undoing_a_move_after_it_was_synced_keeps_the_card_and_its_history(
    trio: tuple[Device, Device, Device], tmp_path: Path
) -> None:
    laptop, desktop, _ = trio
    importing.import_deck(laptop.database, parse_deck(TINY, "tiny.json"), START)
    laptop.study("tiny", 2, START, random.Random(8))
    laptop.sync(START)
    desktop.sync(START)
    deck_changes.new_deck(laptop.database, "Arithmetic", START)
    changes = laptop.changes()
    changes.move([card_id(laptop, "tiny", "q1")], _deck(laptop, "arithmetic"))
    later = START + timedelta(hours=1)
    laptop.sync(later)
    desktop.sync(later)
    changes.undo()  # back to tiny/q1, a key the others hold as deleted
    for device in (laptop, desktop, laptop, desktop):
        device.sync(later)
    for device in (laptop, desktop):
        assert len(device.review_rows()) == 2, device.name
        assert len(device.card_ids()) == 2, device.name
    converged([laptop, desktop], tmp_path, later)


def test_of_two_edits_of_one_field_the_later_wins_whichever_computer_syncs_last(
    trio: tuple[Device, Device, Device], tmp_path: Path
) -> None:
    laptop, desktop, _ = trio
    importing.import_deck(laptop.database, parse_deck(TINY, "tiny.json"), START)
    laptop.sync(START)
    desktop.sync(START)
    for device, text in ((laptop, "Paris (earlier)"), (desktop, "Paris (later)")):
        card = card_id(device, "tiny", "b1")
        data = editing.card_data(json.dumps(card_content(device, "tiny", "b1")))
        editing.edit_card(device.database, card, {**data, "back": text}, START)
        device.clock.advance(0.002)  # a change is timed by SQLite's clock, to the millisecond
    later = START + timedelta(hours=1)
    for device in (desktop, laptop, desktop):  # the earlier edit is synced last
        device.sync(later)
    for device in (laptop, desktop):
        assert card_content(device, "tiny", "b1")["back"] == "Paris (later)", device.name
    converged([laptop, desktop], tmp_path, later)


def test_two_presets_of_one_name_made_apart_are_named_alike_everywhere(
    trio: tuple[Device, Device, Device], tmp_path: Path
) -> None:
    laptop, desktop, _ = trio
    importing.import_deck(laptop.database, parse_deck(TINY, "tiny.json"), START)
    laptop.sync(START)
    desktop.sync(START)
    for device, retention in ((laptop, 0.8), (desktop, 0.95)):
        preset = deck_options.add_preset(device.database, "Exam")
        deck_options.change_preset(
            device.database, device.schedulers, preset, {"desired_retention": retention}, START
        )
    deck_options.apply(laptop.database, laptop.schedulers, {}, {_deck(laptop, "tiny").id: 2}, START)
    later = START + timedelta(hours=1)
    for device in (laptop, desktop, laptop, desktop):
        device.sync(later)

    def presets(device: Device) -> dict[str, float]:
        with device.database.reading() as transaction:
            found = transaction.options.deck_presets().presets.values()
            return {preset.name: preset.desired_retention for preset in found}

    assert presets(laptop) == presets(desktop)
    assert _presets_of_decks(laptop) == _presets_of_decks(desktop)
    converged([laptop, desktop], tmp_path, later)


def test_a_computer_joining_after_a_retired_computers_folder_was_deleted_gets_its_history(
    trio: tuple[Device, Device, Device], tmp_path: Path
) -> None:
    laptop, desktop, tablet = trio
    importing.import_deck(laptop.database, parse_deck(TINY, "tiny.json"), START)
    laptop.sync(START)
    desktop.sync(START)
    desktop.sync(START)  # the desktop has written its own snapshot
    laptop.study("tiny", 2, START, random.Random(5))
    laptop.sync(START)
    desktop.sync(START)
    shutil.rmtree(_own_folder(laptop))  # the laptop is retired, its folder cleaned away
    later = START + timedelta(hours=1)
    desktop.sync(later)
    tablet.sync(later)
    assert len(tablet.review_rows()) == 2
    converged([desktop, tablet], tmp_path, later)


def test_a_review_waiting_for_its_time_follows_its_card_moved_meanwhile(
    trio: tuple[Device, Device, Device], tmp_path: Path
) -> None:
    laptop, desktop, _ = trio
    importing.import_deck(laptop.database, parse_deck(TINY, "tiny.json"), START)
    laptop.sync(START)
    desktop.sync(START)
    ahead = START + timedelta(hours=3)  # the desktop's clock runs three hours ahead
    desktop.study("tiny", 1, ahead, random.Random(0))
    desktop.sync(ahead)
    assert laptop.sync(START).received["review"] == 1  # held until its time comes
    deck_changes.new_deck(laptop.database, "Moved", START)
    laptop.changes().move([card_id(laptop, "tiny", "q1")], _deck(laptop, "moved"))
    day = START + timedelta(days=1)
    for device in (laptop, desktop, laptop, desktop):
        device.sync(day)
    assert laptop.review_log() == desktop.review_log()
    with laptop.database.reading() as transaction:
        _, moved = transaction.sync_local.cards([("moved", "q1")])[("moved", "q1")]
    assert [row[0] for row in laptop.review_rows()] == [str(moved["seed"])]
    converged([laptop, desktop], tmp_path, day)
