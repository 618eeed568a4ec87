"""FSRS-6 fitted under a chosen likelihood: with or without a guess term for choice cards.

fsrs-rs-python fits FSRS with its own, fixed loss; a guess term changes the loss, so this
module holds FSRS-6's memory model as fsrs-rs writes it (``model.rs``: the same formulas,
clamps and short-term rule for reviews on the same day) in plain Python, a loss over a
card history's answers, and one optimizer (projected Adam on finite-difference gradients)
that fits both likelihoods alike. Answers are ranked as the parameter health check ranks
its items (by study day, then as the histories list them), so a time split is a rank.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import fsrs_rs_python

from recall.core.presets import PARAMETER_BOUNDS
from recall.scheduling.optimize import DayRatings, Fit

STEPS = 30  # optimizer steps of a fit
LEARNING_RATE = 0.03  # Adam's, in units of each parameter's starting size
# The parameters both likelihoods fit, from fsrs-rs-python's fit without the guess term:
# those that set how fast a card is forgotten (first stabilities, growth, stability after a
# lapse, the curve's decay), which a guess term changes; the rest keep fsrs-rs's values.
# All 21 would take about three times as long (a pass per parameter for each gradient),
# on the window's task runner for every optimize of a deck with choice cards.
FITTED = (0, 1, 2, 3, 8, 11, 20)
_NUDGE = 1e-4  # finite-difference step, in units of each parameter's starting size
_S_MIN, _S_MAX = 0.001, 36500.0
_EDGE = 1e-4  # predictions are kept this far from 0 and 1, as fsrs-rs's loss keeps them


@dataclass(frozen=True)
class CardHistory:
    """One card's answers as the guess model reads them.

    Attributes:
        reviews: (study day, rating 1-4) in order, from the card's first review as new.
        guess: The chance of a right answer by guessing (1 / k on a k-option choice card
            with one right option; 0 where a right answer is recall).
    """

    reviews: DayRatings
    guess: float = 0.0


@dataclass(frozen=True)
class Walk:
    """A card's answers ready for the model: ratings, days between, each answer's rank.

    Attributes:
        ratings: The ratings in order.
        deltas: Study days since the previous review (0 for the first and same-day ones).
        ranks: For each answer on a later day than the one before (an FSRS training
            item), its rank in time over every card; the other reviews have none.
        bins: Each ranked answer's bin for the binned RMSE, as fsrs-rs bins items.
        guess: The card's guess chance.
    """

    ratings: tuple[int, ...]
    deltas: tuple[int, ...]
    ranks: dict[int, int] = field(default_factory=dict)
    bins: dict[int, tuple[int, int, int]] = field(default_factory=dict)
    guess: float = 0.0

    def items(self, below: int) -> list[fsrs_rs_python.FSRSItem]:
        """fsrs-rs-python's training items of the answers ranked below ``below``."""
        built = [
            fsrs_rs_python.FSRSReview(rating, delta)
            for rating, delta in zip(self.ratings, self.deltas, strict=True)
        ]
        return [
            fsrs_rs_python.FSRSItem(built[: index + 1])
            for index, rank in self.ranks.items()
            if rank < below
        ]


def walks(histories: Iterable[CardHistory]) -> list[Walk]:
    """Each card with a training item, its answers ranked in time as the health check does."""
    prepared: list[tuple[tuple[int, ...], tuple[int, ...], list[tuple[int, int]], float]] = []
    order: list[tuple[int, int, int, int]] = []  # (day, listing order, card, review index)
    for history in histories:
        ratings: list[int] = []
        deltas: list[int] = []
        labelled: list[tuple[int, int]] = []
        previous: int | None = None
        for index, (day, rating) in enumerate(history.reviews):
            delta = 0 if previous is None else day - previous
            previous = day
            ratings.append(rating)
            deltas.append(delta)
            if delta > 0:
                labelled.append((index, day))
        if labelled:
            card = len(prepared)
            for index, day in labelled:
                order.append((day, len(order), card, index))
            prepared.append((tuple(ratings), tuple(deltas), labelled, history.guess))
    order.sort()
    ranks: list[dict[int, int]] = [{} for _ in prepared]
    for rank, (_day, _order, card, index) in enumerate(order):
        ranks[card][index] = rank
    return [
        Walk(ratings, deltas, ranks[card], _bins(ratings, deltas, ranks[card]), guess)
        for card, (ratings, deltas, _labelled, guess) in enumerate(prepared)
    ]


