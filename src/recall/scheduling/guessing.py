"""Right picks that may be guesses: FSRS fitted with and without a guess term, judged in time.

A right pick on a card with k options, one of them right, is weaker evidence than recall: a
learner who does not remember still picks right once in k. Under the guess model the chance
of a right answer is ``p = R + (1 - R) * g`` with ``g = 1 / k``; without it, ``p = R``.
Both models are fitted by the same optimizer (``fitting``), each under its own likelihood,
on the parameter health check's time-series splits, and judged on the held-out answers, each
under its own likelihood. The correction is adopted only where its held-out log loss is
lower.

Select-all-that-apply cards get no guess term: a guesser has to hit the exact set, which
for k options is one of 2**k - 1 non-empty sets (1 in 15 with 4 options) only if every
set is equally likely, and how learners guess sets is not known; the term would be small
and its size a guess of its own.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import fsrs_rs_python

from recall.core.i18n import tr
from recall.scheduling.fitting import CardHistory, Walk, evaluate, fit, walks
from recall.scheduling.optimize import Fit
from recall.scheduling.parameter_health import PARTS
from recall.scheduling.parameters import DEFAULT_PARAMETERS

__all__ = ["CardHistory", "Comparison", "SplitComparison", "compare", "guess_chance"]


def guess_chance(kind: str, content: str) -> float:
    """The chance of a right answer by guessing on a card, from its kind and stored content.

    Args:
        kind: The card's kind ("choice", "basic", ...).
        content: The card's content as stored (the deck file's JSON of the card).

    Returns:
        1 / k for a choice card with k options and one right; 0 for every other card.
    """
    if kind != "choice":
        return 0.0
    try:
        choices = json.loads(content)["choices"]
        right = sum(1 for choice in choices if choice.get("correct"))
    except (ValueError, KeyError, TypeError, AttributeError):
        return 0.0
    return 1.0 / len(choices) if right == 1 and len(choices) > 1 else 0.0


@dataclass(frozen=True)
class SplitComparison:
    """One time-series split: both models fitted on the earlier answers, judged on the next.

    Attributes:
        trained_on: Answers fitted to.
        held_out: Answers judged on.
        plain: The model without the guess term, on the held-out answers.
        guessing: The model with it, on the same answers, under its own likelihood.
    """

    trained_on: int
    held_out: int
    plain: Fit
    guessing: Fit


@dataclass(frozen=True)
class Comparison:
    """The guess correction measured on held-out answers, and whether it is adopted.

    Attributes:
        splits: The time-series splits.
        guessed_answers: Answers to cards a guess can answer right (choice cards).
        fitted: When the correction is adopted, the parameters fitted under the guess model
            to every answer (those applied); empty otherwise.
    """

    splits: tuple[SplitComparison, ...]
    guessed_answers: int
    fitted: tuple[float, ...]

    @property
    def plain(self) -> Fit:
        """The model without the guess term over every held-out answer."""
        return _pooled([(split.held_out, split.plain) for split in self.splits])

    @property
    def guessing(self) -> Fit:
        """The model with the guess term over every held-out answer."""
        return _pooled([(split.held_out, split.guessing) for split in self.splits])

    @property
    def adopted(self) -> bool:
        """Whether the guess model predicts held-out answers better (lower log loss)."""
        return self.guessed_answers > 0 and self.guessing.log_loss < self.plain.log_loss

    def words(self) -> str:
        """Both figures and the verdict in a sentence."""
        plain, guessing = self.plain, self.guessing
        if self.adopted:
            sentence = tr(
                "Guess correction (a right pick on a k-option card may be a 1-in-k guess), on "
                "later reviews: log loss {loss_without} without, {loss_with} with; RMSE "
                "{rmse_without} without, {rmse_with} with: adopted: the parameters are fitted "
                "with it."
            )
        else:
            sentence = tr(
                "Guess correction (a right pick on a k-option card may be a 1-in-k guess), on "
                "later reviews: log loss {loss_without} without, {loss_with} with; RMSE "
                "{rmse_without} without, {rmse_with} with: not adopted: a right pick counts as "
                "recall."
            )
        return sentence.format(
            loss_without=f"{plain.log_loss:.4f}",
            loss_with=f"{guessing.log_loss:.4f}",
            rmse_without=f"{plain.rmse_bins:.1%}",
            rmse_with=f"{guessing.rmse_bins:.1%}",
        )

    def to_json(self) -> dict[str, object]:
        """The comparison as ``recall optimize --json`` prints it."""

        def fit_json(value: Fit) -> dict[str, float]:
            return {"log_loss": value.log_loss, "rmse_bins": value.rmse_bins}

        return {
            "adopted": self.adopted,
            "guessed_answers": self.guessed_answers,
            "without": fit_json(self.plain),
            "with": fit_json(self.guessing),
            "splits": [
                {
                    "trained_on": split.trained_on,
                    "held_out": split.held_out,
                    "without": fit_json(split.plain),
                    "with": fit_json(split.guessing),
                }
                for split in self.splits
            ],
        }


def compare(
    histories: Iterable[CardHistory],
    parts: int = PARTS,
    start: Sequence[float] | None = None,
) -> Comparison | None:
    """Fit with and without the guess term on each time split and judge on the next part.

    The splits are the parameter health check's: answers in the order of their study day,
    cut into ``parts`` equal parts; each model is fitted to the first k parts (starting from
    fsrs-rs-python's fit of them) and judged on part k + 1.

    Args:
        histories: Each card's answers and its guess chance.
        parts: How many time-ordered parts to cut the answers into.
        start: Where the fit to every answer starts (fsrs-rs-python's fit of them, if the
            caller has it); FSRS's defaults when None.

    Returns:
        The comparison, or None when no card can be guessed or the history is too short.
    """
    cards = walks(histories)
    total = sum(len(card.ranks) for card in cards)
    guessed = sum(len(card.ranks) for card in cards if card.guess > 0)
    if not guessed or total < _FEWEST:
        return None
    bounds = [total * part // parts for part in range(parts + 1)]
    splits = []
    for part in range(1, parts):
        begin = _fsrs_rs_fit(cards, bounds[part])
        plain = fit(cards, begin, guessing=False, below=bounds[part])
        guessing = fit(cards, begin, guessing=True, below=bounds[part])
        span = (bounds[part], bounds[part + 1])
        splits.append(
            SplitComparison(
                trained_on=bounds[part],
                held_out=bounds[part + 1] - bounds[part],
                plain=evaluate(cards, plain, guessing=False, span=span),
                guessing=evaluate(cards, guessing, guessing=True, span=span),
            )
        )
    found = Comparison(tuple(splits), guessed, ())
    if not found.adopted:
        return found
    whole = tuple(start) if start else DEFAULT_PARAMETERS
    return dataclasses.replace(found, fitted=fit(cards, whole, guessing=True, below=total))


# As the health check: fewer answers than this give too little to fit and judge.
_FEWEST = 200


def _fsrs_rs_fit(cards: Sequence[Walk], below: int) -> tuple[float, ...]:
    """fsrs-rs-python's fit (no guess term) of the answers ranked below ``below``."""
    items = [item for card in cards for item in card.items(below)]
    fitted = fsrs_rs_python.FSRS(list(DEFAULT_PARAMETERS)).compute_parameters(items)
    return tuple(float(value) for value in fitted)


def _pooled(parts: Sequence[tuple[int, Fit]]) -> Fit:
    """Fits of several held-out parts as one over all their answers.

    The log loss pools exactly (a mean per answer); the binned RMSE is the parts' RMSEs
    weighted by their answers, close to the RMSE of the pooled bins.
    """
    answers = sum(count for count, _ in parts) or 1
    return Fit(
        log_loss=sum(count * value.log_loss for count, value in parts) / answers,
        rmse_bins=sum(count * value.rmse_bins for count, value in parts) / answers,
    )
