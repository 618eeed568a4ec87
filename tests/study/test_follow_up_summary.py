"""The follow-ups' kept summary gives every result the recomputation from history gives.

A collection with follow-ups on misconceptions is studied (answers right and wrong, days
apart), answers are taken back, the deck is exported with its history and imported into
another collection, and a second computer syncs it. After each, the queue, the deck list's
counts and the statistics' follow-up figures read through the kept summary equal those
worked out from every picked card's history, and the table itself equals its recomputation
once the stale cards are stored.
"""

from __future__ import annotations

import dataclasses
import random
from collections import Counter
from datetime import datetime
from pathlib import Path

from recall.collection import importing
from recall.collection.deck_list import deck_overviews
from recall.collection.exporting import export_deck
from recall.core import days
from recall.core.preferences import Preferences
from recall.safekeeping import follow_up_check, integrity, repair
from recall.scheduling import Schedulers
from recall.scheduling.follow_ups import FollowUp, Standing
from recall.stats.collect import collect
from recall.storage import Database
from recall.study.follow_up_summary import Kept, bring_up_to_date, worked_out
from recall.study.follow_ups import CardFollowUp, askable_before, card_follow_ups
from tests.conftest import ZONE, Clock
from tests.helpers.sync_devices import Device
from tests.study.test_study import answer, session_for, use_preset
from tests.study.test_study_queue import forty_cards, queue_of


def _standing(follow_up: FollowUp) -> str:
    if follow_up.standing is Standing.FADED:
        return "faded"
    return "persisting" if follow_up.persisting else "fading"


def from_history(
    database: Database, schedulers: Schedulers, now: datetime
) -> tuple[list[CardFollowUp], Counter[int], set[int], dict[tuple[int, str], str]]:
    """What the queue, the deck list and the statistics read, worked out from every picked
    card's history: the follow-ups askable today, their count per deck, the decks with any
    follow-up, and every follow-up's standing."""
    with database.reading() as transaction:
        presets = transaction.options.deck_presets()
        every = card_follow_ups(transaction, schedulers, presets)
    _start, end = days.study_day(now, Preferences().day_rollover_hour, ZONE)
    askable = askable_before(every, end, now)
    return (
        askable,
        Counter(item.deck_id for item in askable),
        {item.deck_id for item in every},
        {(item.card_id, item.option): _standing(item.follow_up) for item in every},
    )


def from_summary(
    database: Database, schedulers: Schedulers, now: datetime
) -> tuple[list[CardFollowUp], Counter[int], set[int], dict[tuple[int, str], str]]:
    """The same four read through the kept summary, without storing the stale cards."""
    from recall.study.follow_up_summary import due_before, standing_name

    _start, end = days.study_day(now, Preferences().day_rollover_hour, ZONE)
    with database.reading() as transaction:
        presets = transaction.options.deck_presets()
        kept = Kept(transaction, presets, store=False)
        due = due_before(schedulers, kept, end)
        rows = kept.rows()
        kept_decks = kept.decks_with()
        assert kept.active_cards() == {row.card_id for _deck, row in rows if row.standing == 0}
        # The queue's and the deck list's own reads, the askable ones found in SQL.
        found = kept.askable(end, schedulers.fuzz, now)
        counted = kept.askable_counts(end, schedulers.fuzz, now)
        of_deck = {
            deck_id: kept.askable(end, schedulers.fuzz, now, [deck_id]).made()
            for deck_id in kept_decks
        }
    askable = askable_before(due, end, now)
    assert found.made() == askable
    assert counted == Counter(item.deck_id for item in askable)
    for deck_id, items in of_deck.items():
        assert items == [item for item in askable if item.deck_id == deck_id]
    return (
        askable,
        Counter(item.deck_id for item in askable),
        kept_decks,
        {(row.card_id, row.option): standing_name(row) for _deck, row in rows},
    )


