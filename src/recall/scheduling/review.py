"""One card's reviews under FSRS: apply one review, preview every rating, replay a history.

The history entries it reads and the stored values it turns schedules into are
``history``'s; the default parameters are ``parameters``'s.

The ``scheduling`` package is the only place that imports ``fsrs``. Interval fuzz is drawn
from a generator seeded by the card's seed and the review time, so replaying a card's
history reproduces its stored schedule exactly, fuzz included (Anki seeds its fuzz from the
card the same way). The seed is a number the card keeps on every computer, not its
database id, so every computer that replays the same history on the same study days
(rollover hour and time zone) gets the same due dates.
"""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Iterable, Sequence
from datetime import datetime, timedelta
from typing import NamedTuple

import fsrs

from recall.core.days import StudyDays
from recall.core.memory import NEW_CARD, CardState, MemoryState, Rating, ReviewKind
from recall.core.presets import DeckPresets, Preset
from recall.scheduling.history import (
    CARD_STATES,
    HistoryEntry,
    PastReview,
    chosen,
    memory_of,
    raw_history,
    raw_memory,
    require_utc,
    to_micros,
)
from recall.scheduling.parameters import DEFAULT_PARAMETERS
from recall.scheduling.replay import RawEntry, RawMemory, Replayer, fuzz_draw


class FuzzRange(NamedTuple):
    """The intervals an answer's fuzz draw chooses from, in whole days after the answer.

    Attributes:
        interval: FSRS's interval before fuzz.
        shortest: The shortest interval the draw can give.
        longest: The longest interval the draw can give.
    """

    interval: int
    shortest: int
    longest: int


