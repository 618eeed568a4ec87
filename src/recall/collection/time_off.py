"""Time off: postpone due cards, advance cards before a trip, spread the backlog of days away.

Each is a set due date worked out card by card (``Changes.set_due_dates``): an entry of the
card's history, so a replay, ``recall check`` and sync give the same schedule, and one
undoable change. Which cards move first follows what a move costs the learner's memory,
under each card's own preset's forgetting curve:

- postponing a card by ``d`` days costs the recall it loses by then, R(now) - R(due + d):
  cards with long intervals and high retrievability lose least, so they move first;
- reviewing a card early costs least when its retrievability is already low (an early
  review of a card still well known strengthens it little), so those are advanced first;
- after days away, the cards whose retrievability will be lowest on the day back come
  first, and the rest are spread evenly over as many days as the time away lasted.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime, timedelta, tzinfo

from recall.changes.cards import Changes
from recall.changes.change import Change, ChangeError
from recall.collection.browse import BrowseRow, Finder
from recall.core import wording
from recall.core.i18n import tr, trn
from recall.core.memory import CardState, MemoryState
from recall.core.presets import DeckPresets
from recall.scheduling import Scheduler, Schedulers
from recall.storage import Database

_LONGEST = 3650  # days: a postpone or a time away longer than ten years is a typo


class TimeOffError(ChangeError):
    """Time off asked for in a way that cannot be done (no days, a return before leaving)."""


@dataclass(frozen=True)
class Move:
    """One card's planned move.

    Attributes:
        card_id: The card.
        due_before: Its due date now.
        due_after: The due date it gets.
        retrievability: The chance it is recalled at the moment that ordered it (now for
            postpone and advance, the day back for time away).
    """

    card_id: int
    due_before: datetime
    due_after: datetime
    retrievability: float


class TimeOff:
    """Plans and makes the time-off changes for one collection.

    Args:
        database: The collection.
        schedulers: Each card's preset's forgetting curve.
        finder: Runs the search that chooses the cards.
        changes: Records the due dates and keeps the undo stack.
        rollover_hour: The hour a study day begins.
        zone: The learner's time zone; None is the system's.
    """

    def __init__(
        self,
        database: Database,
        schedulers: Schedulers,
        finder: Finder,
        changes: Changes,
        rollover_hour: int,
        zone: tzinfo | None = None,
    ) -> None:
        self._database = database
        self._schedulers = schedulers
        self._finder = finder
        self._changes = changes
        self._hour = rollover_hour
        self._zone = zone

    def plan_postpone(
        self, search: str, days: int, now: datetime, count: int | None = None
    ) -> list[Move]:
        """Review cards due today that ``search`` matches, postponed by ``days`` days, the
        ``count`` that lose least (all when None).

        Raises:
            TimeOffError: ``days`` is not 1 to 3650, or ``count`` is negative.
            SearchError: The search cannot be understood.
        """
        _check_days(days, tr("cannot postpone by {days} days: give 1 to {most} days"))
        rows = self._due_cards(_scoped(search, "is:due"), now)
        schedulers = self._scheduler_of()
        scored = []
        for row in rows:
            scheduler, memory = schedulers(row.deck_id), row.memory
            assert memory.due is not None
            offset = max(self._day_offset(memory.due, now), 0) + days
            after = self._changes.due_in(offset, now)
            kept = self._recall(scheduler, row, now)
            loss = kept - self._recall(scheduler, row, after)
            scored.append((loss, row.id, Move(row.id, memory.due, after, kept)))
        scored.sort(key=lambda item: (item[0], item[1]))
        return _first([move for _, _, move in scored], count)

    def plan_advance(
        self, search: str, within_days: int, now: datetime, count: int | None = None
    ) -> list[Move]:
        """Review cards due in the next ``within_days`` days (not today), due today instead:
        the ``count`` (all when None) whose early review costs least, lowest recall first.

        Raises:
            TimeOffError: ``within_days`` is not 1 to 3650, or ``count`` is negative.
            SearchError: The search cannot be understood.
        """
        _check_days(
            within_days, tr("cannot advance cards due within {days} days: give 1 to {most} days")
        )
        rows = self._due_cards(_scoped(search, f"prop:due>0 prop:due<={within_days}"), now)
        schedulers = self._scheduler_of()
        scored = []
        for row in rows:
            assert row.memory.due is not None
            recall = self._recall(schedulers(row.deck_id), row, now)
            scored.append((recall, row.id, Move(row.id, row.memory.due, now, recall)))
        scored.sort(key=lambda item: (item[0], item[1]))
        return _first([move for _, _, move in scored], count)

    def plan_away(self, search: str, leave: date, back: date, now: datetime) -> list[Move]:
        """The review cards ``search`` matches that fall due from ``leave`` to ``back`` (study
        days, both away), spread over as many days from the day after ``back``.

        Cards already overdue when leaving today are part of the backlog too.

        Raises:
            TimeOffError: ``back`` is before ``leave``, ``leave`` has passed, or the time
                away is longer than ten years.
            SearchError: The search cannot be understood.
        """
        today = self._study_date(now)
        if leave < today:
            raise TimeOffError(
                tr("time away from {leave} to {back}: {leave} has passed already").format(
                    leave=leave, back=back
                )
            )
        if back < leave:
            raise TimeOffError(
                tr("time away from {leave} to {back}: the return is before leaving").format(
                    leave=leave, back=back
                )
            )
        span = (back - leave).days + 1
        _check_days(span, tr("cannot be away for {days} days: give 1 to {most} days"))
        first = (leave - today).days
        last = (back - today).days
        lower = "" if first == 0 else f"prop:due>={first}"
        rows = self._due_cards(_scoped(search, f"{lower} prop:due<={last}"), now)
        return_offset = last + 1
        returning = self._changes.due_in(return_offset, now)
        schedulers = self._scheduler_of()
        scored = []
        for row in rows:
            scored.append((self._recall(schedulers(row.deck_id), row, returning), row.id, row))
        scored.sort(key=lambda item: (item[0], item[1]))
        moves = []
        for index, (recall, _, row) in enumerate(scored):
            assert row.memory.due is not None
            offset = return_offset + index * span // len(scored)
            moves.append(Move(row.id, row.memory.due, self._changes.due_in(offset, now), recall))
        return moves

    def make(self, moves: Sequence[Move], now: datetime, label: str) -> Change:
        """Make the planned moves as one undoable change in each card's history."""
        return self._changes.set_due_dates(
            [(move.card_id, move.due_after) for move in moves], now, label
        )

    def _due_cards(self, search: str, now: datetime) -> list[BrowseRow]:
        ids = self._finder.find(search, now).card_ids
        return [
            row
            for row in self._finder.rows(ids)
            if row.memory.state is CardState.REVIEW
            and row.memory.due is not None
            and not row.suspended
        ]

    def _scheduler_of(self) -> _SchedulerOf:
        with self._database.reading() as transaction:
            presets = transaction.options.deck_presets()
        return _SchedulerOf(self._schedulers, presets)

    def _recall(self, scheduler: Scheduler, row: BrowseRow, moment: datetime) -> float:
        memory: MemoryState = row.memory
        return scheduler.retrievability(row.id, memory, moment)

    def _study_date(self, moment: datetime) -> date:
        return (moment.astimezone(self._zone) - timedelta(hours=self._hour)).date()

    def _day_offset(self, moment: datetime, now: datetime) -> int:
        return (self._study_date(moment) - self._study_date(now)).days


