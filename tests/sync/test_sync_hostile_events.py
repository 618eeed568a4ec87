"""Events another computer wrote that no import would accept: each is set aside once with a
note saying what was wrong, and the rest, from that computer too, still arrives."""

from __future__ import annotations

import json
import random
import sqlite3
from collections.abc import Iterator
from contextlib import closing
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from recall.collection import deck_list as library
from recall.collection import importing
from recall.content.deck_format import parse_deck
from recall.core import deck_tree
from tests.helpers.sync_devices import Device

START = datetime(2026, 11, 2, 8, 0, tzinfo=UTC)
STAMP = int(START.timestamp()) * 1_000_000
WRITER = "b" * 32


def write_folder(shared: Path, lines: list[str], name: str = "000001-0000000a.jsonl") -> Path:
    """Another computer's file, written by hand: its header, then ``lines``."""
    folder = shared / "Recall" / WRITER
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    header = json.dumps({"recall_sync": 1, "device": WRITER, "name": "hostile"})
    path.write_text(header + "\n" + "".join(line + "\n" for line in lines))
    return path


def deck_event(key: str, name: str, stamp: int = STAMP, **more: Any) -> str:
    fields = {"name": name, "description": "", "preset": "default", **more}
    return json.dumps(
        {"type": "deck", "id": f"deck-{key}-{stamp}", "stamp": stamp, "device": WRITER,
         "deck": key, "fields": fields}
    )  # fmt: skip


def card_event(deck: str, card: str, stamp: int = STAMP, **more: Any) -> str:
    fields = {"kind": "basic", "position": 0, "content.id": [card], "content.type": ["basic"],
              "content.front": [f"Front {card}"], "content.back": ["Back"], **more}  # fmt: skip
    return json.dumps(
        {"type": "card", "id": f"card-{deck}-{card}-{stamp}-{len(json.dumps(fields))}",
         "stamp": stamp, "device": WRITER, "deck": deck, "card": card, "fields": fields}
    )  # fmt: skip


def review_event(deck: str, card: str, uid: str, at: int, **more: Any) -> str:
    review = {"type": "review", "id": uid, "deck": deck, "card": card, "at": at, "kind": 0,
              "rating": 3, "duration_ms": 4000, "state_before": 0, "picked": None,
              "correct": True, "set_due": None, "proposed": None, **more}  # fmt: skip
    return json.dumps(review)


def preset_event(uid: str, stamp: int = STAMP, **config: Any) -> str:
    fields = {
        "name": f"Preset {uid}",
        **{f"config.{key}": [value] for key, value in config.items()},
    }
    return json.dumps(
        {"type": "preset", "id": f"preset-{uid}-{stamp}", "stamp": stamp, "device": WRITER,
         "preset": uid, "fields": fields}
    )  # fmt: skip


@pytest.fixture
def receiver(tmp_path: Path, shared: Path) -> Iterator[Device]:
    device = Device(tmp_path, "desktop", shared, fuzz=False)
    yield device
    device.close()


def _good(shared: Path, lines: list[str], name: str = "000002-0000000b.jsonl") -> None:
    """A later file of the same computer with a deck, a card and its review in it."""
    write_folder(
        shared,
        [deck_event("good", "Good deck"), card_event("good", "g1"),
         review_event("good", "g1", "r-good", STAMP - 3_600_000_000), *lines],
        name,
    )  # fmt: skip


DEEP = "[" * 200_000 + "]" * 200_000
HOSTILE = {
    "deep-event": DEEP,
    "deep-object": '{"type":"deck","fields":' + '{"a":' * 100 + "1" + "}" * 101,
    "steps-1e20": preset_event("p1", learning_steps=[1e20]),
    "parameters-huge": preset_event("p2", parameters=[10**400] * 21),
    "parameters-out-of-fsrs-bounds": preset_event("p3", parameters=[1000.0] * 21),
    "extra-until-year-1": preset_event("p4", extra_until="0001-01-01T00:00:00+00:00"),
    "deck-name-20000-levels": deck_event("deep", "::".join(["a"] * 20_000)),
    "review-at-lowest": review_event("good", "g1", "r-low", -(2**63)),
    "buried-until-lowest": card_event("good", "g2", buried_until=-(2**63)),
    "buried-until-highest": card_event("good", "g3", buried_until=2**63 - 1),
    "stamp-negative": deck_event("neg", "Negative", stamp=-5),
    "duration-huge": review_event("good", "g1", "r-long", STAMP, duration_ms=2**62),
    "position-huge": card_event("good", "g4", position=2**62),
    "flag-nine": card_event("good", "g5", flag=9),
    "description-long": deck_event("long", "Long", description="x" * 70_000),
    "kind-six": review_event("good", "g1", "r-six", STAMP, kind=6, picked=["a"]),
    "follow-up-with-due": review_event(
        "good", "g1", "r-due", STAMP, kind=5, picked=["a"], set_due=STAMP
    ),
    "follow-up-without-picks": review_event("good", "g1", "r-none", STAMP, kind=5),
}


