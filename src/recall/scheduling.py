"""FSRS scheduling: apply one review, preview every rating, replay a history.

This is the only module that imports ``fsrs``. Interval fuzz is drawn from a generator
seeded by the card and the review time, so replaying a card's history reproduces its
stored schedule exactly, fuzz included (Anki seeds its fuzz from the card the same way).
"""

from __future__ import annotations

import hashlib
import math
import random
from collections.abc import Iterable
from datetime import datetime, timedelta
from typing import NamedTuple, cast

import fsrs

from recall.memory import NEW_CARD, CardState, MemoryState, Rating, ReviewKind
from recall.settings import Settings

# py-fsrs's fuzz ranges: (from days, to days, share of the interval within that range).
_FUZZ_RANGES = ((2.5, 7.0, 0.15), (7.0, 20.0, 0.1), (20.0, math.inf, 0.05))


class PastReview(NamedTuple):
    """The part of a stored history entry that scheduling needs.

    Attributes:
        rating: The answer's rating; None for an entry made by hand.
        kind: An answer, or a schedule change made by hand (forget, set due date).
        set_due: For a set due date, the due date given.
    """

    reviewed_at: datetime
    rating: Rating | None
    kind: ReviewKind = ReviewKind.ANSWER
    set_due: datetime | None = None


# What replay reads for each history entry: (time, rating) for an answer, or
# (time, None, kind, due date set) for a change made by hand. A PastReview is either.
ByHand = tuple[datetime, None, ReviewKind, datetime | None]
HistoryEntry = tuple[datetime, Rating] | ByHand | PastReview


class Scheduler:
    """FSRS with Recall's settings, working on ``MemoryState`` values."""

    def __init__(self, settings: Settings) -> None:
        self._fsrs = fsrs.Scheduler(
            desired_retention=settings.desired_retention,
            learning_steps=settings.learning_steps,
            relearning_steps=settings.relearning_steps,
            maximum_interval=settings.maximum_interval_days,
            enable_fuzzing=False,
        )
        # Gives a new card the memory of a first Good answer that goes straight to review,
        # for a due date set by hand on a card never studied.
        self._no_steps = fsrs.Scheduler(
            desired_retention=settings.desired_retention,
            learning_steps=(),
            relearning_steps=settings.relearning_steps,
            maximum_interval=settings.maximum_interval_days,
            enable_fuzzing=False,
        )
        self._fuzz = settings.fuzz
        self._maximum_interval = settings.maximum_interval_days

    def review(
        self, card_id: int, memory: MemoryState, rating: Rating, now: datetime
    ) -> MemoryState:
        """The card's memory state after a review.

        Args:
            card_id: The card's database id; it seeds the interval fuzz.
            memory: The state before the review.
            rating: The rating given.
            now: When the review happened, aware UTC.

        Raises:
            ValueError: ``now`` is not aware UTC.
        """
        _require_utc(now)
        return _memory(self._step(card_id, _to_fsrs(card_id, memory, now), rating, now))

    def _step(self, card_id: int, card: fsrs.Card, rating: Rating, now: datetime) -> fsrs.Card:
        """One review on fsrs's own card; its due date fuzzed as Recall fuzzes it."""
        after, _ = self._fsrs.review_card(card, _FSRS_RATINGS[rating], now)
        if self._fuzz and after.state == fsrs.State.Review:
            after.due = now + self._fuzzed(after.due - now, card_id, now)
        return after

    def forgetting_curve(self) -> tuple[float, float]:
        """FSRS's forgetting curve R = (1 + factor * t / S) ** decay, as (decay, factor)."""
        decay = -float(self._fsrs.parameters[20])
        return decay, 0.9 ** (1 / decay) - 1

    def preview(self, card_id: int, memory: MemoryState, now: datetime) -> dict[Rating, timedelta]:
        """How long until the card is due again under each rating, reviewed at ``now``."""
        intervals: dict[Rating, timedelta] = {}
        for rating in Rating:
            due = self.review(card_id, memory, rating, now).due
            assert due is not None
            intervals[rating] = due - now
        return intervals

    def set_due(
        self, card_id: int, memory: MemoryState, due: datetime, now: datetime
    ) -> MemoryState:
        """The card's memory state after its due date is set by hand, as Anki's "Set Due Date".

        The card becomes a review card due then. One never studied gets the stability and
        difficulty of a first Good answer given ``now``; a studied one keeps its own.
        """
        _require_utc(now)
        _require_utc(due)
        if memory.state is CardState.NEW:
            first, _ = self._no_steps.review_card(
                _to_fsrs(card_id, memory, now), fsrs.Rating.Good, now
            )
            return MemoryState(CardState.REVIEW, None, first.stability, first.difficulty, due, now)
        return MemoryState(
            CardState.REVIEW, None, memory.stability, memory.difficulty, due, memory.last_review
        )

    def replay(self, card_id: int, history: Iterable[HistoryEntry]) -> MemoryState:
        """A card's memory state from its history, applied in the order given.

        Answers are reviewed; a forget makes the card new again; a due date set by hand
        moves the card's due date (``set_due``). The same as applying ``apply`` to each in
        turn (a test holds that), without converting the state to and from fsrs's card
        between answers.
        """
        card: fsrs.Card | None = None
        for entry in history:
            reviewed_at, rating = entry[0], entry[1]
            _require_utc(reviewed_at)
            if rating is None:
                # A change made by hand: (time, None, kind, due date set).
                by_hand = cast(ByHand, entry)
                before = NEW_CARD if card is None else _memory(card)
                memory = self.apply(card_id, before, PastReview(*by_hand))
                new = memory.state is CardState.NEW
                card = None if new else _to_fsrs(card_id, memory, reviewed_at)
                continue
            if card is None:
                card = _to_fsrs(card_id, NEW_CARD, reviewed_at)
            card = self._step(card_id, card, rating, reviewed_at)
        return NEW_CARD if card is None else _memory(card)

    def apply(self, card_id: int, memory: MemoryState, past: PastReview) -> MemoryState:
        """The memory state after one history entry: an answer, a forget or a set due date."""
        if past.kind is ReviewKind.FORGET:
            return NEW_CARD
        if past.kind is ReviewKind.SET_DUE:
            assert past.set_due is not None, "a set due date entry has its date"
            return self.set_due(card_id, memory, past.set_due, past.reviewed_at)
        assert past.rating is not None, "an answer has a rating"
        return self.review(card_id, memory, past.rating, past.reviewed_at)

    def replay_with_states(
        self, card_id: int, history: Iterable[PastReview]
    ) -> tuple[dict[datetime, CardState], MemoryState]:
        """``states_before`` and ``replay`` of the same history, in one pass over it."""
        states: dict[datetime, CardState] = {}
        card: fsrs.Card | None = None
        for past in history:
            _require_utc(past.reviewed_at)
            states[past.reviewed_at] = CardState.NEW if card is None else _STATES[card.state]
            if past.rating is None:  # a change made by hand, applied as replay does
                before = NEW_CARD if card is None else _memory(card)
                memory = self.apply(card_id, before, past)
                new = memory.state is CardState.NEW
                card = None if new else _to_fsrs(card_id, memory, past.reviewed_at)
                continue
            if card is None:
                card = _to_fsrs(card_id, NEW_CARD, past.reviewed_at)
            card = self._step(card_id, card, past.rating, past.reviewed_at)
        return states, NEW_CARD if card is None else _memory(card)

    def states_before(
        self, card_id: int, history: Iterable[PastReview]
    ) -> dict[datetime, CardState]:
        """The card's learning state just before each review of ``history``, by its time."""
        states: dict[datetime, CardState] = {}
        memory = NEW_CARD
        for past in history:
            states[past.reviewed_at] = memory.state
            memory = self.apply(card_id, memory, past)
        return states

    def _fuzzed(self, interval: timedelta, card_id: int, now: datetime) -> timedelta:
        days = interval.days
        if days < 2.5:
            return interval
        # Summed in the same order as ever, so every stored interval replays to the bit.
        total = 0.0
        for start, end, share in _FUZZ_RANGES:
            total += share * max(min(float(days), end) - start, 0.0)
        spread = 1.0 + total
        shortest = max(2, round(days - spread))
        longest = min(round(days + spread), self._maximum_interval)
        shortest = min(shortest, longest)
        return timedelta(
            days=fuzz_draw(f"{card_id}:{round(now.timestamp() * 1_000_000)}", shortest, longest)
        )