class Scheduler:
    """FSRS with one preset's options, working on ``MemoryState`` values.

    Args:
        preset: Steps, desired retention, maximum interval and FSRS parameters (empty
            parameters mean FSRS's defaults).
        fuzz: Spread review intervals by a few percent so cards do not clump; tests turn
            it off to see FSRS's exact intervals.
        days: How reviews fall into study days. FSRS is given the study days between a
            review and the one before, as Anki gives it (reviews on one study day are
            short-term); py-fsrs's formulas are used as they are.
    """

    def __init__(
        self, preset: Preset | None = None, fuzz: bool = True, days: StudyDays | None = None
    ) -> None:
        preset = preset or Preset()
        self.preset = preset
        self.days = days = days or StudyDays()
        self._fsrs = fsrs.Scheduler(
            parameters=preset.parameters or DEFAULT_PARAMETERS,
            desired_retention=preset.desired_retention,
            learning_steps=preset.learning_steps,
            relearning_steps=preset.relearning_steps,
            maximum_interval=preset.maximum_interval,
            enable_fuzzing=False,
        )
        # Gives a new card the memory of a first Good answer that goes straight to review,
        # for a due date set by hand on a card never studied.
        self._no_steps = fsrs.Scheduler(
            parameters=preset.parameters or DEFAULT_PARAMETERS,
            desired_retention=preset.desired_retention,
            learning_steps=(),
            relearning_steps=preset.relearning_steps,
            maximum_interval=preset.maximum_interval,
            enable_fuzzing=False,
        )
        self._fuzz = fuzz
        self._maximum_interval = preset.maximum_interval
        self._replayer = Replayer(
            parameters=self._fsrs.parameters,
            desired_retention=preset.desired_retention,
            learning_steps=preset.learning_steps,
            relearning_steps=preset.relearning_steps,
            maximum_interval=preset.maximum_interval,
            fuzz=fuzz,
            days=days,
        )

    @property
    def fuzzes(self) -> bool:
        """Whether review intervals are fuzzed (and so have a range to balance in)."""
        return self._fuzz

    def review(self, seed: int, memory: MemoryState, rating: Rating, now: datetime) -> MemoryState:
        """The card's memory state after a review.

        Worked out by ``Replayer`` on integers, as a replay is, without py-fsrs's card copy
        and ``datetime`` arithmetic; a property test holds it equal to ``review_by_steps``
        (py-fsrs's ``review_card``) from every kind of schedule.

        Args:
            seed: The card's seed (``CardRow.seed``, the same on every computer); it seeds
                the interval fuzz, so a replay anywhere gives the same due dates.
            memory: The state before the review.
            rating: The rating given.
            now: When the review happened, aware UTC.

        Raises:
            ValueError: ``now`` is not aware UTC.
        """
        require_utc(now)
        after, days = self._replayer.review(raw_memory(memory), int(rating), to_micros(now))
        if self._fuzz and days:
            after = self._replayer.fuzzed(seed, after, days)
        return memory_of(after)

    def review_in_range(
        self, seed: int, memory: MemoryState, rating: Rating, now: datetime
    ) -> tuple[MemoryState, FuzzRange | None]:
        """``review``'s schedule with the days its fuzz draw chose among, when it drew.

        Load balancing and Easy Days choose the due date inside that range instead
        (``balance``); an answer that leaves the card learning, a short interval and a
        scheduler without fuzz have no range.

        Raises:
            ValueError: ``now`` is not aware UTC.
        """
        require_utc(now)
        after, days = self._replayer.review(raw_memory(memory), int(rating), to_micros(now))
        if not self._fuzz or not days:
            return memory_of(after), None
        bounds = self._replayer.fuzz_bounds(days)
        after = self._replayer.fuzzed(seed, after, days)
        if bounds is None or bounds[0] == bounds[1]:
            return memory_of(after), None
        return memory_of(after), FuzzRange(days, *bounds)

    def review_by_steps(
        self, seed: int, memory: MemoryState, rating: Rating, now: datetime
    ) -> MemoryState:
        """``review`` through py-fsrs's own ``review_card`` (slow): the reference ``review``
        is tested against, as ``replay_by_steps`` is ``replay``'s."""
        require_utc(now)
        return _memory(self._step(seed, _to_fsrs(seed, memory, now), rating, now))

    def review_in_range_by_steps(
        self, seed: int, memory: MemoryState, rating: Rating, now: datetime
    ) -> tuple[MemoryState, FuzzRange | None]:
        """``review_in_range`` through py-fsrs's own ``review_card``: its reference."""
        require_utc(now)
        after = self._unfuzzed(_to_fsrs(seed, memory, now), rating, now)
        if not self._fuzz or after.state != fsrs.State.Review:
            return _memory(after), None
        interval = after.due - now
        bounds = self._fuzz_bounds(interval.days)
        after.due = now + self._fuzzed(interval, seed, now)
        if bounds is None or bounds[0] == bounds[1]:
            return _memory(after), None
        return _memory(after), FuzzRange(interval.days, *bounds)

    def _step(self, seed: int, card: fsrs.Card, rating: Rating, now: datetime) -> fsrs.Card:
        """One review on fsrs's own card; its due date fuzzed as Recall fuzzes it."""
        after = self._unfuzzed(card, rating, now)
        if self._fuzz and after.state == fsrs.State.Review:
            after.due = now + self._fuzzed(after.due - now, seed, now)
        return after

    def _unfuzzed(self, card: fsrs.Card, rating: Rating, now: datetime) -> fsrs.Card:
        """One review on fsrs's own card, its due date as FSRS gives it (before fuzz)."""
        on_days = self._on_study_days(card, now)
        after, _ = self._fsrs.review_card(on_days, _FSRS_RATINGS[rating], now)
        if (
            rating is Rating.EASY
            and card.state is not fsrs.State.Review
            and after.state is fsrs.State.Review
        ):
            # As Anki does, a learning card's Easy is always longer than its Good (py-fsrs
            # can give both the same number of days: when both graduate the card, or when
            # Good's next learning step is a day or more).
            good, _ = self._fsrs.review_card(on_days, fsrs.Rating.Good, now)
            good_days = (good.due - now).days
            if (after.due - now).days <= good_days:
                longest = self._maximum_interval
                after.due = now + timedelta(days=min(good_days + 1, longest))
        return after

    def _on_study_days(self, card: fsrs.Card, now: datetime) -> fsrs.Card:
        """The card with its last review moved to whole days before ``now``: as many as
        study days lie between them, which is what py-fsrs then counts as elapsed."""
        if card.last_review is None:
            return card
        elapsed = max(self.days.elapsed(card.last_review, now), 0)
        moved = copy.copy(card)
        moved.last_review = now - timedelta(days=elapsed)
        return moved

    def forgetting_curve(self) -> tuple[float, float]:
        """FSRS's forgetting curve R = (1 + factor * t / S) ** decay, as (decay, factor)."""
        decay = -float(self._fsrs.parameters[20])
        return decay, 0.9 ** (1 / decay) - 1

    def preview(self, seed: int, memory: MemoryState, now: datetime) -> dict[Rating, timedelta]:
        """How long until the card is due again under each rating, reviewed at ``now``."""
        intervals: dict[Rating, timedelta] = {}
        for rating in Rating:
            due = self.review(seed, memory, rating, now).due
            assert due is not None
            intervals[rating] = due - now
        return intervals

    def set_due(self, seed: int, memory: MemoryState, due: datetime, now: datetime) -> MemoryState:
        """The card's memory state after its due date is set by hand, as Anki's "Set Due Date".

        The card becomes a review card due then. One never studied gets the stability and
        difficulty of a first Good answer given ``now``; a studied one keeps its own.
        """
        require_utc(now)
        require_utc(due)
        if memory.state is CardState.NEW:
            first, _ = self._no_steps.review_card(
                _to_fsrs(seed, memory, now), fsrs.Rating.Good, now
            )
            return MemoryState(CardState.REVIEW, None, first.stability, first.difficulty, due, now)
        return MemoryState(
            CardState.REVIEW, None, memory.stability, memory.difficulty, due, memory.last_review
        )

    def replay(self, seed: int, history: Iterable[HistoryEntry]) -> MemoryState:
        """A card's memory state from its history, applied in the order given.

        Answers are reviewed; a forget makes the card new again; a due date set by hand
        moves the card's due date (``set_due``); a memory entry makes it a review card with
        the due date, stability and difficulty it holds, its last review left as it was. The
        same as applying ``apply`` to each in turn, worked out by ``Replayer`` on plain
        numbers (tests hold both equal).
        """
        return memory_of(self._replayer.replay(seed, raw_history(seed, history)))

    def replay_raw(self, seed: int, history: Sequence[RawEntry]) -> RawMemory:
        """``replay`` on stored values: entries and schedule as ``card_memory`` holds them.

        What check replays a million reviews with: no ``datetime`` or enum per review.
        """
        return self._replayer.replay(seed, history)

    def replay_by_steps(self, seed: int, history: Iterable[PastReview]) -> MemoryState:
        """``replay`` through py-fsrs's own ``review_card``, one entry at a time (slow).

        Kept as the reference ``replay`` is tested against.
        """
        card: fsrs.Card | None = None
        for past in history:
            require_utc(past.reviewed_at)
            if past.kind in (ReviewKind.CRAM, ReviewKind.FOLLOW_UP):
                continue  # answers that leave the card's schedule as it was
            if past.rating is None:
                before = NEW_CARD if card is None else _memory(card)
                memory = self.apply(seed, before, past)
                new = memory.state is CardState.NEW
                card = None if new else _to_fsrs(seed, memory, past.reviewed_at)
                continue
            if card is None:
                card = _to_fsrs(seed, NEW_CARD, past.reviewed_at)
            card = self._step(seed, card, past.rating, past.reviewed_at)
            if past.set_due is not None and card.state is fsrs.State.Review:
                card.due = past.set_due
        return NEW_CARD if card is None else _memory(card)

    def due_again(self, seed: int, memory: MemoryState) -> MemoryState:
        """The schedule replaying the card's history would give, from its stored one, when
        only desired retention or maximum interval changed.

        Neither moves a card between states nor changes its stability or difficulty (FSRS
        updates those from the ratings and the times between reviews): they only set how
        far a card in review is due after its last review. So that due date is worked out
        again from the stored stability, fuzzed as a review fuzzes it; a test holds the
        result equal to a full replay.
        """
        if (
            memory.state is not CardState.REVIEW
            or memory.stability is None
            or memory.last_review is None
        ):
            return memory
        reviewed = memory.last_review
        # py-fsrs has no public way to ask for one interval; its rounding and limits are
        # in _next_interval, and the equality test above catches a change in them.
        interval = timedelta(days=self._fsrs._next_interval(stability=memory.stability))
        if self._fuzz:
            interval = self._fuzzed(interval, seed, reviewed)
        return dataclasses.replace(memory, due=reviewed + interval)

    def retrievability(self, seed: int, memory: MemoryState, now: datetime) -> float:
        """The chance, under this scheduler's parameters, that the card is recalled at ``now``."""
        if memory.state is CardState.NEW:
            return 0.0
        card = self._on_study_days(_to_fsrs(seed, memory, now), now)
        return float(self._fsrs.get_card_retrievability(card, now))

    def apply(self, seed: int, memory: MemoryState, past: PastReview) -> MemoryState:
        """The memory state after one history entry: an answer, a forget, a set due date or a
        memory entry."""
        if past.kind is ReviewKind.FORGET:
            return NEW_CARD
        if past.kind in (ReviewKind.CRAM, ReviewKind.FOLLOW_UP):
            return memory
        if past.kind is ReviewKind.SET_DUE:
            assert past.set_due is not None, "a set due date entry has its date"
            return self.set_due(seed, memory, past.set_due, past.reviewed_at)
        if past.kind is ReviewKind.MEMORY:
            assert past.set_due is not None, "a memory entry has its due date"
            assert past.stability is not None
            assert past.difficulty is not None
            require_utc(past.set_due)
            last = memory.last_review if memory.state is not CardState.NEW else None
            return MemoryState(
                CardState.REVIEW,
                None,
                past.stability,
                past.difficulty,
                past.set_due,
                last or past.reviewed_at,
            )
        assert past.rating is not None, "an answer has a rating"
        after = self.review(seed, memory, past.rating, past.reviewed_at)
        return chosen(after, past.set_due)

    def replay_with_states(
        self, seed: int, history: Iterable[PastReview]
    ) -> tuple[dict[datetime, CardState], MemoryState]:
        """``states_before`` and ``replay`` of the same history, in one pass over it."""
        entries = list(history)
        states: list[int] = []
        raw = self._replayer.replay(seed, raw_history(seed, entries), states)
        before = {
            past.reviewed_at: CARD_STATES[state]
            for past, state in zip(entries, states, strict=True)
        }
        return before, memory_of(raw)

    def states_before(self, seed: int, history: Iterable[PastReview]) -> dict[datetime, CardState]:
        """The card's learning state just before each review of ``history``, by its time."""
        states: dict[datetime, CardState] = {}
        memory = NEW_CARD
        for past in history:
            states[past.reviewed_at] = memory.state
            memory = self.apply(seed, memory, past)
        return states

    def _fuzzed(self, interval: timedelta, seed: int, now: datetime) -> timedelta:
        bounds = self._fuzz_bounds(interval.days)
        if bounds is None:
            return interval
        shortest, longest = bounds
        return timedelta(
            days=fuzz_draw(f"{seed}:{round(now.timestamp() * 1_000_000)}", shortest, longest)
        )

    def _fuzz_bounds(self, days: int) -> tuple[int, int] | None:
        """The shortest and longest interval (days) the fuzz draw of ``days`` chooses from;
        None when such an interval is not fuzzed (the replay's own bounds)."""
        return self._replayer.fuzz_bounds(days)