class _SchedulerOf:
    """The scheduler of a deck's preset, the presets read once per plan."""

    def __init__(self, schedulers: Schedulers, presets: DeckPresets) -> None:
        self._schedulers = schedulers
        self._presets = presets

    def __call__(self, deck_id: int) -> Scheduler:
        return self._schedulers.for_deck(self._presets, deck_id)


def describe(moves: Sequence[Move], verb: str) -> str:
    """A one-line account of a plan: how many cards, and over which days.

    Args:
        moves: The plan.
        verb: What the plan does: "postpone", "advance" or "spread the time away of".
    """
    if verb == "postpone":
        none = tr("No cards to postpone.")
        one_day = trn(
            "Postpone {count} card: due {day}.", "Postpone {count} cards: due {day}.", len(moves)
        )
        days = trn(
            "Postpone {count} card: due from {first} to {last}.",
            "Postpone {count} cards: due from {first} to {last}.",
            len(moves),
        )
    elif verb == "advance":
        none = tr("No cards to advance.")
        one_day = trn(
            "Advance {count} card: due {day}.", "Advance {count} cards: due {day}.", len(moves)
        )
        days = trn(
            "Advance {count} card: due from {first} to {last}.",
            "Advance {count} cards: due from {first} to {last}.",
            len(moves),
        )
    else:
        none = tr("No cards to spread the time away of.")
        one_day = trn(
            "Spread the time away of {count} card: due {day}.",
            "Spread the time away of {count} cards: due {day}.",
            len(moves),
        )
        days = trn(
            "Spread the time away of {count} card: due from {first} to {last}.",
            "Spread the time away of {count} cards: due from {first} to {last}.",
            len(moves),
        )
    if not moves:
        return none
    earliest = min(move.due_after for move in moves).date()
    latest = max(move.due_after for move in moves).date()
    count = wording.number(len(moves))
    if earliest == latest:
        return one_day.format(count=count, day=earliest)
    return days.format(count=count, first=earliest, last=latest)


def _scoped(search: str, condition: str) -> str:
    search = search.strip()
    return f"({search}) {condition}" if search else condition


def _check_days(days: int, refusal: str) -> None:
    """Refuse a number of days out of range with ``refusal`` (``{days}``, ``{most}``)."""
    if not 1 <= days <= _LONGEST:
        raise TimeOffError(refusal.format(days=days, most=_LONGEST))


def _first(moves: list[Move], count: int | None) -> list[Move]:
    if count is None:
        return moves
    if count < 0:
        raise TimeOffError(
            tr("cannot move {count} cards: give a count of 0 or more").format(count=count)
        )
    return moves[:count]
