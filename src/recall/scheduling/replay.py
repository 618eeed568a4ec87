"""Replaying a card's history at speed: py-fsrs's review step on plain numbers.

A replay runs py-fsrs's ``Scheduler.review_card`` once per review; at a million reviews
its object copies, ``datetime`` arithmetic and enum look-ups cost more than the FSRS
formulas themselves. ``Replayer`` applies the same formulas, written as py-fsrs writes
them (the same operations in the same order, so every float is the same to the bit), to
times as integer microseconds and ratings as integers. A property test holds its results
equal to ``Scheduler.replay_by_steps`` (py-fsrs's ``review_card`` one entry at a time)
over random presets and histories, fuzz, forgets and due dates set by hand included, so
an fsrs upgrade that changes a formula cannot go unnoticed.

``Replayer.review`` is one such step from a stored schedule: what an answer in the study
session is scheduled by (``Scheduler.review``), tested against py-fsrs the same way.

Only the last answer's interval is fuzzed: py-fsrs never reads a card's due date when it
reviews it, so the fuzz of earlier answers cannot change the result.
"""

from __future__ import annotations

import _random
import hashlib
import math
from collections.abc import Sequence
from datetime import timedelta

from recall.core.days import StudyDays

# A stored schedule as plain values: state, step, stability, difficulty, due and last
# review (integer microseconds since the epoch), the columns of ``card_memory``.
RawMemory = tuple[int, int | None, float | None, float | None, int | None, int | None]
# A stored history entry as plain values, as SQLite hands them over: the card's id, the
# time (microseconds), rating, kind (0 an answer, 1 a forget, 2 a due date set by hand,
# 3 a cram answer, which changes no schedule, 4 a memory state kept from another app, 5 a
# follow-up answer, which leaves the card's schedule as cram does),
# the due date set (microseconds) or None (for an answer, the due date scheduling chose
# for it, if it chose one), and a memory entry's stability and difficulty
# (None otherwise). The id is not read: it is there so rows read for many cards at once
# need no copying.
RawEntry = tuple[int, int, int, int, int | None, float | None, float | None]

NEW: RawMemory = (0, None, None, None, None, None)
# Names this replay's results: check trusts an earlier verification only if it was made by
# the same replay. Change it whenever a change here could change a result.
REPLAY_VERSION = (
    "replay 4 (py-fsrs 6 formulas on study days, learning Easy after Good, last interval fuzzed"
    " unless its due date was chosen)"
)
_LEARNING, _REVIEW, _RELEARNING = 1, 2, 3


def replay_key(days: StudyDays) -> str:
    """What a replay's results depend on besides presets and history: this replay and
    the study days it counts elapsed time in."""
    return f"{REPLAY_VERSION}; {days.key}"


_FORGET, _SET_DUE, _CRAM, _MEMORY, _FOLLOW_UP = 1, 2, 3, 4, 5
_DAY = 86_400_000_000
_HOUR = 3_600_000_000
_STABILITY_MIN = 0.001
# py-fsrs's fuzz ranges: (from days, to days, share of the interval within that range).
_FUZZ_RANGES = ((2.5, 7.0, 0.15), (7.0, 20.0, 0.1), (20.0, math.inf, 0.05))