class Schedulers:
    """One scheduler per preset, made on first use: what replays and studies ask for a deck.

    Args:
        fuzz: Passed to every scheduler (tests turn it off).
    """

    def __init__(self, fuzz: bool = True) -> None:
        self.fuzz = fuzz
        self._made: dict[tuple[Preset, StudyDays], Scheduler] = {}

    def for_preset(self, preset: Preset, days: StudyDays) -> Scheduler:
        """The scheduler of a preset, counting elapsed time in ``days``."""
        made = self._made.get((preset, days))
        if made is None:
            made = self._made[preset, days] = Scheduler(preset, self.fuzz, days)
        return made

    def for_deck(self, presets: DeckPresets, deck_id: int) -> Scheduler:
        """The scheduler of the preset a deck uses, on the presets' study days."""
        return self.for_preset(presets.of_deck(deck_id), presets.days)


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


def _to_fsrs(seed: int, memory: MemoryState, now: datetime) -> fsrs.Card:
    if memory.state is CardState.NEW:
        return fsrs.Card(card_id=seed, state=fsrs.State.Learning, step=0, due=now)
    return fsrs.Card(
        card_id=seed,
        state=fsrs.State(int(memory.state)),
        step=memory.step,
        stability=memory.stability,
        difficulty=memory.difficulty,
        due=memory.due or now,
        last_review=memory.last_review,
    )
