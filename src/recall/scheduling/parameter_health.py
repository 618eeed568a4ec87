"""A health check for fitted FSRS parameters: do they predict reviews they were not fitted to?

As Anki's health check (since 25.07) does, the history is split in time: the training items
are put in the order of their review's day and cut into equal parts; parameters are fitted to
the first k parts and judged on part k + 1 (a time-series split), beside FSRS's defaults on
the same held-out part. Parameters that beat the defaults on most held-out parts generalise;
ones that do not, or whose held-out error stays large, are worth a warning.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import fsrs_rs_python

from recall.core.i18n import tr
from recall.scheduling.optimize import DayRatings, Fit, evaluate
from recall.scheduling.parameters import DEFAULT_PARAMETERS

PARTS = 5  # four splits: fitted on 1, 2, 3 and 4 parts, judged on the next
# Below this many items a split has too little to fit or judge: no check is made.
FEWEST_ITEMS = 200
# A held-out RMSE (bins) above this means predicted recall is off by over 10 points.
BAD_RMSE = 0.10


@dataclass(frozen=True)
class SplitFit:
    """One time-series split: fitted on the earlier items, judged on the next part.

    Attributes:
        trained_on: Items fitted to.
        held_out: Items judged on.
        fitted: How the parameters fitted to the earlier items predict the held-out ones.
        defaults: How FSRS's defaults predict the same held-out items.
    """

    trained_on: int
    held_out: int
    fitted: Fit
    defaults: Fit

    @property
    def beats_defaults(self) -> bool:
        """Whether the fitted parameters predicted the held-out items better (log loss)."""
        return self.fitted.log_loss < self.defaults.log_loss


@dataclass(frozen=True)
class Health:
    """What the time-series splits found."""

    splits: tuple[SplitFit, ...]

    @property
    def wins(self) -> int:
        """Splits in which the fitted parameters beat the defaults on held-out items."""
        return sum(split.beats_defaults for split in self.splits)

    @property
    def generalises(self) -> bool:
        """Whether the fitted parameters beat the defaults on most held-out parts."""
        return self.wins * 2 > len(self.splits)

    @property
    def held_out_rmse(self) -> float:
        """The fitted parameters' RMSE (bins) on the last, largest-trained split."""
        return self.splits[-1].fitted.rmse_bins

    @property
    def fits_badly(self) -> bool:
        """Whether the held-out error is large, whatever the defaults do."""
        return self.held_out_rmse > BAD_RMSE

    @property
    def healthy(self) -> bool:
        """Neither warning applies."""
        return self.generalises and not self.fits_badly

    def words(self) -> str:
        """The verdict in a sentence or two."""
        figures = {
            "wins": self.wins,
            "splits": len(self.splits),
            "rmse": f"{self.held_out_rmse:.1%}",
        }
        if self.healthy:
            return tr(
                "Health check: on reviews they were not fitted to, the parameters beat FSRS's "
                "defaults in {wins} of {splits} time splits (held-out RMSE {rmse}): they "
                "generalise."
            ).format(**figures)
        warnings = []
        if not self.generalises:
            warnings.append(
                tr(
                    "they do not predict later reviews better than the defaults, so they may "
                    "fit the past by chance"
                )
            )
        if self.fits_badly:
            warnings.append(
                tr(
                    "predicted recall is off by more than {share} on later reviews (ratings "
                    "that do not follow how well you remember, such as Hard for a lapse, make "
                    "this)"
                ).format(share=f"{BAD_RMSE:.0%}")
            )
        return tr(
            "Health check: on reviews they were not fitted to, the parameters beat FSRS's "
            "defaults in {wins} of {splits} time splits (held-out RMSE {rmse}). Warning: "
            "{warnings}."
        ).format(**figures, warnings=tr("; and ").join(warnings))

    def to_json(self) -> dict[str, object]:
        """The check as ``recall optimize --json`` prints it."""
        return {
            "healthy": self.healthy,
            "generalises": self.generalises,
            "fits_badly": self.fits_badly,
            "splits": [
                {
                    "trained_on": split.trained_on,
                    "held_out": split.held_out,
                    "fitted": {
                        "log_loss": split.fitted.log_loss,
                        "rmse_bins": split.fitted.rmse_bins,
                    },
                    "defaults": {
                        "log_loss": split.defaults.log_loss,
                        "rmse_bins": split.defaults.rmse_bins,
                    },
                }
                for split in self.splits
            ],
        }


def dated_items(histories: Iterable[DayRatings]) -> list[tuple[int, fsrs_rs_python.FSRSItem]]:
    """Training items as ``optimize.training_items`` builds them, each with its review's day,
    in day order."""
    dated: list[tuple[int, int, fsrs_rs_python.FSRSItem]] = []
    for history in histories:
        built: list[fsrs_rs_python.FSRSReview] = []
        previous: int | None = None
        for day, rating in history:
            delta = 0 if previous is None else day - previous
            built.append(fsrs_rs_python.FSRSReview(rating, delta))
            previous = day
            if delta > 0:
                dated.append((day, len(dated), fsrs_rs_python.FSRSItem(list(built))))
    dated.sort(key=lambda entry: (entry[0], entry[1]))
    return [(day, item) for day, _, item in dated]


def check(histories: Iterable[DayRatings], parts: int = PARTS) -> Health | None:
    """Fit on the first k of ``parts`` time-ordered parts and judge on the next, for each k.

    Returns:
        The splits' figures, or None with fewer than ``FEWEST_ITEMS`` items.
    """
    items = [item for _, item in dated_items(histories)]
    if len(items) < FEWEST_ITEMS:
        return None
    bounds = [len(items) * part // parts for part in range(parts + 1)]
    splits = []
    for part in range(1, parts):
        earlier, held_out = items[: bounds[part]], items[bounds[part] : bounds[part + 1]]
        fitted = fsrs_rs_python.FSRS(list(DEFAULT_PARAMETERS)).compute_parameters(earlier)
        splits.append(
            SplitFit(
                trained_on=len(earlier),
                held_out=len(held_out),
                fitted=evaluate(fitted, held_out),
                defaults=evaluate(DEFAULT_PARAMETERS, held_out),
            )
        )
    return Health(tuple(splits))