def fuzz_draw(seed: str, shortest: int, longest: int) -> int:
    """``random.Random(seed).randint(shortest, longest)``, without its Python-level steps.

    Seeding from a string hashes it with SHA-512 and seeds from the bytes and the digest
    as one integer; ``randint`` is ``shortest`` plus a draw below the width. Done here
    directly (about a quarter of a replay otherwise); a test holds it equal to
    ``random.Random``'s own, so a change in Python cannot go unnoticed.
    """
    encoded = seed.encode()
    generator = random.Random(int.from_bytes(encoded + hashlib.sha512(encoded).digest()))
    below: int = generator._randbelow(longest - shortest + 1)  # type: ignore[attr-defined]
    return shortest + below


_FSRS_RATINGS = {rating: fsrs.Rating(int(rating)) for rating in Rating}
_STATES = {state: CardState(int(state)) for state in fsrs.State}


def _memory(card: fsrs.Card) -> MemoryState:
    return MemoryState(
        state=_STATES[card.state],
        step=card.step,
        stability=card.stability,
        difficulty=card.difficulty,
        due=card.due,
        last_review=card.last_review,
    )


def _to_fsrs(card_id: int, memory: MemoryState, now: datetime) -> fsrs.Card:
    if memory.state is CardState.NEW:
        return fsrs.Card(card_id=card_id, state=fsrs.State.Learning, step=0, due=now)
    return fsrs.Card(
        card_id=card_id,
        state=fsrs.State(int(memory.state)),
        step=memory.step,
        stability=memory.stability,
        difficulty=memory.difficulty,
        due=memory.due or now,
        last_review=memory.last_review,
    )


def _require_utc(moment: datetime) -> None:
    if moment.tzinfo is None or moment.utcoffset() != timedelta(0):
        raise ValueError(f"expected an aware UTC time, got {moment!r}")
