"""Replaying a card's history at speed: py-fsrs's review step on plain numbers.

A replay runs py-fsrs's ``Scheduler.review_card`` once per review; at a million reviews
its object copies, ``datetime`` arithmetic and enum look-ups cost more than the FSRS
formulas themselves. ``Replayer`` applies the same formulas, written as py-fsrs writes
them (the same operations in the same order, so every float is the same to the bit), to
times as integer microseconds and ratings as integers. A property test holds its results
equal to ``Scheduler.replay`` through py-fsrs over many random histories, fuzz, forgets
and due dates set by hand included, so an fsrs upgrade that changes a formula cannot go
unnoticed.

Only the last answer's interval is fuzzed: py-fsrs never reads a card's due date when it
reviews it, so the fuzz of earlier answers cannot change the result.
"""

from __future__ import annotations

import hashlib
import math
import random
from collections.abc import Sequence
from datetime import timedelta

# A stored schedule as plain values: state, step, stability, difficulty, due and last
# review (integer microseconds since the epoch), the columns of ``card_memory``.
RawMemory = tuple[int, int | None, float | None, float | None, int | None, int | None]
# A stored history entry as plain values: time (microseconds), rating, kind (0 an answer,
# 1 a forget, 2 a due date set by hand) and the due date set (microseconds) or None.
RawEntry = tuple[int, int, int, int | None]

