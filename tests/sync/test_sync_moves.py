"""Sync scenarios of cards moved to another deck: every device ends with one card, under the
same keys, holding the whole history, whatever else happened to the card meanwhile."""

from __future__ import annotations

import json
import random
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from recall.changes import decks as deck_changes
from recall.changes import editing
from recall.collection import importing
from recall.content.deck_format import parse_deck
from recall.storage.records import DeckRow
from tests.conftest import DATA
from tests.helpers.sync_devices import Device, card_content, card_id, converged

TINY = (DATA / "decks" / "tiny.json").read_text()
START = datetime(2026, 11, 2, 8, 0, tzinfo=UTC)


def _deck(device: Device, name: str) -> DeckRow:
    """The deck of this name, made first if there is none."""
    with device.database.reading() as transaction:
        found = [deck for deck in transaction.browsing.decks() if deck.name == name]
    if not found:
        deck_changes.new_deck(device.database, name, START)
        return _deck(device, name)
    return found[0]


def _histories(device: Device) -> dict[str, int]:
    """How many reviews each card holds, by ``deck/card`` keys (cards without any left out)."""
    with device.database.reading() as transaction:
        rows = transaction.sql.rows(
            "SELECT deck.key, card.key, count(*) FROM review "
            "JOIN card ON card.id = review.card_id JOIN deck ON deck.id = card.deck_id "
            "GROUP BY card.id"
        )
    return {f"{deck}/{card}": int(count) for deck, card, count in rows}


def _cards(device: Device) -> set[str]:
    with device.database.reading() as transaction:
        rows = transaction.sql.rows(
            "SELECT deck.key, card.key FROM card JOIN deck ON deck.id = card.deck_id"
        )
    return {f"{deck}/{card}" for deck, card in rows}


def _start(trio: tuple[Device, Device, Device], studied: int = 2) -> None:
    """The tiny deck on every device, ``studied`` of its cards studied on the laptop."""
    laptop = trio[0]
    importing.import_deck(laptop.database, parse_deck(TINY, "tiny.json"), START)
    if studied:
        assert laptop.study("tiny", studied, START, random.Random(3)) == studied
    for device in trio:
        device.sync(START)


def _settle(devices: tuple[Device, ...] | list[Device], now: datetime) -> None:
    for _ in range(2):
        for device in devices:
            device.sync(now)


def test_a_deck_imported_again_after_a_card_moved_out_of_it_keeps_the_history_moved(
    trio: tuple[Device, Device, Device], tmp_path: Path
) -> None:
    laptop, desktop, tablet = trio
    _start(trio)
    studied = _histories(laptop)
    assert studied == _histories(desktop)
    moved_key = sorted(studied)[0].split("/")[1]
    later = START + timedelta(hours=1)
    laptop.changes().move([card_id(laptop, "tiny", moved_key)], _deck(laptop, "Moved"))
    desktop.sync(later)
    tablet.sync(later)
    # Imported again before the move was synced: a new card takes the old keys here.
    importing.import_deck(laptop.database, parse_deck(TINY, "tiny.json"), later)
    _settle(trio, later)
    for device in trio:
        histories = _histories(device)
        assert histories[f"moved/{moved_key}"] == studied[f"tiny/{moved_key}"], device.name
        assert f"tiny/{moved_key}" not in histories, device.name
    assert _cards(laptop) == _cards(desktop) == _cards(tablet)
    converged(list(trio), tmp_path, later)


def test_a_card_moved_on_another_computer_is_found_there_when_its_deck_comes_again(
    trio: tuple[Device, Device, Device], tmp_path: Path
) -> None:
    laptop, desktop, _ = trio
    _start(trio)
    studied = _histories(laptop)
    moved_key = sorted(studied)[0].split("/")[1]
    later = START + timedelta(hours=1)
    laptop.changes().move([card_id(laptop, "tiny", moved_key)], _deck(laptop, "Moved"))
    _settle(trio, later)
    before = _cards(desktop)
    assert f"moved/{moved_key}" in before
    # The desktop imports the deck file again: the card is where the laptop put it.
    report = importing.import_deck(desktop.database, parse_deck(TINY, "tiny.json"), later)
    assert (report.added, report.elsewhere) == (0, 1)
    assert _cards(desktop) == before
    _settle(trio, later)
    for device in trio:
        assert _cards(device) == before, device.name
        assert _histories(device)[f"moved/{moved_key}"] == studied[f"tiny/{moved_key}"]
    converged(list(trio), tmp_path, later)