@pytest.mark.parametrize("line", list(HOSTILE.values()), ids=list(HOSTILE))
def test_a_bad_event_is_set_aside_once_and_the_rest_arrives(
    receiver: Device, shared: Path, line: str
) -> None:
    write_folder(shared, [line, deck_event("after", "After the bad one")])
    _good(shared, [])
    first = receiver.sync(START)
    assert "after" in receiver.deck_keys()
    assert "good" in receiver.deck_keys()
    set_aside = [note for note in first.notes if "set aside" in note]
    assert len(set_aside) == 1, first.notes
    assert "000001-0000000a.jsonl" in set_aside[0]
    # Later rounds neither fail nor say it again; a later good event still arrives.
    write_folder(shared, [deck_event("later", "Later")], "000003-0000000c.jsonl")
    second = receiver.sync(START + timedelta(minutes=5))
    assert not [note for note in second.notes if "set aside" in note], second.notes
    assert "later" in receiver.deck_keys()
    assert receiver.healthy(START + timedelta(minutes=5)) == []
    # What `recall decks` and the window's deck list show.
    library.deck_tree_rows(library.deck_overviews(receiver.database, START))


def test_a_deep_header_skips_its_file_and_not_the_computer(receiver: Device, shared: Path) -> None:
    folder = shared / "Recall" / WRITER
    folder.mkdir(parents=True)
    (folder / "000001-0000000a.jsonl").write_text(DEEP + "\n" + deck_event("lost", "Lost") + "\n")
    _good(shared, [])
    report = receiver.sync(START)
    assert "good" in receiver.deck_keys()
    assert any("000001-0000000a.jsonl" in note for note in report.notes), report.notes
    receiver.sync(START + timedelta(minutes=5))


def test_a_stored_deck_name_too_deep_still_lists(receiver: Device) -> None:
    deck = {"format": "recall-deck", "version": 1, "id": "d", "name": "D",
            "cards": [{"id": "c", "type": "basic", "front": "F", "back": "B"}]}  # fmt: skip
    importing.import_deck(receiver.database, parse_deck(json.dumps(deck), "d.json"), START)
    deep = "::".join(f"l{n}" for n in range(20_000))
    with receiver.database.transaction() as transaction:
        transaction.sql.rows("UPDATE deck SET name = ? WHERE key = 'd'", (deep,))
    rows = library.deck_tree_rows(library.deck_overviews(receiver.database, START))
    # The tree shows its first levels; the rest of the name stays on the deepest row.
    assert len(rows) == deck_tree.MAX_DEPTH
    assert (rows[-1].key, rows[-1].depth, rows[-1].total) == ("d", deck_tree.MAX_DEPTH - 1, 1)
    assert rows[-1].label.startswith(f"l{deck_tree.MAX_DEPTH - 1}::")
    assert rows[0].total == 1


def _folder_of_two_receivers(tmp_path: Path) -> tuple[Path, Path]:
    one, two = tmp_path / "one", tmp_path / "two"
    one.mkdir()
    two.mkdir()
    return one, two


def _renamed(uid: str, name: str) -> str:
    return json.dumps(
        {"type": "deck", "id": uid, "stamp": STAMP, "device": WRITER, "deck": "tie",
         "fields": {"name": name, "description": "", "preset": "default"}}
    )  # fmt: skip


def test_a_field_one_device_stamped_twice_alike_settles_the_same_everywhere(
    tmp_path: Path,
) -> None:
    one, two = _folder_of_two_receivers(tmp_path)
    apple, zebra = _renamed("e1", "Apple"), _renamed("e2", "Zebra")
    write_folder(one, [apple], "000001-0000000a.jsonl")
    write_folder(one, [zebra], "000002-0000000b.jsonl")
    write_folder(two, [zebra], "000001-0000000a.jsonl")
    write_folder(two, [apple], "000002-0000000b.jsonl")
    names = []
    for index, shared in enumerate((one, two)):
        device = Device(tmp_path / f"device{index}", "desktop", shared)
        try:
            device.sync(START)
            with device.database.reading() as transaction:
                names.append(transaction.sync_local.decks(["tie"])["tie"][1])
        finally:
            device.close()
    assert names == ["Zebra", "Zebra"]


def test_one_seed_sent_for_two_cards_settles_the_same_everywhere(tmp_path: Path) -> None:
    one, two = _folder_of_two_receivers(tmp_path)
    deck = deck_event("s", "Seeds")
    first, second = card_event("s", "x", seed=12345), card_event("s", "y", seed=12345)
    write_folder(one, [deck, first, second])
    write_folder(two, [deck, second, first])
    seeds = []
    for index, shared in enumerate((one, two)):
        device = Device(tmp_path / f"device{index}", "desktop", shared)
        try:
            device.sync(START)
            with device.database.reading() as transaction:
                found = transaction.sync_local.cards([("s", "x"), ("s", "y")])
            seeds.append((found[("s", "x")][1]["seed"], found[("s", "y")][1]["seed"]))
            assert device.healthy(START) == []
        finally:
            device.close()
    assert seeds[0] == seeds[1]
    assert seeds[0][0] == 12345
    assert seeds[0][1] != 12345