def _bins(
    ratings: Sequence[int], deltas: Sequence[int], ranked: dict[int, int]
) -> dict[int, tuple[int, int, int]]:
    """fsrs-rs's ``r_matrix_index`` of each ranked answer: days, long-term reviews, lapses."""
    found: dict[int, tuple[int, int, int]] = {}
    long_term = lapses = 0
    for index, (rating, delta) in enumerate(zip(ratings, deltas, strict=True)):
        if index in ranked:
            days_bin = round(2.48 * 3.62 ** math.floor(math.log(delta, 3.62)) * 100)
            length_bin = round(1.99 * 1.89 ** math.floor(math.log(long_term + 1, 1.89)))
            lapse_bin = round(1.65 * 1.73 ** math.floor(math.log(lapses, 1.73))) if lapses else 0
            found[index] = (days_bin, length_bin, lapse_bin)
        if delta > 0:
            long_term += 1
            lapses += rating == 1
    return found


def predictions(
    parameters: Sequence[float],
    card: Walk,
    guessing: bool,
    begin: int,
    end: int,
) -> list[tuple[int, float, bool]]:
    """The model's chance of a right answer for each of the card's answers ranked in
    [``begin``, ``end``): (review index, chance, answered right).

    The memory state follows fsrs-rs's ``step``; with ``guessing`` the chance is
    ``R + (1 - R) * guess`` instead of ``R``.
    """
    w = parameters
    decay = -w[20]
    factor = math.exp(math.log(0.9) / decay) - 1.0
    mean_d = w[4] - math.exp(w[5] * 3) + 1.0
    guess = card.guess if guessing else 0.0
    ranks = card.ranks
    found: list[tuple[int, float, bool]] = []
    stability = difficulty = 0.0
    for index, (rating, delta) in enumerate(zip(card.ratings, card.deltas, strict=True)):
        if index == 0:
            stability = min(max(w[rating - 1], _S_MIN), _S_MAX)
            difficulty = min(max(w[4] - math.exp(w[5] * (rating - 1)) + 1.0, 1.0), 10.0)
            continue
        rank = ranks.get(index)
        if rank is not None and rank >= end:
            break
        if delta == 0:
            sinc = math.exp(w[17] * (rating - 3 + w[18])) * stability ** -w[19]
            new_s = stability * (max(sinc, 1.0) if rating >= 2 else sinc)
        else:
            recall = (delta / stability * factor + 1.0) ** decay
            if rank is not None and rank >= begin:
                found.append((index, recall + (1.0 - recall) * guess, rating > 1))
            if rating == 1:
                new_s = min(
                    w[11]
                    * difficulty ** -w[12]
                    * ((stability + 1.0) ** w[13] - 1.0)
                    * math.exp((1.0 - recall) * w[14]),
                    stability / math.exp(w[17] * w[18]),
                )
            else:
                bonus = w[15] if rating == 2 else w[16] if rating == 4 else 1.0
                new_s = stability * (
                    math.exp(w[8])
                    * (11.0 - difficulty)
                    * stability ** -w[9]
                    * (math.exp((1.0 - recall) * w[10]) - 1.0)
                    * bonus
                    + 1.0
                )
        moved = difficulty - w[6] * (rating - 3) * (10.0 - difficulty) / 9.0
        difficulty = min(max(w[7] * (mean_d - moved) + moved, 1.0), 10.0)
        stability = min(max(new_s, _S_MIN), _S_MAX)
    return found


def _card_loss(
    parameters: Sequence[float], card: Walk, guessing: bool, end: int
) -> tuple[float, int]:
    """Summed log loss of the card's answers ranked below ``end``, and how many there are:
    ``predictions`` and the loss in one pass, for the optimizer's many passes."""
    w = parameters
    exp, log = math.exp, math.log
    decay = -w[20]
    factor = exp(log(0.9) / decay) - 1.0
    mean_d = w[4] - exp(w[5] * 3) + 1.0
    grow, lapse_floor = exp(w[8]), exp(w[17] * w[18])
    guess = card.guess if guessing else 0.0
    ranks = card.ranks
    ratings, deltas = card.ratings, card.deltas
    rating = ratings[0]
    stability = min(max(w[rating - 1], _S_MIN), _S_MAX)
    difficulty = min(max(w[4] - exp(w[5] * (rating - 1)) + 1.0, 1.0), 10.0)
    total = 0.0
    count = 0
    for index in range(1, len(ratings)):
        rating, delta = ratings[index], deltas[index]
        if delta == 0:
            sinc = exp(w[17] * (rating - 3 + w[18])) * stability ** -w[19]
            new_s = stability * (sinc if rating < 2 or sinc > 1.0 else 1.0)
        else:
            if ranks[index] >= end:
                break
            recall = (delta / stability * factor + 1.0) ** decay
            chance = recall + (1.0 - recall) * guess
            if rating > 1:
                total -= log(chance if chance < 1.0 - _EDGE else 1.0 - _EDGE)
            else:
                total -= log(1.0 - chance if chance > _EDGE else 1.0 - _EDGE)
            count += 1
            if rating == 1:
                new_s = (
                    w[11]
                    * difficulty ** -w[12]
                    * ((stability + 1.0) ** w[13] - 1.0)
                    * exp((1.0 - recall) * w[14])
                )
                if new_s > stability / lapse_floor:
                    new_s = stability / lapse_floor
            else:
                bonus = w[15] if rating == 2 else w[16] if rating == 4 else 1.0
                new_s = stability * (
                    grow
                    * (11.0 - difficulty)
                    * stability ** -w[9]
                    * (exp((1.0 - recall) * w[10]) - 1.0)
                    * bonus
                    + 1.0
                )
        moved = difficulty - w[6] * (rating - 3) * (10.0 - difficulty) / 9.0
        difficulty = min(max(w[7] * (mean_d - moved) + moved, 1.0), 10.0)
        stability = min(max(new_s, _S_MIN), _S_MAX)
    return total, count