def _edit(device: Device, deck: str, card: str, **fields: str) -> None:
    data = editing.card_data(json.dumps(card_content(device, deck, card)))
    editing.edit_card(device.database, card_id(device, deck, card), {**data, **fields}, START)
    device.clock.advance(0.005)  # changes are stamped to the millisecond: keep them apart


def test_edits_made_under_the_old_keys_before_the_move_arrived_follow_the_card(
    trio: tuple[Device, Device, Device], tmp_path: Path
) -> None:
    laptop, desktop, tablet = trio
    _start(trio)
    # The desktop edits before the laptop moves the card, and after: both follow it.
    _edit(desktop, "tiny", "b1", front="Capital of France, please?")
    laptop.changes().move([card_id(laptop, "tiny", "b1")], _deck(laptop, "Moved"))
    laptop.clock.advance(0.005)
    card = card_id(desktop, "tiny", "b1")
    desktop.changes().tag([card], START, add=["geography"])
    desktop.changes().suspend([card])
    desktop.changes().flag([card], 3)
    later = START + timedelta(hours=1)
    for order in ((laptop, desktop, tablet), (tablet, desktop, laptop)):
        for device in order:
            device.sync(later)
    for device in trio:
        assert "tiny/b1" not in _cards(device), device.name
        content = card_content(device, "moved", "b1")
        assert content["front"] == "Capital of France, please?", device.name
        assert content["id"] == "b1", device.name
        assert "geography" in content["tags"], device.name
        schedule = device.schedules_by_key()["moved/b1"]
        assert schedule[4:] == (1, None, 3), device.name  # suspended, not buried, flag 3
    converged(list(trio), tmp_path, later)


def test_of_edits_under_the_old_keys_and_the_new_the_later_wins(
    trio: tuple[Device, Device, Device], tmp_path: Path
) -> None:
    laptop, desktop, tablet = trio
    _start(trio)
    laptop.changes().move([card_id(laptop, "tiny", "b1")], _deck(laptop, "Moved"))
    _edit(desktop, "tiny", "b1", back="Paris (desktop, first)", front="Which capital?")
    _edit(laptop, "moved", "b1", back="Paris (laptop, later)")
    _edit(tablet, "tiny", "b1", back="Paris (tablet, last)")
    later = START + timedelta(hours=1)
    _settle(trio, later)
    for device in trio:
        content = card_content(device, "moved", "b1")
        assert content["back"] == "Paris (tablet, last)", device.name
        assert content["front"] == "Which capital?", device.name
    _edit(laptop, "moved", "b1", back="Paris (laptop, at last)")
    _settle(trio, later)
    for device in trio:
        assert card_content(device, "moved", "b1")["back"] == "Paris (laptop, at last)"
    converged(list(trio), tmp_path, later)


@pytest.mark.parametrize("later_mover", [0, 1])
def test_a_card_moved_to_two_decks_on_two_computers_apart_ends_in_one(
    trio: tuple[Device, Device, Device], tmp_path: Path, later_mover: int
) -> None:
    laptop, desktop, tablet = trio
    _start(trio)
    before = _histories(laptop)
    studied = sorted(before)[0].split("/")[1]
    movers = [(laptop, "Moved"), (desktop, "Elsewhere")]
    if later_mover == 0:
        movers.reverse()
    for device, name in movers:
        device.changes().move([card_id(device, "tiny", studied)], _deck(device, name))
        device.clock.advance(0.005)
    winner = movers[1][1].lower()
    # Each studies its copy before the other's move reaches it.
    later = START + timedelta(days=60)
    for index, (device, name) in enumerate(movers):
        session_deck = name.lower()
        assert device.study(session_deck, 1, later + timedelta(minutes=index), random.Random(9))
    tablet.sync(later)
    for order in ((movers[0][0], tablet, movers[1][0]), (movers[1][0], movers[0][0], tablet)):
        for device in order:
            device.sync(later + timedelta(hours=1))
    _settle(trio, later + timedelta(hours=1))
    for device in trio:
        histories = _histories(device)
        assert histories[f"{winner}/{studied}"] == before[f"tiny/{studied}"] + 2, device.name
        assert not any(
            key.endswith(f"/{studied}") for key in set(histories) - {f"{winner}/{studied}"}
        ), device.name
        assert f"{movers[0][1].lower()}/{studied}" not in _cards(device), device.name
    assert _cards(laptop) == _cards(desktop) == _cards(tablet)
    converged(list(trio), tmp_path, later + timedelta(hours=1))


