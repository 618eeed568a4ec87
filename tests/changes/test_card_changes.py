"""Bulk changes and their undo: each one does what it says, keeps `recall check` healthy,
and undo puts every row back as it was."""

from __future__ import annotations

import io
import random
import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest

from recall.changes import cards as card_changes
from recall.changes.cards import Changes
from recall.changes.change import ChangeError
from recall.collection import browse, importing, review_log
from recall.content.deck_format import load_deck
from recall.core.errors import RecallError
from recall.core.memory import CardState, Rating
from recall.core.preferences import Preferences
from recall.core.presets import DEFAULT_PRESET_ID, LeechPolicy, Preset, leech_policy
from recall.safekeeping import backups, integrity
from recall.scheduling import Scheduler, Schedulers
from recall.storage import Database, DeckRow
from recall.study.session import StudySession
from tests.conftest import DATA, ZONE, Clock, answer_cards

TABLES = ("deck", "card", "card_memory", "review", "card_tag")


def snapshot(path: Path) -> dict[str, list[tuple[object, ...]]]:
    """Every row of every table, read without Recall's code."""
    connection = sqlite3.connect(path)
    try:
        return {
            table: sorted(connection.execute(f"SELECT * FROM {table}").fetchall())
            for table in TABLES
        }
    finally:
        connection.close()


def healthy(database: Database, clock: Clock) -> None:
    report = integrity.check(database, Schedulers(fuzz=True), clock())
    assert report.healthy, report.problems


@pytest.fixture
def studied(bundled: Database, clock: Clock) -> Database:
    """The bundled deck with five cards answered."""
    answer_cards(bundled, clock, 5)
    clock.advance(hours=1)
    return bundled


def changes_for(database: Database) -> Changes:
    schedulers = Schedulers(fuzz=True)
    settings = Preferences()
    return Changes(database, schedulers, settings, ZONE, random.Random(3))


def finder(database: Database) -> browse.Finder:
    settings = Preferences()
    return browse.Finder(database, Scheduler(), settings, ZONE)


def ids(database: Database, clock: Clock, query: str) -> list[int]:
    return list(finder(database).find(query, clock()).card_ids)


def test_suspend_and_unsuspend_count_what_changed_and_undo(studied: Database, clock: Clock) -> None:
    changes = changes_for(studied)
    before = snapshot(studied.path)
    first = ids(studied, clock, "")[:3]
    assert changes.suspend(first).changed == 3
    assert changes.suspend(ids(studied, clock, "")[:4]).changed == 1
    assert set(ids(studied, clock, "is:suspended")) == set(ids(studied, clock, "")[:4])
    healthy(studied, clock)
    assert changes.suspend(first, False).changed == 3
    assert changes.undo_label == "Unsuspend 3 cards"
    for _ in range(3):
        changes.undo()
    assert snapshot(studied.path) == before
    assert changes.undo_label is None
    with pytest.raises(LookupError):
        changes.undo()


def test_suspended_and_buried_cards_leave_the_queue(bundled: Database, clock: Clock) -> None:
    schedulers = Schedulers(fuzz=True)
    session = StudySession(bundled, schedulers, "activation-recompute")
    first = session.next_card(clock())
    assert first is not None
    changes = changes_for(bundled)
    changes.suspend([first.card_id])
    second = session.next_card(clock())
    assert second is not None
    assert second.card_id != first.card_id
    changes.bury([second.card_id], clock())
    third = session.next_card(clock())
    assert third is not None
    assert third.card_id not in (first.card_id, second.card_id)
    assert ids(bundled, clock, "is:buried") == [second.card_id]
    # Buried until the next study day (4 am in Berlin), then back in the queue.
    clock.advance(days=1)
    assert ids(bundled, clock, "is:buried") == []
    again = session.next_card(clock())
    assert again is not None
    assert again.card_id != first.card_id
    assert session.counts(clock()).new == len(ids(bundled, clock, "is:new")) - 1


def test_flag_tag_and_move_undo_to_the_same_rows(studied: Database, clock: Clock) -> None:
    changes = changes_for(studied)
    library_deck = _other_deck(studied, clock)
    before = snapshot(studied.path)
    cards = ids(studied, clock, "deck:activation-recompute")[:4]
    assert changes.flag(cards, 3).changed == 4
    assert set(ids(studied, clock, "flag:3")) == set(cards)
    assert changes.tag(cards, clock(), add=["Hard::Maths", "extra"], remove=["gpu"]).changed == 4
    assert set(ids(studied, clock, "tag:hard")) == set(cards)
    assert set(ids(studied, clock, "tag:hard::maths extra")) == set(cards)
    with pytest.raises(ChangeError, match="not one word"):
        changes.tag(cards, clock(), add=["two words"])
    assert changes.move(cards[:2], library_deck).changed == 2
    assert set(ids(studied, clock, "deck:tiny")) >= set(cards[:2])
    healthy(studied, clock)
    for _ in range(3):
        changes.undo()
    assert snapshot(studied.path) == before
    healthy(studied, clock)


