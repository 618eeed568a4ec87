"""The follow-ups due today are counted and read by the schedule's copy of the card's deck:
after cards with follow-ups move to another deck or a subdeck (and back, by undo), are
suspended or buried, the counts and rows equal those read by the card's own deck."""

from __future__ import annotations

import random
from datetime import datetime

from recall.changes.cards import Changes
from recall.core import days
from recall.core.preferences import Preferences
from recall.scheduling import Schedulers
from recall.storage import Database
from recall.storage.follow_up_summary import ACTIVE
from recall.storage.times import to_micros
from recall.study.follow_up_summary import bring_up_to_date
from tests.conftest import ZONE, Clock
from tests.study.test_follow_up_summary import assert_same, study
from tests.study.test_study import use_preset
from tests.study.test_study_queue import forty_cards

# The askable follow-ups as read before the schedule's copy of the deck was: by the card's.
_BY_CARD = (
    "FROM follow_up_summary AS s CROSS JOIN card ON card.id = s.card_id "
    "JOIN card_memory ON card_memory.card_id = s.card_id WHERE {decks} s.standing = {active} "
    "AND {column} < ? AND NOT coalesce(card_memory.suspended, 0) "
    "AND coalesce(card_memory.buried_until, 0) <= ? AND card_memory.state NOT IN (1, 3) "
    "AND s.card_id NOT IN (SELECT card_id FROM follow_up_stale)"
)


def _compare(
    database: Database, now: datetime, deck_sets: list[list[int] | None]
) -> dict[int, int]:
    """Every count and row read by deck copy equals the one read by the card's deck;
    returns the askable follow-ups' count per deck (with fuzz, as studying schedules)."""
    _start, end = days.study_day(now, Preferences().day_rollover_hour, ZONE)
    before, at = to_micros(end), to_micros(now)
    assert before is not None
    assert at is not None
    total: dict[int, int] = {}
    with database.reading() as transaction:
        assert transaction.checks.misplaced_schedules() == []
        queries = transaction.follow_up_summary
        for fuzz in (False, True):
            column = "s.due" if fuzz else "s.due_unfuzzed"
            for deck_ids in deck_sets:
                decks = (
                    ""
                    if deck_ids is None
                    else f"card.deck_id IN ({', '.join('?' * len(deck_ids)) or 'NULL'}) AND"
                )
                condition = _BY_CARD.format(decks=decks, active=ACTIVE, column=column)
                parameters = (*(deck_ids or ()), before, at)
                counted: dict[int, int] = dict(
                    transaction.sql.rows(
                        f"SELECT card.deck_id, count(*) {condition} GROUP BY card.deck_id",
                        parameters,
                    )
                )
                assert queries.askable_counts(before, fuzz, at, deck_ids) == counted
                rows = queries.askable_before(before, fuzz, at, deck_ids)
                assert [(row[0], row[15]) for row in rows] == transaction.sql.rows(
                    f"SELECT s.card_id, card.deck_id {condition} ORDER BY {column}, s.card_id",
                    parameters,
                )
                if deck_ids is None and fuzz:
                    total = counted
    return total


def test_follow_ups_of_moved_suspended_and_buried_cards_count_in_the_cards_decks(
    bundled: Database, clock: Clock
) -> None:
    use_preset(bundled, new_per_day=40, reviews_per_day=200)
    deck_key = forty_cards(bundled, clock())
    study(bundled, clock, deck_key, 300, seed=3)
    bring_up_to_date(bundled)
    with bundled.transaction() as transaction:
        forty = transaction.decks.by_key(deck_key)
        assert forty is not None
        other = transaction.decks.add("other", "Other", "", clock())
        sub = transaction.decks.add("forty-sub", "Forty::Sub", "", clock())
        picked = [
            int(row[0])
            for row in transaction.sql.rows(
                "SELECT DISTINCT card_id FROM follow_up_summary WHERE standing = ? "
                "ORDER BY card_id",
                (ACTIVE,),
            )
        ]
    assert len(picked) >= 6
    decks = [None, [forty.id], [other.id], [sub.id], [forty.id, sub.id], []]
    now = clock()
    askable = _compare(bundled, now, decks)
    assert list(askable) == [forty.id]

    changes = Changes(
        bundled, Schedulers(fuzz=True), Preferences(), zone=ZONE, rng=random.Random(1)
    )
    changes.move(picked[0::3], other)
    changes.move(picked[1::3], sub)
    _compare(bundled, now, decks)  # the moved cards are stale: none read from the table
    bring_up_to_date(bundled)
    moved = _compare(bundled, now, decks)
    assert set(moved) == {forty.id, other.id, sub.id}
    assert sum(moved.values()) == sum(askable.values())
    assert_same(bundled, now)

    changes.suspend(picked[0:1])
    changes.bury(picked[1:2], now)
    bring_up_to_date(bundled)
    _compare(bundled, now, decks)
    assert_same(bundled, now)

    for _ in range(4):  # the bury, the suspension, both moves
        changes.undo()
    bring_up_to_date(bundled)
    assert _compare(bundled, now, decks) == askable
    with bundled.reading() as transaction:
        assert (
            transaction.sql.value(
                "SELECT count(*) FROM card WHERE deck_id IN (?, ?)", (other.id, sub.id)
            )
            == 0
        )
    assert_same(bundled, now)