def test_a_review_waiting_for_its_time_here_follows_a_move_made_elsewhere(
    trio: tuple[Device, Device, Device], tmp_path: Path
) -> None:
    laptop, desktop, tablet = trio
    _start(trio, studied=0)
    ahead = START + timedelta(hours=3)  # the tablet's clock runs three hours ahead
    assert tablet.study("tiny", 1, ahead, random.Random(2)) == 1
    studied = next(iter(_histories(tablet))).split("/")[1]
    tablet.sync(ahead)
    assert desktop.sync(START).received["review"] == 1  # held until its time comes
    laptop.changes().move([card_id(laptop, "tiny", studied)], _deck(laptop, "Moved"))
    laptop.sync(START)
    desktop.sync(START + timedelta(hours=1))  # the move arrives while the review waits
    day = START + timedelta(days=1)
    _settle(trio, day)
    for device in trio:
        assert _histories(device) == {f"moved/{studied}": 1}, device.name
    converged(list(trio), tmp_path, day)


def test_a_card_moved_and_moved_back_between_two_rounds_stays_where_it_was(
    trio: tuple[Device, Device, Device], tmp_path: Path
) -> None:
    laptop = trio[0]
    _start(trio)
    before = _histories(laptop)
    key = sorted(before)[0].split("/")[1]
    changes = laptop.changes()
    changes.move([card_id(laptop, "tiny", key)], _deck(laptop, "Moved"))
    changes.move([card_id(laptop, "moved", key)], _deck(laptop, "Tiny deck"))
    _settle(trio, START)
    for device in trio:
        assert _histories(device) == before, device.name
        assert not any(card.startswith("moved/") for card in _cards(device)), device.name
    converged(list(trio), tmp_path, START)


def test_a_card_moved_elsewhere_and_back_by_two_computers_keeps_its_history(
    trio: tuple[Device, Device, Device], tmp_path: Path
) -> None:
    laptop, desktop, _ = trio
    _start(trio)
    before = _histories(laptop)
    key = sorted(before)[0].split("/")[1]
    laptop.changes().move([card_id(laptop, "tiny", key)], _deck(laptop, "Moved"))
    _settle([laptop, desktop], START)
    # The desktop moves it back: its first keys are deleted everywhere, so it takes new ones.
    desktop.changes().move([card_id(desktop, "moved", key)], _deck(desktop, "Tiny deck"))
    later = START + timedelta(hours=1)
    _settle(trio, later)
    for device in trio:
        histories = _histories(device)
        assert histories[f"tiny/{key}-2"] == before[f"tiny/{key}"], device.name
        assert {f"tiny/{key}", f"moved/{key}"}.isdisjoint(_cards(device)), device.name
    converged(list(trio), tmp_path, later)


def test_a_chain_of_moves_between_two_rounds_is_one_move(
    trio: tuple[Device, Device, Device], tmp_path: Path
) -> None:
    laptop, desktop, _ = trio
    _start(trio)
    before = _histories(laptop)
    key = sorted(before)[0].split("/")[1]
    # The desktop edits the card under its first keys meanwhile: the edit follows too.
    _edit(desktop, "tiny", key, front="Edited on the desktop")
    changes = laptop.changes()
    changes.move([card_id(laptop, "tiny", key)], _deck(laptop, "First"))
    changes.move([card_id(laptop, "first", key)], _deck(laptop, "Second"))
    changes.move([card_id(laptop, "second", key)], _deck(laptop, "Third"))
    later = START + timedelta(hours=1)
    _settle(trio, later)
    for device in trio:
        assert _histories(device)[f"third/{key}"] == before[f"tiny/{key}"], device.name
        assert card_content(device, "third", key)["front"] == "Edited on the desktop"
        assert {card.split("/")[0] for card in _cards(device)} == {"tiny", "third"}
    converged(list(trio), tmp_path, later)


