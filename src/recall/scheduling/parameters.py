"""FSRS's parameters: py-fsrs's defaults, and why fsrs would refuse a given set."""

from __future__ import annotations

from collections.abc import Sequence

import fsrs

from recall.core.i18n import tr
from recall.core.presets import PARAMETER_BOUNDS, PARAMETER_COUNT

# core.presets declares the count and bounds without importing fsrs: held to fsrs's here.
DEFAULT_PARAMETERS: tuple[float, ...] = tuple(fsrs.scheduler.DEFAULT_PARAMETERS)
assert len(DEFAULT_PARAMETERS) == PARAMETER_COUNT, "presets.PARAMETER_COUNT must match fsrs"
assert (
    tuple(
        zip(
            fsrs.scheduler.LOWER_BOUNDS_PARAMETERS,
            fsrs.scheduler.UPPER_BOUNDS_PARAMETERS,
            strict=True,
        )
    )
    == PARAMETER_BOUNDS
), "presets.PARAMETER_BOUNDS must be fsrs's"


def parameter_problem(parameters: Sequence[float]) -> str | None:
    """Why fsrs would refuse these parameters (empty means its defaults), or None."""
    if not parameters:
        return None
    if len(parameters) != PARAMETER_COUNT:
        return tr("FSRS needs {count} parameters, got {got}").format(
            count=PARAMETER_COUNT, got=len(parameters)
        )
    for index, (value, (low, high)) in enumerate(zip(parameters, PARAMETER_BOUNDS, strict=True)):
        if not low <= value <= high:
            return tr("parameter {number} is {value}, outside FSRS's bounds {low}-{high}").format(
                number=index + 1, value=f"{value:g}", low=f"{low:g}", high=f"{high:g}"
            )
    return None