def table_equals_recomputation(database: Database) -> bool:
    """Store the stale cards, then compare every kept row with its recomputation."""
    bring_up_to_date(database)
    with database.reading() as transaction:
        assert transaction.follow_up_summary.stale() == []
        kept = sorted(row for _deck, row in transaction.follow_up_summary.rows())
        ids = transaction.follow_up_summary.picked()
        fresh = sorted(
            row for _deck, row in worked_out(transaction, transaction.options.deck_presets(), ids)
        )
        # The check's own recomputation, apart from the study layer's, agrees.
        assert (
            follow_up_check.wrong_summaries(transaction, transaction.options.deck_presets(), None)
            == []
        )
    return kept == fresh


def assert_same(database: Database, now: datetime) -> None:
    """Every result from the summary equals the one from history, before and after the
    stale cards are stored."""
    for fuzz in (False, True):
        schedulers = Schedulers(fuzz=fuzz)
        expected = from_history(database, schedulers, now)
        assert from_summary(database, schedulers, now) == expected
    figures = collect(database, Preferences(), now, period_days=None, zone=ZONE)
    assert figures.follow_ups.persisting == list(expected[3].values()).count("persisting")
    assert figures.follow_ups.faded == list(expected[3].values()).count("faded")
    assert figures.follow_ups.fading == list(expected[3].values()).count("fading")
    assert table_equals_recomputation(database)
    assert from_summary(database, Schedulers(fuzz=True), now) == expected


def study(database: Database, clock: Clock, deck: str, rounds: int, seed: int) -> None:
    session = session_for(database, Schedulers(fuzz=True), deck, seed)
    rng = random.Random(seed)
    for _ in range(rounds):
        if session.next_card(clock()) is None:
            clock.advance(hours=20)
            continue
        answer(session, clock, correct=rng.random() < 0.55, seconds=rng.randint(2, 30))


def test_queue_deck_list_and_statistics_from_the_summary_equal_those_from_history(
    bundled: Database, clock: Clock, tmp_path: Path
) -> None:
    use_preset(bundled, new_per_day=40, reviews_per_day=200)
    deck = forty_cards(bundled, clock())
    study(bundled, clock, deck, 300, seed=3)
    with bundled.reading() as transaction:
        assert len(transaction.follow_up_summary.stale()) > 5  # marked by the triggers
    now = clock()
    # Several follow-ups due today, and more waiting or faded: the comparison counts.
    expected = from_history(bundled, Schedulers(fuzz=True), now)
    assert expected[0]
    assert len(expected[3]) > len(expected[0])
    assert_same(bundled, now)

    # The deck list counts and the queue a new session reads come through the summary.
    overview = next(view for view in deck_overviews(bundled, now, ZONE) if view.key == deck)
    session = session_for(bundled, Schedulers(fuzz=True), deck)
    assert overview.due >= queue_of(session, now)[1].review > 0

    # Answers, then answers taken back: the triggers mark the cards, the readers follow.
    study(bundled, clock, deck, 60, seed=4)
    with bundled.reading() as transaction:
        assert transaction.follow_up_summary.stale()
    assert_same(bundled, clock())
    session = session_for(bundled, Schedulers(fuzz=True), deck, 5)
    for _ in range(5):
        answer(session, clock, correct=False)
    for _ in range(5):
        session.undo(clock())
    assert_same(bundled, clock())

    # The card's text changed: an option no longer wrong is no longer followed up.
    with bundled.transaction() as transaction:
        transaction.sql.run(
            "UPDATE card SET content = json_set(content, '$.choices[1].text', 'other') "
            "WHERE id = (SELECT card_id FROM follow_up_summary LIMIT 1)"
        )
    assert_same(bundled, clock())

    # Another rollover hour: every follow-up's schedule counts in other study days.
    with bundled.transaction() as transaction:
        chosen = transaction.options.preferences()
        transaction.options.set_preferences(dataclasses.replace(chosen, day_rollover_hour=7))
        assert len(transaction.follow_up_summary.stale()) >= len(expected[3]) // 2
    assert_same(bundled, clock())

    # Exported with its history, imported into another collection (a deck file's history
    # holds no picks: the imported cards have no follow-ups, and none are kept).
    target = tmp_path / "forty.json"
    export_deck(bundled, deck, target)
    other = Database(tmp_path / "other" / "recall.sqlite3")
    try:
        importing.import_files(other, Schedulers(fuzz=True), [target], clock())
        assert_same(other, clock())
    finally:
        other.close()