class Replayer:
    """One preset's FSRS review step on plain numbers, for replaying whole histories.

    Args:
        parameters: FSRS's 21 parameters.
        desired_retention: The recall probability intervals aim at.
        learning_steps: The learning steps.
        relearning_steps: The relearning steps.
        maximum_interval: The longest interval in days.
        fuzz: Fuzz the last review interval as ``Scheduler`` does.
        days: How reviews fall into study days: the days between two reviews are the
            study days between them, as Anki counts them; on one study day they are
            short-term (py-fsrs's elapsed days below 1).
    """

    def __init__(
        self,
        parameters: Sequence[float],
        desired_retention: float,
        learning_steps: Sequence[timedelta],
        relearning_steps: Sequence[timedelta],
        maximum_interval: int,
        fuzz: bool,
        days: StudyDays | None = None,
    ) -> None:
        w = tuple(parameters)
        self._days = days or StudyDays()
        self._w = w
        self._decay = decay = -w[20]
        self._factor = 0.9 ** (1 / decay) - 1
        self._interval_factor = (desired_retention ** (1 / decay)) - 1
        self._maximum_interval = maximum_interval
        self._fuzz = fuzz
        # ``fuzz_bounds`` by interval: it depends on nothing else, and a replay of every
        # card asks it once per card, mostly for the same few hundred intervals.
        self._bounds: dict[int, tuple[int, int] | None] = {}
        self._learning = _steps(learning_steps)
        self._relearning = _steps(relearning_steps)
        # Indexed by rating (1-4); index 0 unused.
        self._initial_stability = [0.0] + [max(w[r - 1], _STABILITY_MIN) for r in range(1, 5)]
        self._initial_difficulty = [0.0] + [
            min(max(w[4] - (math.e ** (w[5] * (r - 1))) + 1, 1.0), 10.0) for r in range(1, 5)
        ]
        easy_difficulty = w[4] - (math.e ** (w[5] * (4 - 1))) + 1
        self._reversion_target = w[7] * easy_difficulty
        self._reversion_keep = 1 - w[7]
        self._difficulty_delta = [0.0] + [-(w[6] * (r - 3)) for r in range(1, 5)]
        self._short_term_increase = [0.0] + [
            math.e ** (w[17] * (r - 3 + w[18])) for r in range(1, 5)
        ]
        self._forget_short_term = math.e ** (w[17] * w[18])
        self._recall_bonus = [1.0, 1.0, w[15], 1.0, w[16]]
        self._recall_base = math.e ** (w[8])

    def replay(
        self, seed: int, history: Sequence[RawEntry], states: list[int] | None = None
    ) -> RawMemory:
        """The schedule a card's history gives, as ``Scheduler.replay`` gives it.

        Args:
            seed: The card's seed (``CardRow.seed``, not its id); it seeds the last
                interval's fuzz.
            history: The card's entries in the order they happened.
            states: When given, the card's state just before each entry is appended to it
                (0 for a new card), as the review log records it.
        """
        memory, fuzz_days = self._run(history, states, NEW)
        if self._fuzz and fuzz_days:
            return self.fuzzed(seed, memory, fuzz_days)
        return memory

    def review(self, memory: RawMemory, rating: int, moment: int) -> tuple[RawMemory, int]:
        """One answer from a stored schedule, as ``Scheduler.review`` gives it before fuzz.

        Args:
            memory: The schedule before the answer, as ``card_memory`` holds it.
            rating: The rating, 1 to 4.
            moment: When it was answered (microseconds).

        Returns:
            The schedule after it, its due date unfuzzed, and the interval in days that
            fuzz would spread (``fuzzed``); 0 when the answer leaves the card learning.
        """
        return self._run(((0, moment, rating, 0, None, None, None),), None, memory)

    def fuzzed(self, seed: int, memory: RawMemory, days: int) -> RawMemory:
        """The schedule with its interval of ``days`` whole days from its last review
        fuzzed, the draw seeded by the card's seed and that review's time."""
        state, step, stability, difficulty, _due, last = memory
        assert last is not None, "a fuzzed interval follows an answer"
        due = last + self._fuzzed(days, seed, last) * _DAY
        return (state, step, stability, difficulty, due, last)

    def fuzz_bounds(self, days: int) -> tuple[int, int] | None:
        """The shortest and longest interval (days) the fuzz draw of ``days`` chooses from;
        None when such an interval is not fuzzed."""
        if days < 2.5:
            return None
        # Summed in the same order as ever, so every stored interval replays to the bit.
        total = 0.0
        for start, end, share in _FUZZ_RANGES:
            total += share * max(min(float(days), end) - start, 0.0)
        spread = 1.0 + total
        shortest = max(2, round(days - spread))
        longest = min(round(days + spread), self._maximum_interval)
        return min(shortest, longest), longest

    def _run(
        self, history: Sequence[RawEntry], states: list[int] | None, start: RawMemory
    ) -> tuple[RawMemory, int]:
        """The schedule after ``history`` applied from ``start``, unfuzzed, and the last
        answer's interval in days when it left the card in review (else 0).

        Written for speed: py-fsrs's helpers are inlined, and ``min``/``max`` are spelled
        as comparisons that pick the same operand they would.
        """
        w = self._w
        w9, w11, w12, w13, w14, w10, w19 = w[9], w[11], w[12], w[13], w[14], w[10], w[19]
        factor, decay = self._factor, self._decay
        forget_short_term, recall_base = self._forget_short_term, self._recall_base
        recall_bonus, short_term_increase = self._recall_bonus, self._short_term_increase
        reversion_target, reversion_keep = self._reversion_target, self._reversion_keep
        difficulty_delta = self._difficulty_delta
        interval_factor, maximum_interval = self._interval_factor, self._maximum_interval
        relearning_steps = self._relearning[0]
        # The study day of a moment, as ``StudyDays.day_number`` works it out, with its
        # cache of hourly offsets read here directly: one look-up per review.
        offsets, offset_of_hour = self._days.hourly_offsets()
        e = math.e
        new = start[0] == 0
        state = _LEARNING if new else start[0]
        step: int | None = 0 if new else start[1]
        stability: float | None = None if new else start[2]
        difficulty: float | None = None if new else start[3]
        due: int | None = None if new else start[4]
        last: int | None = None if new else start[5]
        fuzz_days = 0  # the last answer's interval in days when it left the card in review
        last_day = 0 if last is None else self._days.day_number(last)  # the study day of ``last``
        for _card, moment, rating, kind, set_due, kept_stability, kept_difficulty in history:
            if states is not None:
                states.append(0 if new else state)
            if kind:  # anything but an answer (most entries), tested first
                if kind in (_CRAM, _FOLLOW_UP):
                    # A cram or follow-up answer leaves the schedule, and the last fuzz, as
                    # they were: a follow-up keeps a schedule of its own (``follow_ups``).
                    continue
                fuzz_days = 0
                if kind == _FORGET:
                    new, state, step, stability, difficulty, last = (
                        True,
                        _LEARNING,
                        0,
                        None,
                        None,
                        None,
                    )
                    continue
                if kind == _MEMORY:
                    if set_due is None or kept_stability is None or kept_difficulty is None:
                        raise ValueError("a memory entry lacks its due date or memory state")
                    # The answers before it keep the last review: the next answer's elapsed
                    # days count from there, as they do in the app the memory came from.
                    if last is None:
                        last, last_day = moment, self._days.day_number(moment)
                    new, state, step, due = False, _REVIEW, None, set_due
                    stability, difficulty = kept_stability, kept_difficulty
                    continue
                if kind != _SET_DUE or set_due is None:
                    raise ValueError(f"unknown history entry kind {kind} (due date {set_due})")
                if new:
                    # A card never studied gets the memory of a first Good answer.
                    stability = self._initial_stability[3]
                    difficulty = self._initial_difficulty[3]
                    last, last_day = moment, self._days.day_number(moment)
                new, state, step, due = False, _REVIEW, None, set_due
                continue
            if new:
                new, state, step, stability, difficulty, last = (
                    False,
                    _LEARNING,
                    0,
                    None,
                    None,
                    None,
                )
            offset = offsets.get(moment // _HOUR)
            if offset is None:
                offset = offset_of_hour(moment)
            day = (moment + offset) // _DAY
            # Easy from learning or relearning graduates: its interval is held longer than
            # Good's, which is worked out from the schedule before this answer.
            good_days = (
                self._good_days(state, step, stability, difficulty, last, last_day, day)
                if rating == 4 and state != _REVIEW
                else 0
            )
            if stability is None or difficulty is None:
                if state != _LEARNING:
                    raise ValueError("a card in review or relearning has no memory state")
                stability = self._initial_stability[rating]
                difficulty = self._initial_difficulty[rating]
            else:
                if last is not None and day - last_day < 1:
                    increase = short_term_increase[rating] * (stability**-w19)
                    if rating != 1 and increase < 1.0:
                        increase = 1.0
                    stability = stability * increase
                else:
                    if last is None:
                        retrievability = 0.0
                    else:
                        elapsed = day - last_day
                        if elapsed < 0:
                            elapsed = 0
                        retrievability = (1 + factor * elapsed / stability) ** decay
                    if rating == 1:
                        long_term = (
                            w11
                            * (difficulty**-w12)
                            * (((stability + 1) ** (w13)) - 1)
                            * (e ** ((1 - retrievability) * w14))
                        )
                        short_term = stability / forget_short_term
                        stability = short_term if short_term < long_term else long_term
                    else:
                        stability = stability * (
                            1
                            + recall_base
                            * (11 - difficulty)
                            * (stability**-w9)
                            * ((e ** ((1 - retrievability) * w10)) - 1)
                            * recall_bonus[rating]
                        )
                if stability < _STABILITY_MIN:
                    stability = _STABILITY_MIN
                difficulty = reversion_target + reversion_keep * (
                    difficulty + (10.0 - difficulty) * difficulty_delta[rating] / 9.0
                )
                if difficulty < 1.0:
                    difficulty = 1.0
                if difficulty > 10.0:
                    difficulty = 10.0
            interval = days = 0
            if state == _REVIEW:
                if rating == 1 and relearning_steps:
                    state, step = _RELEARNING, 0
                    interval = relearning_steps[0]
                else:
                    days = -1
            else:
                steps, hard = self._learning if state == _LEARNING else self._relearning
                assert step is not None
                if not steps or (step >= len(steps) and rating != 1):
                    days = -1
                elif rating == 1:
                    step = 0
                    interval = steps[0]
                elif rating == 2:
                    interval = hard if step == 0 else steps[step]
                elif rating == 3 and step + 1 != len(steps):
                    step += 1
                    interval = steps[step]
                else:
                    days = -1
                if days:
                    state, step = _REVIEW, None
            if days:
                days = round((stability / factor) * interval_factor)
                if days < 1:
                    days = 1
                if maximum_interval < days:
                    days = maximum_interval
                if days <= good_days:
                    days = good_days + 1 if good_days < maximum_interval else maximum_interval
                interval = days * _DAY
            fuzz_days = days if state == _REVIEW else 0
            due = moment + interval
            if set_due is not None and state == _REVIEW:
                # The day scheduling chose inside the fuzz range (load balancing, Easy
                # Days, an exam date) is kept with the answer: it depends on other cards.
                due, fuzz_days = set_due, 0
            last, last_day = moment, day
        if new:
            return NEW, 0
        return (state, step, stability, difficulty, due, last), fuzz_days

    def _good_days(
        self,
        state: int,
        step: int | None,
        stability: float | None,
        difficulty: float | None,
        last: int | None,
        last_day: int,
        day: int,
    ) -> int:
        """The whole days Good would wait with a learning or relearning card on study day
        ``day`` (``last_day`` the study day of ``last``): its interval when Good graduates
        it, else the whole days of the step Good moves it to (0 for a step under a day).

        Rare (an Easy answer while learning), so written plainly, in py-fsrs's order.
        """
        steps = (self._learning if state == _LEARNING else self._relearning)[0]
        assert step is not None
        if steps and step + 1 < len(steps):
            return steps[step + 1] // _DAY
        w = self._w
        if stability is None or difficulty is None:
            stability = self._initial_stability[3]
        elif last is not None and day - last_day < 1:
            increase = self._short_term_increase[3] * (stability ** -w[19])
            stability = stability * (increase if increase > 1.0 else 1.0)
        else:
            retrievability = 0.0
            if last is not None:
                elapsed = max(day - last_day, 0)
                retrievability = (1 + self._factor * elapsed / stability) ** self._decay
            stability = stability * (
                1
                + self._recall_base
                * (11 - difficulty)
                * (stability ** -w[9])
                * ((math.e ** ((1 - retrievability) * w[10])) - 1)
            )
        if stability < _STABILITY_MIN:
            stability = _STABILITY_MIN
        days = round((stability / self._factor) * self._interval_factor)
        return int(min(max(days, 1), self._maximum_interval))

    def _fuzzed(self, days: int, seed: int, moment: int) -> int:
        try:
            bounds = self._bounds[days]
        except KeyError:
            bounds = self._bounds[days] = self.fuzz_bounds(days)
        if bounds is None:
            return days
        shortest, longest = bounds
        # The seed as ``Scheduler`` writes it, from the review's ``datetime.timestamp()``.
        return fuzz_draw(f"{seed}:{round(moment / 10**6 * 1_000_000)}", shortest, longest)


def fuzz_draw(seed: str, shortest: int, longest: int) -> int:
    """``random.Random(seed).randint(shortest, longest)``, without its Python-level steps.

    Seeding from a string hashes it with SHA-512 and seeds from the bytes and the digest
    as one integer; ``randint`` is ``shortest`` plus a draw below the width, by rejection
    of ``getrandbits`` of the width's bit length. Done here
    directly; a test holds it equal to ``random.Random``'s own, so a change in Python
    cannot go unnoticed.
    """
    encoded = seed.encode()
    # The C generator under ``random.Random``: the same state from the same seed, without
    # the Python-level ``seed`` and ``_randbelow`` (a fresh one per draw, so threads never
    # share one).
    generator = _random.Random(int.from_bytes(encoded + hashlib.sha512(encoded).digest()))
    width = longest - shortest + 1
    bits = width.bit_length()
    below = generator.getrandbits(bits)
    while below >= width:  # ``_randbelow``'s rejection, draw for draw
        below = generator.getrandbits(bits)
    return shortest + below


def _steps(steps: Sequence[timedelta]) -> tuple[tuple[int, ...], int]:
    """Steps in microseconds, with Hard's delay on the first step as py-fsrs works it out."""
    micro = timedelta(microseconds=1)
    as_micros = tuple(step // micro for step in steps)
    if len(steps) == 1:
        hard = (steps[0] * 1.5) // micro
    elif len(steps) >= 2:
        hard = ((steps[0] + steps[1]) / 2.0) // micro
    else:
        hard = 0
    return as_micros, hard