def test_a_card_moved_out_of_a_deck_deleted_elsewhere_meanwhile_is_deleted_too(
    trio: tuple[Device, Device, Device], tmp_path: Path
) -> None:
    laptop, desktop, _ = trio
    _start(trio)
    key = sorted(_histories(laptop))[0].split("/")[1]
    laptop.changes().move([card_id(laptop, "tiny", key)], _deck(laptop, "Moved"))
    laptop.study("moved", 1, START + timedelta(days=60), random.Random(1))
    # Deleting the deck deleted the card with it: a deletion wins over a move meanwhile.
    deck_changes.delete_deck(desktop.database, _deck(desktop, "Tiny deck").id, START)
    later = START + timedelta(days=60, hours=1)
    _settle(trio, later)
    for device in trio:
        assert device.deck_keys() == ["moved"], device.name
        assert _cards(device) == set(), device.name
        assert device.review_rows() == [], device.name
    converged(list(trio), tmp_path, later)


def test_a_card_moved_into_a_deck_deleted_elsewhere_meanwhile_is_deleted_with_it(
    trio: tuple[Device, Device, Device], tmp_path: Path
) -> None:
    laptop, desktop, _ = trio
    _deck(laptop, "Moved")
    _start(trio)
    key = sorted(_histories(laptop))[0].split("/")[1]
    laptop.changes().move([card_id(laptop, "tiny", key)], _deck(laptop, "Moved"))
    deck_changes.delete_deck(desktop.database, _deck(desktop, "Moved").id, START)
    later = START + timedelta(hours=1)
    _settle(trio, later)
    for device in trio:
        assert "moved" not in device.deck_keys(), device.name
        assert not any(card.endswith(f"/{key}") for card in _cards(device)), device.name
    converged(list(trio), tmp_path, later)


def test_a_card_deleted_on_one_computer_while_another_moved_it_is_deleted_everywhere(
    trio: tuple[Device, Device, Device], tmp_path: Path
) -> None:
    laptop, desktop, _ = trio
    _start(trio)
    key = sorted(_histories(laptop))[0].split("/")[1]
    desktop.changes().delete([card_id(desktop, "tiny", key)], START)
    desktop.clock.advance(0.005)
    laptop.changes().move([card_id(laptop, "tiny", key)], _deck(laptop, "Moved"))
    later = START + timedelta(hours=1)
    _settle(trio, later)
    for device in trio:
        assert not any(card.endswith(f"/{key}") for card in _cards(device)), device.name
        assert not any(card.endswith(f"/{key}") for card in _histories(device)), device.name
    converged(list(trio), tmp_path, later)


def test_a_copy_merged_away_comes_back_when_a_later_move_to_its_keys_wins(
    trio: tuple[Device, Device, Device], tmp_path: Path
) -> None:
    laptop, desktop, tablet = trio
    _start(trio)
    before = _histories(laptop)
    key = sorted(before)[0].split("/")[1]
    # Three computers apart move one card: to Other, to Moved, to Other again, in turn.
    for device, name in ((laptop, "Other"), (desktop, "Moved"), (tablet, "Other")):
        device.changes().move([card_id(device, "tiny", key)], _deck(device, name))
        device.clock.advance(0.005)
    later = START + timedelta(hours=1)
    # The desktop's move wins over the laptop's, which the desktop merges away; then the
    # tablet's, to the keys the laptop's copy had, wins over both.
    _settle(trio, later)
    for device in trio:
        assert _histories(device)[f"other/{key}"] == before[f"tiny/{key}"], device.name
        assert f"moved/{key}" not in _cards(device), device.name
    converged(list(trio), tmp_path, later)


def test_reviews_handed_over_to_another_card_are_added_again_under_it(
    trio: tuple[Device, Device, Device],
) -> None:
    laptop = trio[0]
    _start(trio)
    studied = sorted(_histories(laptop))[0].split("/")[1]
    other = "q1" if studied != "q1" else "b1"
    rows = laptop.review_rows()
    with laptop.database.transaction() as transaction:
        transaction.sync_state.quiet(True)
        transaction.sync_local.hand_over_reviews(
            card_id(laptop, "tiny", studied), card_id(laptop, "tiny", other)
        )
        transaction.sync_state.quiet(False)
    histories = _histories(laptop)
    assert f"tiny/{studied}" not in histories
    assert histories[f"tiny/{other}"] == len(rows)
    with laptop.database.reading() as transaction:
        assert transaction.sync_state.outbox_end() == 0  # nothing to send: a merge's own work


