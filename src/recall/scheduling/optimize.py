"""Fitting FSRS parameters to a learner's history with fsrs-rs-python, and judging the fit.

Training items are built as Anki builds them: one per review on a later study day than the
card's previous one, holding the card's reviews up to it, each with the days since the
previous review counted by study day (reviews on the same day count 0 days: short-term).
Cards whose history does not start with their first sight are left out.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import fsrs_rs_python

from recall.scheduling.parameters import DEFAULT_PARAMETERS

# The history of one card as the optimizer reads it: (study day number, rating 1-4) in order.
DayRatings = Sequence[tuple[int, int]]


@dataclass(frozen=True)
class Fit:
    """How well parameters predict the history: lower is better for both."""

    log_loss: float
    rmse_bins: float


@dataclass(frozen=True)
class Optimized:
    """The outcome of one fit.

    Attributes:
        reviews: Reviews of the cards that gave training items.
        cards: Cards that gave training items.
        items: Training items (reviews on a later day than the card's previous review).
        before: How well the current parameters fit (None without items).
        after: How well the fitted parameters fit, on the same items.
        fitted: The fitted parameters (FSRS's defaults when fsrs-rs-python found too little).
        kept_defaults: fsrs-rs-python returned FSRS's defaults unchanged: too little data.
    """

    reviews: int
    cards: int
    items: int
    before: Fit | None
    after: Fit | None
    fitted: tuple[float, ...]
    kept_defaults: bool

    @property
    def better(self) -> bool:
        """Whether the fitted parameters predict the history better (lower log loss)."""
        return (
            self.before is not None
            and self.after is not None
            and not self.kept_defaults
            and self.after.log_loss < self.before.log_loss
        )


def training_items(
    histories: Iterable[DayRatings],
) -> tuple[list[fsrs_rs_python.FSRSItem], int, int]:
    """Items for fsrs-rs-python from per-card histories; also the reviews and cards used."""
    items: list[fsrs_rs_python.FSRSItem] = []
    reviews = cards = 0
    for history in histories:
        built: list[fsrs_rs_python.FSRSReview] = []
        card_items = 0
        previous_day: int | None = None
        for day, rating in history:
            delta = 0 if previous_day is None else day - previous_day
            built.append(fsrs_rs_python.FSRSReview(rating, delta))
            previous_day = day
            if delta > 0:
                items.append(fsrs_rs_python.FSRSItem(list(built)))
                card_items += 1
        if card_items:
            reviews += len(built)
            cards += 1
    return items, reviews, cards


def optimize(histories: Iterable[DayRatings], current: Sequence[float]) -> Optimized:
    """Fit parameters to the histories and evaluate them beside ``current`` on the same items.

    Args:
        histories: Each card's (study day, rating) pairs, in order, starting with its
            first review as a new card.
        current: The parameters in use (empty for FSRS's defaults).
    """
    items, reviews, cards = training_items(histories)
    current = tuple(current) or DEFAULT_PARAMETERS
    if not items:
        return Optimized(reviews, cards, 0, None, None, current, kept_defaults=True)
    fitted = tuple(fsrs_rs_python.FSRS(list(current)).compute_parameters(items))
    kept_defaults = _same(fitted, fsrs_rs_python.DEFAULT_PARAMETERS)
    return Optimized(
        reviews=reviews,
        cards=cards,
        items=len(items),
        before=evaluate(current, items),
        after=evaluate(fitted, items),
        fitted=fitted,
        kept_defaults=kept_defaults,
    )


def evaluate(parameters: Sequence[float], items: Sequence[fsrs_rs_python.FSRSItem]) -> Fit:
    """Log loss and RMSE (bins) of ``parameters`` on ``items``."""
    evaluation = fsrs_rs_python.FSRS(list(parameters)).evaluate(list(items))
    return Fit(log_loss=float(evaluation.log_loss), rmse_bins=float(evaluation.rmse_bins))


def _same(first: Sequence[float], second: Sequence[float]) -> bool:
    return len(first) == len(second) and all(
        abs(a - b) < 1e-6 for a, b in zip(first, second, strict=True)
    )