def _other_deck(database: Database, clock: Clock) -> DeckRow:
    importing.import_deck(database, load_deck(DATA / "decks" / "tiny.json"), clock())
    with database.reading() as transaction:
        deck = transaction.decks.by_key("tiny")
    assert deck is not None
    return deck


def test_moving_a_card_whose_key_the_deck_has_gives_it_a_new_key(
    database: Database, clock: Clock
) -> None:
    tiny = _other_deck(database, clock)
    copy = load_deck(DATA / "decks" / "tiny.json").model_copy(update={"id": "tiny-copy"})
    importing.import_deck(database, copy, clock())
    with database.reading() as transaction:
        theirs = transaction.cards.keys(_deck(database, "tiny-copy").id)["q1"].id
    change = changes_for(database).move([theirs], tiny)
    assert change.label == "Move 1 card to Tiny deck"
    with database.reading() as transaction:
        keys = transaction.cards.keys(tiny.id)
    assert keys["q1-2"].id == theirs
    assert theirs in ids(database, clock, "deck:tiny")
    healthy(database, clock)


def _deck(database: Database, key: str) -> DeckRow:
    with database.reading() as transaction:
        deck = transaction.decks.by_key(key)
    assert deck is not None
    return deck


def test_forget_is_recorded_in_the_history_and_undone_by_replay(
    studied: Database, clock: Clock
) -> None:
    changes = changes_for(studied)
    before = snapshot(studied.path)
    reviewed = ids(studied, clock, "-is:new")
    assert len(reviewed) == 5
    assert changes.forget(reviewed + ids(studied, clock, "is:new")[:2], clock()).changed == 5
    assert ids(studied, clock, "-is:new") == []
    healthy(studied, clock)
    # The forget entries are history, not answers: `rated:` and the review log skip them.
    assert set(ids(studied, clock, "rated:1")) == set(reviewed)
    out = io.StringIO()
    assert review_log.export_reviews(studied, out) == 5
    changes.undo()
    assert snapshot(studied.path) == before
    healthy(studied, clock)


@pytest.mark.parametrize("spec", ["0", "3", "3-7"])
def test_set_due_date_moves_cards_and_replays(studied: Database, clock: Clock, spec: str) -> None:
    changes = changes_for(studied)
    before = snapshot(studied.path)
    new_cards = ids(studied, clock, "is:new")[:2]
    reviewed = ids(studied, clock, "-is:new")[:2]
    changes.set_due(new_cards + reviewed, spec, clock())
    low, high = card_changes.parse_due(spec)
    rows = finder(studied).rows(new_cards + reviewed)
    for row in rows:
        assert row.memory.state is CardState.REVIEW
        assert row.memory.due is not None
    due_days = sorted(
        (row.memory.due - clock()).total_seconds() / 86400  # type: ignore[operator]
        for row in rows
    )
    assert low - 1 <= due_days[0] <= due_days[-1] <= high + 1
    if spec == "0":
        assert set(ids(studied, clock, "is:due")) >= set(new_cards + reviewed)
    healthy(studied, clock)
    changes.undo()
    assert snapshot(studied.path) == before
    healthy(studied, clock)


@pytest.mark.parametrize("spec", ["", "x", "7-3", "-1", "1.5"])
def test_a_bad_due_date_says_how_to_write_one(spec: str) -> None:
    with pytest.raises(ChangeError, match=r"due date|fewer to more"):
        card_changes.parse_due(spec)


def test_delete_backs_up_first_and_undo_puts_everything_back(
    studied: Database, clock: Clock
) -> None:
    changes = changes_for(studied)
    before = snapshot(studied.path)
    reviewed = ids(studied, clock, "-is:new")
    change = changes.delete(reviewed, clock())
    assert change.label == "Delete 5 cards and 5 reviews"
    assert ids(studied, clock, "-is:new") == []
    (backup,) = backups.list_backups(backups.backup_folder(studied))
    assert "before-delete" in backup.path.name
    assert backup.reviews == 5
    healthy(studied, clock)
    changes.undo()
    assert snapshot(studied.path) == before
    healthy(studied, clock)