def test_a_deleted_cards_id_given_to_a_card_imported_again_is_no_move(
    trio: tuple[Device, Device, Device], tmp_path: Path
) -> None:
    laptop, desktop, _ = trio
    deck = json.loads(TINY)
    deck["cards"].append({"id": "last", "type": "basic", "front": "Last", "back": "Card"})
    text = json.dumps(deck)
    importing.import_deck(laptop.database, parse_deck(text, "tiny.json"), START)
    for device in trio:
        device.sync(START)
    # The last card (the greatest id) and the first deleted: the deck imported again makes
    # them anew, and SQLite gives the first of them, another card, the last one's id.
    ids = laptop.card_ids()
    laptop.changes().delete([ids[0], ids[-1]], START)
    importing.import_deck(laptop.database, parse_deck(text, "tiny.json"), START)
    with laptop.database.reading() as transaction:
        assert transaction.sync_local.card_keys([ids[-1]])[ids[-1]] != ("tiny", "last")
    expected = _cards(desktop)
    _settle(trio, START)
    for device in trio:
        assert _cards(device) == expected, device.name
    converged(list(trio), tmp_path, START)


def _chain_of_moves(shared: Path, moves: int) -> None:
    """A device folder written by hand: one card moved ``moves`` times, deck d0 to d1 to
    ... to d<moves>, each move as a device sends it (the old keys deleted and pointing at
    the new, the new keys holding the card and pointing back)."""
    device = "c" * 32
    folder = shared / "Recall" / device
    folder.mkdir(parents=True)
    stamp = 1_793_606_400_000_000
    card = {
        "kind": "basic",
        "position": 0,
        "flag": 0,
        "edited": False,
        "suspended": False,
        "buried_until": None,
        "seed": 12345,
        "content.id": ["c"],
        "content.type": ["basic"],
        "content.front": ["Where am I?"],
        "content.back": ["At the end"],
    }

    def event(number: int, deck: str, fields: dict[str, object]) -> str:
        return json.dumps(
            {
                "type": "card",
                "id": f"{number:032x}",
                "stamp": stamp + number,
                "device": device,
                "deck": deck,
                "card": "c",
                "fields": fields,
            }
        )

    lines = [
        json.dumps({"recall_sync": 1, "device": device, "name": "mover"}),
        event(1, "d0", card),
    ]
    for step in range(1, moves + 1):
        lines.append(event(2 * step, f"d{step - 1}", {"deleted": True, "moved": [f"d{step}", "c"]}))
        lines.append(event(2 * step + 1, f"d{step}", {**card, "from": [f"d{step - 1}", "c"]}))
    (folder / "000001-00000001.jsonl").write_text("\n".join(lines) + "\n")


def _statements_to_merge(tmp_path: Path, moves: int) -> int:
    """The SQL statements a fresh device runs to merge a chain of ``moves`` moves."""
    shared = tmp_path / f"shared-{moves}"
    shared.mkdir()
    _chain_of_moves(shared, moves)
    device = Device(tmp_path, f"reader-{moves}", shared)
    count = 0

    def counted(_statement: str) -> None:
        nonlocal count
        count += 1

    connections = device.database._connections
    connections.hooks.append(lambda connection: connection.set_trace_callback(counted))
    connections.close()
    try:
        device.sync(START)
        assert _cards(device) == {f"d{moves}/c"}
    finally:
        device.close()
    return count


def test_a_chain_of_moves_is_followed_in_work_linear_in_its_length(tmp_path: Path) -> None:
    # Following each of the chain's keys to its end on its own made the work grow with the
    # square of its length (5,000 moves took minutes).
    small, large = (_statements_to_merge(tmp_path, moves) for moves in (1_000, 2_000))
    assert large < 2.2 * small, (small, large)


def test_a_chain_of_five_thousand_moves_ends_in_one_card_at_its_end(tmp_path: Path) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    _chain_of_moves(shared, 5_000)
    first, second = Device(tmp_path, "first", shared), Device(tmp_path, "second", shared)
    try:
        first.sync(START)
        second.sync(START)
        for device in (first, second):
            assert _cards(device) == {"d5000/c"}
            assert card_content(device, "d5000", "c")["front"] == "Where am I?"
        converged([first, second], tmp_path, START)
    finally:
        first.close()
        second.close()