def evaluate(
    cards: Sequence[Walk], parameters: Sequence[float], guessing: bool, span: tuple[int, int]
) -> Fit:
    """Log loss and binned RMSE (fsrs-rs's bins, each answer weighing the same) of the
    answers ranked in ``span``, under the likelihood ``guessing`` names."""
    begin, end = span
    total = 0.0
    count = 0
    bins: dict[tuple[int, int, int], list[float]] = {}
    for card in cards:
        for index, chance, right in predictions(parameters, card, guessing, begin, end):
            kept = min(max(chance, _EDGE), 1.0 - _EDGE)
            total -= math.log(kept if right else 1.0 - kept)
            count += 1
            sums = bins.setdefault(card.bins[index], [0.0, 0.0, 0.0])
            sums[0] += chance
            sums[1] += right
            sums[2] += 1
    if not count:
        return Fit(log_loss=math.nan, rmse_bins=math.nan)
    squared = sum((pred - real) ** 2 / n for pred, real, n in bins.values())
    return Fit(log_loss=total / count, rmse_bins=math.sqrt(squared / count))


def fit(
    cards: Sequence[Walk], start: Sequence[float], guessing: bool, below: int
) -> tuple[float, ...]:
    """Parameters fitted to the answers ranked below ``below`` under the chosen likelihood.

    Projected Adam from ``start`` on finite-difference gradients of the mean log loss, each
    parameter in units of its starting size (so a step moves each by a similar share) and
    kept inside FSRS's bounds; the best point seen is returned, so a fit never ends worse
    than where it started.
    """
    scale = [max(abs(value), 0.1) for value in start]
    # Cards with no answer to fit are left out of every pass.
    kept = [card for card in cards if card.ranks and min(card.ranks.values()) < below]
    answers = max(1, sum(sum(rank < below for rank in card.ranks.values()) for card in kept))
    # A first stability (w0-w3) moves only the cards first rated with its rating: a nudge
    # of one passes over those cards alone.
    first_rated = [
        [at for at, card in enumerate(kept) if card.ratings[0] == r + 1] for r in range(4)
    ]
    point = list(start)

    def losses(at: Sequence[float]) -> list[float]:
        return [_card_loss(at, card, guessing, below)[0] for card in kept]

    each = losses(point)
    current = sum(each) / answers
    best, best_loss = list(point), current
    first = [0.0] * len(point)
    second = [0.0] * len(point)
    for step in range(1, STEPS + 1):
        gradient = [0.0] * len(point)
        for index in FITTED:
            nudged = list(point)
            nudge = _NUDGE * scale[index]
            if nudged[index] + nudge > PARAMETER_BOUNDS[index][1]:
                nudge = -nudge
            nudged[index] += nudge
            if index < 4:
                group = first_rated[index]
                change = sum(
                    _card_loss(nudged, kept[at], guessing, below)[0] - each[at] for at in group
                )
            else:
                change = sum(losses(nudged)) - sum(each)
            # In units of the parameter's scale.
            gradient[index] = change / answers / nudge * scale[index]
        for index in FITTED:
            slope = gradient[index]
            first[index] = 0.9 * first[index] + 0.1 * slope
            second[index] = 0.999 * second[index] + 0.001 * slope * slope
            move = first[index] / (1 - 0.9**step)
            size = math.sqrt(second[index] / (1 - 0.999**step)) + 1e-12
            low, high = PARAMETER_BOUNDS[index]
            moved = point[index] - LEARNING_RATE * scale[index] * move / size
            point[index] = min(max(moved, low), high)
        each = losses(point)
        current = sum(each) / answers
        if current < best_loss:
            best, best_loss = list(point), current
    return tuple(best)