def test_a_card_forgotten_eight_times_becomes_a_leech_and_is_suspended(
    database: Database, clock: Clock
) -> None:
    importing.import_deck(database, load_deck(DATA / "decks" / "tiny.json"), clock())
    with database.transaction() as tx:
        tx.options.save_preset(DEFAULT_PRESET_ID, Preset(new_per_day=1))
    session = StudySession(database, Schedulers(fuzz=False), "tiny")
    leeches: list[int] = []
    card_id = None
    for _ in range(200):
        shown = session.next_card(clock())
        if shown is None:
            clock.advance(days=1)
            continue
        card_id = shown.card_id
        answer = session.reveal(shown, clock()) if not shown.order else None
        if answer is None:
            answer = session.answer_choice(shown, {shown.order[0]}, clock())
        rating = Rating.AGAIN if shown.memory.state is CardState.REVIEW else Rating.GOOD
        recorded = session.record(answer, rating, clock())
        if recorded.became_leech:
            leeches.append(recorded.card_id)
            break
        clock.advance(minutes=15)
    assert leeches == [card_id]
    assert finder(database).rows(leeches)[0].lapses == 8
    assert ids(database, clock, "is:leech is:suspended") == leeches
    healthy(database, clock)
    # Undoing the answer takes the leech back too.
    session.undo(clock())
    assert ids(database, clock, "is:leech or is:suspended") == []
    healthy(database, clock)


def test_the_leech_rule_repeats_every_half_threshold() -> None:
    policy = leech_policy(Preset())
    assert [n for n in range(20) if policy.is_leech(n)] == [8, 12, 16]
    assert not LeechPolicy(leech_threshold=0, leech_action="suspend").is_leech(5)


def test_every_change_keeps_check_healthy(studied: Database, clock: Clock) -> None:
    changes = changes_for(studied)
    cards = ids(studied, clock, "")
    actions: list[Callable[[], object]] = [
        lambda: changes.suspend(cards[:3]),
        lambda: changes.bury(cards[2:6], clock()),
        lambda: changes.flag(cards[::2], 7),
        lambda: changes.tag(cards[:5], clock(), add=["later"]),
        lambda: changes.forget(cards[:2], clock()),
        lambda: changes.set_due(cards[3:8], "1-4", clock()),
        lambda: changes.delete(cards[-2:], clock()),
    ]
    for action in actions:
        action()
        healthy(studied, clock)
    while changes.undo_label is not None:
        changes.undo()
        healthy(studied, clock)


def test_replay_applies_entries_made_by_hand_as_applying_each_does(clock: Clock) -> None:
    from datetime import timedelta

    from recall.core.memory import NEW_CARD, ReviewKind
    from recall.scheduling import PastReview

    scheduler = Scheduler(fuzz=True)
    start = clock()
    days = [start + timedelta(days=n, hours=n) for n in range(12)]
    history = [
        PastReview(days[0], Rating.GOOD),
        PastReview(days[1], Rating.GOOD),
        PastReview(days[2], None, ReviewKind.SET_DUE, days[9]),
        PastReview(days[3], Rating.AGAIN),
        PastReview(days[4], None, ReviewKind.FORGET),
        PastReview(days[5], None, ReviewKind.SET_DUE, days[6]),
        PastReview(days[7], Rating.EASY),
        PastReview(days[8], Rating.HARD),
    ]
    memory = NEW_CARD
    for past in history:
        memory = scheduler.apply(42, memory, past)
    assert scheduler.replay(42, history) == memory
    assert memory.state is CardState.REVIEW
    # A forget alone leaves a new card; a due date set on a new card makes it a review card.
    assert scheduler.replay(42, history[:5]) == NEW_CARD
    after_set = scheduler.replay(42, history[:6])
    assert after_set.state is CardState.REVIEW
    assert after_set.due == days[6]


def test_a_selection_becomes_one_deck_with_unique_card_ids(
    database: Database, clock: Clock
) -> None:
    importing.import_deck(database, load_deck(DATA / "decks" / "tiny.json"), clock())
    copy = load_deck(DATA / "decks" / "tiny.json").model_copy(update={"id": "tiny-copy"})
    importing.import_deck(database, copy, clock())
    everything = ids(database, clock, "")
    deck = browse.selection_deck(database, everything, "Chosen")
    assert sorted(card.id for card in deck.cards) == ["b1", "b1-2", "q1", "q1-2"]
    with pytest.raises(RecallError, match="select the cards"):
        browse.selection_deck(database, [], "Chosen")
