"""Time off: postpone, advance and days away are set-due entries in each card's history,
ordered by what they cost the learner's memory, undone exactly, and `recall check` agrees."""

from __future__ import annotations

import random
from datetime import timedelta

import pytest

from recall.changes.cards import Changes
from recall.collection import browse
from recall.collection.time_off import TimeOff, TimeOffError
from recall.core.memory import ReviewKind
from recall.core.preferences import Preferences
from recall.scheduling import Scheduler, Schedulers
from recall.storage import Database
from tests.changes.test_card_changes import healthy, snapshot
from tests.conftest import ZONE, Clock, answer_cards


def _time_off(database: Database) -> tuple[TimeOff, Changes, browse.Finder]:
    schedulers = Schedulers(fuzz=True)
    settings = Preferences()
    changes = Changes(database, schedulers, settings, ZONE, random.Random(3))
    finder = browse.Finder(database, Scheduler(), settings, ZONE)
    time_off = TimeOff(database, schedulers, finder, changes, settings.day_rollover_hour, ZONE)
    return time_off, changes, finder


@pytest.fixture
def spread(bundled: Database, clock: Clock) -> Database:
    """Studied cards given due dates from today to ten days ahead, a day after studying."""
    answer_cards(bundled, clock, 12)
    clock.advance(days=1)
    _, changes, finder = _time_off(bundled)
    ids = finder.find("-is:new", clock()).card_ids
    assert len(ids) >= 6
    for index, card_id in enumerate(ids):
        changes.set_due([card_id], str(index % 6), clock())
    clock.advance(hours=1)
    return bundled


def _days_ahead(finder: browse.Finder, clock: Clock, card_id: int) -> int:
    (row,) = finder.rows([card_id])
    assert row.memory.due is not None
    start = clock().astimezone(ZONE).date()
    return (row.memory.due.astimezone(ZONE).date() - start).days


def _set_due_entries(database: Database, card_id: int) -> int:
    with database.reading() as transaction:
        history = transaction.history.of_card(card_id)
    return sum(1 for entry in history if entry.kind is ReviewKind.SET_DUE)


def test_postpone_moves_due_cards_that_lose_least_first_and_undoes(
    spread: Database, clock: Clock
) -> None:
    time_off, changes, finder = _time_off(spread)
    due_now = set(finder.find("is:due", clock()).card_ids)
    assert len(due_now) >= 2
    before = snapshot(spread.path)
    plan = time_off.plan_postpone("", 3, clock())
    assert {move.card_id for move in plan} == due_now
    scheduler = Scheduler()
    losses = []
    for move in plan:
        (row,) = finder.rows([move.card_id])
        losses.append(
            scheduler.retrievability(row.id, row.memory, clock())
            - scheduler.retrievability(row.id, row.memory, move.due_after)
        )
    assert losses == sorted(losses)
    first = time_off.plan_postpone("", 3, clock(), count=1)
    assert [move.card_id for move in first] == [plan[0].card_id]
    entries = {card_id: _set_due_entries(spread, card_id) for card_id in due_now}
    change = time_off.make(plan, clock(), "Postpone")
    assert change.label.startswith("Postpone ")
    assert change.changed == len(due_now)
    for card_id in due_now:
        assert _days_ahead(finder, clock, card_id) == 3
        assert _set_due_entries(spread, card_id) == entries[card_id] + 1
    assert not set(finder.find("is:due", clock()).card_ids) & due_now
    healthy(spread, clock)
    changes.undo()
    assert snapshot(spread.path) == before
    healthy(spread, clock)


def test_advance_brings_the_lowest_recall_cards_of_the_coming_days_to_today(
    spread: Database, clock: Clock
) -> None:
    time_off, changes, finder = _time_off(spread)
    coming = set(finder.find("prop:due>0 prop:due<=5", clock()).card_ids)
    plan = time_off.plan_advance("", 5, clock())
    assert {move.card_id for move in plan} == coming
    recalls = [move.retrievability for move in plan]
    assert recalls == sorted(recalls)
    chosen = time_off.plan_advance("", 5, clock(), count=2)
    assert [move.card_id for move in chosen] == [move.card_id for move in plan[:2]]
    before = snapshot(spread.path)
    time_off.make(chosen, clock(), "Advance")
    assert {move.card_id for move in chosen} <= set(finder.find("is:due", clock()).card_ids)
    healthy(spread, clock)
    changes.undo()
    assert snapshot(spread.path) == before


def test_days_away_spread_their_backlog_over_as_many_days_after(
    spread: Database, clock: Clock
) -> None:
    time_off, changes, finder = _time_off(spread)
    today = clock().astimezone(ZONE).date()
    leave, back = today + timedelta(days=2), today + timedelta(days=4)
    away = set(finder.find("prop:due>=2 prop:due<=4", clock()).card_ids)
    assert len(away) >= 2
    plan = time_off.plan_away("", leave, back, clock())
    assert {move.card_id for move in plan} == away
    time_off.make(plan, clock(), "Spread the time away of")
    landed = sorted(_days_ahead(finder, clock, move.card_id) for move in plan)
    assert landed[0] == 5
    assert landed[-1] <= 7
    assert len(set(landed)) == min(3, len(plan))
    # The cards that fare worst by the day back come first.
    recalls = [move.retrievability for move in plan]
    assert recalls == sorted(recalls)
    healthy(spread, clock)
    changes.undo()
    assert not {card_id for card_id in away if _days_ahead(finder, clock, card_id) > 4}
    healthy(spread, clock)


@pytest.mark.parametrize(
    ("leave", "back", "message"),
    [(3, 1, "the return is before leaving"), (-1, 2, "has passed already")],
)
def test_time_away_that_cannot_be_says_why(
    spread: Database, clock: Clock, leave: int, back: int, message: str
) -> None:
    time_off, _, _ = _time_off(spread)
    today = clock().astimezone(ZONE).date()
    with pytest.raises(TimeOffError, match=message):
        time_off.plan_away("", today + timedelta(days=leave), today + timedelta(days=back), clock())


@pytest.mark.parametrize("days", [0, -2, 4000])
def test_a_postpone_of_no_days_says_how_many_it_takes(
    spread: Database, clock: Clock, days: int
) -> None:
    time_off, _, _ = _time_off(spread)
    with pytest.raises(TimeOffError, match="give 1 to 3650 days"):
        time_off.plan_postpone("", days, clock())
