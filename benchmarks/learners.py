"""Simulated learners on choice cards: they recall with FSRS's chance, and may guess when not.

Each card is studied when Recall's scheduler (fuzz off) makes it due, a few hours late at
random, as the optimizer's own tests simulate histories, or, for a share of them, up to
three intervals late, as a learner away for a while. A learner who recalls picks the
right option; one who does not either guesses one of the card's k options at random
(right once in k) or, without guessing, answers wrong. A right pick is rated Good, mostly,
and a wrong one Again.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta

from recall.core.days import StudyDays
from recall.core.memory import NEW_CARD, CardState, Rating
from recall.core.presets import Preset
from recall.scheduling import DEFAULT_PARAMETERS, Scheduler
from recall.scheduling.fitting import CardHistory

START = datetime(2025, 1, 1, 8, tzinfo=UTC)


def learners(
    cards: int,
    days: int,
    seed: int,
    choices: Sequence[int] = (4,),
    guessing: bool = True,
    parameters: tuple[float, ...] = DEFAULT_PARAMETERS,
    overdue: float = 0.3,
    away: float = 3.0,
) -> list[CardHistory]:
    """The histories of ``timed_learners`` by study day (as ``StudyDays()`` counts them)."""
    study_days = StudyDays()
    return [
        CardHistory(
            [(study_days.day_of(moment), int(rating)) for moment, rating in answers], chance
        )
        for chance, answers in timed_learners(
            cards, days, seed, choices, guessing, parameters, overdue, away
        )
    ]


def timed_learners(
    cards: int,
    days: int,
    seed: int,
    choices: Sequence[int] = (4,),
    guessing: bool = True,
    parameters: tuple[float, ...] = DEFAULT_PARAMETERS,
    overdue: float = 0.3,
    away: float = 3.0,
) -> list[tuple[float, list[tuple[datetime, Rating]]]]:
    """Histories of ``cards`` choice cards with ``choices`` options, one right.

    Args:
        cards: Cards, each introduced on a random day of the first half.
        days: Days studied.
        seed: Seeds the draws.
        choices: Options per card, taken in turn card by card; 0 for a card the learner
            rates without options (no guess).
        guessing: Whether a learner who does not recall guesses (else answers wrong).
        parameters: The learner's true memory.
        overdue: The share of reviews of review cards made late.
        away: How many intervals late such a review is, at most.

    Returns:
        Each card's chance of a right guess and its answers (time, rating) in order.
    """
    rng = random.Random(seed)
    scheduler = Scheduler(Preset(parameters=parameters), fuzz=False)
    end = START + timedelta(days=days)
    histories = []
    for card in range(cards):
        options = choices[card % len(choices)]
        chance = 1 / options if options else 0.0
        moment = START + timedelta(days=rng.uniform(0, days / 2))
        memory = NEW_CARD
        answers: list[tuple[datetime, Rating]] = []
        while moment < end:
            if memory.state is CardState.NEW:
                recalled = rng.random() < 0.6
            else:
                recalled = rng.random() < scheduler.retrievability(card, memory, moment)
            right = recalled or (guessing and rng.random() < chance)
            if right:
                rating = rng.choices([Rating.HARD, Rating.GOOD, Rating.EASY], [0.1, 0.8, 0.1])[0]
            else:
                rating = Rating.AGAIN
            answers.append((moment, rating))
            memory = scheduler.review(card, memory, rating, moment)
            assert memory.due is not None
            late = timedelta(hours=rng.uniform(0, 12))
            if memory.state is CardState.REVIEW and rng.random() < overdue:
                # Away for a while: up to three intervals late, where recall has faded.
                assert memory.last_review is not None
                late += (memory.due - memory.last_review) * rng.uniform(0, away)
            moment = memory.due + late
        histories.append((chance, answers))
    return histories