NEW: RawMemory = (0, None, None, None, None, None)
_LEARNING, _REVIEW, _RELEARNING = 1, 2, 3
_FORGET, _SET_DUE = 1, 2
_DAY = 86_400_000_000
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
    """

    def __init__(
        self,
        parameters: Sequence[float],
        desired_retention: float,
        learning_steps: Sequence[timedelta],
        relearning_steps: Sequence[timedelta],
        maximum_interval: int,
        fuzz: bool,
    ) -> None:
        w = tuple(parameters)
        self._w = w
        self._decay = decay = -w[20]
        self._factor = 0.9 ** (1 / decay) - 1
        self._interval_factor = (desired_retention ** (1 / decay)) - 1
        self._maximum_interval = maximum_interval
        self._fuzz = fuzz
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
        self._short_term_increase = [0.0] + [math.e ** (w[17] * (r - 3 + w[18])) for r in range(1, 5)]
        self._forget_short_term = math.e ** (w[17] * w[18])
        self._recall_bonus = [1.0, 1.0, w[15], 1.0, w[16]]
        self._recall_base = math.e ** (w[8])

    def replay(self, card_id: int, history: Sequence[RawEntry]) -> RawMemory:
        """The schedule a card's history gives, as ``Scheduler.replay`` gives it.

        Args:
            card_id: The card's id; it seeds the last interval's fuzz.
            history: The card's entries in the order they happened.
        """
        w = self._w
        new = True
        state = _LEARNING
        step: int | None = 0
        stability: float | None = None
        difficulty: float | None = None
        last: int | None = None
        due: int | None = None
        fuzz_days = 0  # the last answer's interval in days when it left the card in review
        for moment, rating, kind, set_due in history:
            if kind:
                fuzz_days = 0
                if kind == _FORGET:
                    new, state, step, stability, difficulty, last = True, _LEARNING, 0, None, None, None
                    continue
                if kind != _SET_DUE:
                    raise ValueError(f"unknown history entry kind {kind}")
                if new:
                    # A card never studied gets the memory of a first Good answer.
                    stability = self._initial_stability[3]
                    difficulty = self._initial_difficulty[3]
                    last = moment
                new, state, step, due = False, _REVIEW, None, set_due
                continue
            if new:
                new, state, step, stability, difficulty, last = False, _LEARNING, 0, None, None, None
            elapsed = None if last is None else (moment - last) // _DAY
            if state == _LEARNING and (stability is None or difficulty is None):
                stability = self._initial_stability[rating]
                difficulty = self._initial_difficulty[rating]
            else:
                assert stability is not None and difficulty is not None
                if elapsed is not None and elapsed < 1:
                    increase = self._short_term_increase[rating] * (stability ** -w[19])
                    if rating != 1:
                        increase = max(increase, 1.0)
                    stability = max(stability * increase, _STABILITY_MIN)
                else:
                    stability = self._next_stability(difficulty, stability, last, moment, rating)
                damped = difficulty + (10.0 - difficulty) * self._difficulty_delta[rating] / 9.0
                difficulty = min(
                    max(self._reversion_target + self._reversion_keep * damped, 1.0), 10.0
                )
            interval, days = 0, 0
            if state == _REVIEW:
                if rating == 1 and self._relearning[0]:
                    state, step = _RELEARNING, 0
                    interval = self._relearning[0][0]
                else:
                    days = self._interval(stability)
            else:
                steps, hard = self._learning if state == _LEARNING else self._relearning
                assert step is not None
                if not steps or (step >= len(steps) and rating != 1):
                    days = self._interval(stability)
                elif rating == 1:
                    step = 0
                    interval = steps[0]
                elif rating == 2:
                    interval = hard if step == 0 else steps[step]
                elif rating == 3 and step + 1 != len(steps):
                    step += 1
                    interval = steps[step]
                else:
                    days = self._interval(stability)
                if days:
                    state, step = _REVIEW, None
            if days:
                interval = days * _DAY
            fuzz_days = days if state == _REVIEW else 0
            due = moment + interval
            last = moment
        if new:
            return NEW
        if self._fuzz and fuzz_days and last is not None:
            due = last + self._fuzzed(fuzz_days, card_id, last) * _DAY
        return (state, step, stability, difficulty, due, last)

    def _next_stability(
        self, difficulty: float, stability: float, last: int | None, moment: int, rating: int
    ) -> float:
        w = self._w
        if last is None:
            retrievability = 0.0
        else:
            elapsed = max(0, (moment - last) // _DAY)
            retrievability = (1 + self._factor * elapsed / stability) ** self._decay
        if rating == 1:
            long_term = (
                w[11]
                * (difficulty ** -w[12])
                * (((stability + 1) ** (w[13])) - 1)
                * (math.e ** ((1 - retrievability) * w[14]))
            )
            following = min(long_term, stability / self._forget_short_term)
        else:
            following = stability * (
                1
                + self._recall_base
                * (11 - difficulty)
                * (stability ** -w[9])
                * ((math.e ** ((1 - retrievability) * w[10])) - 1)
                * self._recall_bonus[rating]
            )
        return max(following, _STABILITY_MIN)

    def _interval(self, stability: float) -> int:
        days = round((stability / self._factor) * self._interval_factor)
        return min(max(days, 1), self._maximum_interval)

    def _fuzzed(self, days: int, card_id: int, moment: int) -> int:
        if days < 2.5:
            return days
        # Summed in the same order as ever, so every stored interval replays to the bit.
        total = 0.0
        for start, end, share in _FUZZ_RANGES:
            total += share * max(min(float(days), end) - start, 0.0)
        spread = 1.0 + total
        shortest = max(2, round(days - spread))
        longest = min(round(days + spread), self._maximum_interval)
        shortest = min(shortest, longest)
        # The seed as ``Scheduler`` writes it, from the review's ``datetime.timestamp()``.
        return fuzz_draw(f"{card_id}:{round(moment / 10**6 * 1_000_000)}", shortest, longest)


def fuzz_draw(seed: str, shortest: int, longest: int) -> int:
    """``random.Random(seed).randint(shortest, longest)``, without its Python-level steps.

    Seeding from a string hashes it with SHA-512 and seeds from the bytes and the digest
    as one integer; ``randint`` is ``shortest`` plus a draw below the width. Done here
    directly; a test holds it equal to ``random.Random``'s own, so a change in Python
    cannot go unnoticed.
    """
    encoded = seed.encode()
    generator = random.Random(int.from_bytes(encoded + hashlib.sha512(encoded).digest()))
    below: int = generator._randbelow(longest - shortest + 1)  # type: ignore[attr-defined]
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
