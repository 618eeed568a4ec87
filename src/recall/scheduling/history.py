"""A card's history and schedule as scheduling reads them: the history entries, and the
conversions between ``MemoryState`` and the plain numbers ``card_memory`` stores and
``Replayer`` works on (times as UTC microseconds)."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from datetime import UTC, datetime, timedelta
from typing import NamedTuple, cast

from recall.core.memory import CardState, MemoryState, Rating, ReviewKind
from recall.scheduling.replay import RawEntry, RawMemory


class PastReview(NamedTuple):
    """The part of a stored history entry that scheduling needs.

    Attributes:
        rating: The answer's rating; None for an entry made by hand.
        kind: An answer, or a schedule change made by hand (forget, set due date).
        set_due: For a set due date or a memory entry, the due date given; for an answer,
            the due date scheduling chose for it, if it chose one.
        stability: For a memory entry, the stability given.
        difficulty: For a memory entry, the difficulty given.
    """

    reviewed_at: datetime
    rating: Rating | None
    kind: ReviewKind = ReviewKind.ANSWER
    set_due: datetime | None = None
    stability: float | None = None
    difficulty: float | None = None


# What replay reads for each history entry: (time, rating) for an answer, or
# (time, None, kind, due date set) for a change made by hand. A PastReview is either.
ByHand = tuple[datetime, None, ReviewKind, datetime | None]
HistoryEntry = tuple[datetime, Rating] | ByHand | PastReview


def raw_memory(memory: MemoryState) -> RawMemory:
    """A schedule as ``card_memory`` stores it (``memory_of`` turned round)."""
    return (
        int(memory.state),
        memory.step,
        memory.stability,
        memory.difficulty,
        None if memory.due is None else to_micros(memory.due),
        None if memory.last_review is None else to_micros(memory.last_review),
    )


def raw_history(seed: int, history: Iterable[HistoryEntry]) -> list[RawEntry]:
    """History entries as ``Replayer`` reads them (the seed in the card id's place, which
    it does not read); refuses a time that is not aware UTC."""
    raw: list[RawEntry] = []
    for entry in history:
        reviewed_at, rating = entry[0], entry[1]
        require_utc(reviewed_at)
        if rating is None:
            by_hand = cast(ByHand, entry)
            due = by_hand[3]
            if due is not None:
                require_utc(due)
            micros = None if due is None else to_micros(due)
            stability = difficulty = None
            if len(entry) > 4:  # a PastReview: a memory entry carries its memory state
                stability, difficulty = entry[4:6]
            raw.append(
                (seed, to_micros(reviewed_at), 0, int(by_hand[2]), micros, stability, difficulty)
            )
        else:
            # A PastReview also carries its kind: a cram answer has a rating too.
            kind = chosen = None
            if len(entry) > 2:
                past = cast(PastReview, entry)
                kind = int(past.kind)
                if past.set_due is not None:
                    require_utc(past.set_due)
                    chosen = to_micros(past.set_due)
            raw.append((seed, to_micros(reviewed_at), int(rating), kind or 0, chosen, None, None))
    return raw


def chosen(after: MemoryState, due: datetime | None) -> MemoryState:
    """An answer's schedule with the due date scheduling chose for it (``NewReview.chosen_due``)
    in the fuzz draw's place: only an answer that leaves the card in review has one."""
    if due is None or after.state is not CardState.REVIEW:
        return after
    require_utc(due)
    return dataclasses.replace(after, due=due)


def memory_of(raw: RawMemory) -> MemoryState:
    """A schedule from its stored values (``card_memory``'s columns)."""
    state, step, stability, difficulty, due, last = raw
    return MemoryState(
        CARD_STATES[state], step, stability, difficulty, from_micros(due), from_micros(last)
    )


CARD_STATES = tuple(CardState)
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_MICROSECOND = timedelta(microseconds=1)


def to_micros(moment: datetime) -> int:
    return (moment - _EPOCH) // _MICROSECOND


def from_micros(micros: int | None) -> datetime | None:
    return None if micros is None else _EPOCH + timedelta(microseconds=micros)


def require_utc(moment: datetime) -> None:
    if moment.tzinfo is None or moment.utcoffset() != timedelta(0):
        raise ValueError(f"expected an aware UTC time, got {moment!r}")