def _ten_cards_answered(receiver: Device) -> list[tuple[str, str]]:
    deck = {"format": "recall-deck", "version": 1, "id": "ten", "name": "Ten",
            "cards": [{"id": f"c{n}", "type": "basic", "front": f"F{n}", "back": "B"}
                      for n in range(10)]}  # fmt: skip
    importing.import_deck(receiver.database, parse_deck(json.dumps(deck), "ten.json"), START)
    receiver.study("ten", 10, START, random.Random(3))
    with receiver.database.reading() as transaction:
        rows = transaction.sql.rows("SELECT uid FROM review")
    return [("ten", f"c{n}") for n in range(10)] + [("review", row[0]) for row in rows]


def _backed_up_reviews(receiver: Device) -> list[int]:
    found = []
    for path in sorted((receiver.database.path.parent / "backups").glob("*before-sync-delete*")):
        with closing(sqlite3.connect(path)) as backup:
            found.append(backup.execute("SELECT COUNT(*) FROM review").fetchone()[0])
    return found


def test_a_round_deleting_many_cards_backs_up_first_and_says_so(
    receiver: Device, shared: Path
) -> None:
    keys = _ten_cards_answered(receiver)
    receiver.sync(START)
    deleted = [
        json.dumps({"type": "card", "id": f"del-{card}", "stamp": STAMP + 10**9, "device": WRITER,
                    "deck": deck, "card": card, "fields": {"deleted": True, "gone": True}})
        for deck, card in keys if deck == "ten"
    ]  # fmt: skip
    write_folder(shared, deleted)
    report = receiver.sync(START + timedelta(minutes=1))
    assert "deleted 10 cards and 10 reviews as hostile (bbbbbbbb) asked" in report.notes
    assert any("a backup was made before deleting them" in note for note in report.notes)
    assert _backed_up_reviews(receiver) == [10]
    assert receiver.card_ids() == []


def test_a_round_taking_back_many_reviews_backs_up_first_and_says_so(
    receiver: Device, shared: Path
) -> None:
    keys = _ten_cards_answered(receiver)
    receiver.study("ten", 30, START + timedelta(minutes=20), random.Random(4))
    receiver.sync(START + timedelta(minutes=20))
    with receiver.database.reading() as transaction:
        uids = [row[0] for row in transaction.sql.rows("SELECT uid FROM review")]
    assert len(uids) > 20
    assert keys
    write_folder(
        shared, [json.dumps({"type": "unreview", "id": f"u-{uid}", "review": uid}) for uid in uids]
    )
    report = receiver.sync(START + timedelta(minutes=21))
    assert f"deleted 0 cards and {len(uids)} reviews as hostile (bbbbbbbb) asked" in (report.notes)
    assert _backed_up_reviews(receiver) == [len(uids)]


def test_a_round_deleting_a_few_cards_says_so_without_a_backup(
    receiver: Device, shared: Path
) -> None:
    _ten_cards_answered(receiver)
    receiver.sync(START)
    write_folder(
        shared,
        [json.dumps({"type": "card", "id": "del-c1", "stamp": STAMP + 10**9, "device": WRITER,
                     "deck": "ten", "card": "c1", "fields": {"deleted": True, "gone": True}})],
    )  # fmt: skip
    report = receiver.sync(START + timedelta(minutes=1))
    assert "deleted 1 card and 1 review as hostile (bbbbbbbb) asked" in report.notes
    assert _backed_up_reviews(receiver) == []


_SEEDS = [
    *HOSTILE.values(),
    deck_event("x", "X"),
    card_event("good", "g9"),
    review_event("good", "g1", "r-any", STAMP - 10**9),
    preset_event("p9", new_per_day=5),
]


@settings(
    max_examples=25,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    lines=st.lists(
        st.one_of(
            st.sampled_from(_SEEDS),
            st.tuples(st.sampled_from(_SEEDS), st.integers(0, 400), st.binary(max_size=8)).map(
                lambda cut: (
                    cut[0][: cut[1]] + cut[2].decode("latin-1") + cut[0][cut[1] + len(cut[2]) :]
                )
            ),
            st.text(max_size=60),
        ),
        max_size=6,
    )
)
def test_any_lines_leave_every_round_whole_and_a_later_event_arrives(
    tmp_path_factory: pytest.TempPathFactory, lines: list[str]
) -> None:
    root = tmp_path_factory.mktemp("hostile")
    shared = root / "shared"
    shared.mkdir()
    device = Device(root, "desktop", shared, fuzz=False)
    try:
        write_folder(shared, [line.replace("\n", " ") for line in lines])
        _good(shared, [])
        device.sync(START)
        write_folder(shared, [deck_event("later", "Later")], "000003-0000000c.jsonl")
        device.sync(START + timedelta(minutes=5))
        assert {"good", "later"} <= set(device.deck_keys())
        assert device.healthy(START + timedelta(minutes=5)) == []
        library.deck_tree_rows(library.deck_overviews(device.database, START))
    finally:
        device.close()