def test_a_second_computer_synced_keeps_the_same_summary(tmp_path: Path, clock: Clock) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    first, second = Device(tmp_path, "desk", shared), Device(tmp_path, "laptop", shared)
    try:
        use_preset(first.database, new_per_day=40, reviews_per_day=200)
        deck = forty_cards(first.database, clock())
        study(first.database, clock, deck, 250, seed=8)
        first.sync(clock())
        second.sync(clock())
        assert_same(first.database, clock())
        assert_same(second.database, clock())
        synced = from_history(second.database, Schedulers(), clock())
        assert synced[3]  # the picks travelled with the answers: follow-ups on both
        assert synced == from_history(first.database, Schedulers(), clock())
    finally:
        first.close()
        second.close()


def test_check_reports_a_wrong_row_and_repair_rewrites_it(bundled: Database, clock: Clock) -> None:
    use_preset(bundled, new_per_day=40, reviews_per_day=200)
    deck = forty_cards(bundled, clock())
    study(bundled, clock, deck, 200, seed=9)
    bring_up_to_date(bundled)
    schedulers = Schedulers(fuzz=True)
    assert integrity.check(bundled, schedulers, clock()).healthy
    with bundled.transaction() as transaction:
        transaction.sql.run(
            "UPDATE follow_up_summary SET due = due + 86400000000 "
            "WHERE rowid = (SELECT min(rowid) FROM follow_up_summary WHERE standing = 0)"
        )
    # A full check compares every card's rows (the default, the cards changed since the
    # last healthy check, as for the replay).
    report = integrity.check(bundled, schedulers, clock(), full=True)
    assert len(report.follow_ups) == 1
    assert any("kept summary of its follow-ups" in problem for problem in report.problems)
    assert repair.can_repair(report)
    repaired = repair.repair(bundled, schedulers, report, clock())
    assert repaired.after.healthy
    assert table_equals_recomputation(bundled)


def test_the_askable_follow_ups_kept_are_made_only_when_looked_at(
    bundled: Database, clock: Clock
) -> None:
    """The queue's follow-ups are rows until looked at; looking at one, replacing a card's
    and asking what comes due later give what the made list gives."""
    from recall.study.askable import AskableFollowUps, place_of

    use_preset(bundled, new_per_day=40, reviews_per_day=200)
    study(bundled, clock, forty_cards(bundled, clock()), 300, seed=3)
    bring_up_to_date(bundled)  # every follow-up read as a row of the table
    now = clock()
    _start, end = days.study_day(now, Preferences().day_rollover_hour, ZONE)
    with bundled.reading() as transaction:
        kept = Kept(transaction, transaction.options.deck_presets(), store=False)
        lazy = kept.askable(end, False, now)
        made = AskableFollowUps.of(lazy.made())
        fresh = kept.askable(end, False, now)
    assert len(made) > 2
    first = fresh.first()
    assert first is not None
    assert first == made.first()
    moved = dataclasses.replace(
        first,
        follow_up=dataclasses.replace(
            first.follow_up,
            memory=dataclasses.replace(first.follow_up.memory, due=end - (end - now) / 2),
        ),
    )
    for kept_follow_ups in (fresh, made):
        assert kept_follow_ups.of_card(first.card_id) == [first]
        kept_follow_ups.replace_card(first.card_id, [moved])
        assert kept_follow_ups.of_card(first.card_id) == [moved]
    assert fresh.made() == made.made()
    assert sorted(fresh.made(), key=place_of) == fresh.made()
    moment = place_of(moved)[0] - 1
    assert fresh.first_due_after(moment) == made.first_due_after(moment)
    assert fresh.first_due_after(moment) == min(
        due for due, _card in map(place_of, made.made()) if due > moment
    )
