"""Load balancing and Easy Days over a simulated year: how even the days are, and the work.

A year of daily study of a deck of new cards (``scheduling.load_simulation``: every answer
through the app's own Scheduler and load balancer, the loads counted as the study session
reads them), four times on the same deck and ratings generator: balancing off, on (the
default), and on with Sunday marked minimum, then reduced. Not a timing: the figures are
counts, the same on every machine. ``python -m benchmarks.measure_balance`` runs it alone
and prints its section of docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import time
from dataclasses import dataclass

from recall.core.presets import Preset
from recall.scheduling.load_simulation import DailyLoad, simulate_days

CARDS = 10_000
DAYS = 365
NEW_PER_DAY = 28  # every card introduced within the year
SMOKE = (300, 60, 5)
_SUNDAY = 6
# The goals (issue 28): the spread at least halves, the reviews rise by at most 2%.
SPREAD_GOAL = 0.5
TOTAL_GOAL = 1.02


@dataclass(frozen=True)
class BalanceRun:
    """One simulated year under one setting."""

    setting: str
    load: DailyLoad


def measure_balance(
    cards: int = CARDS, days: int = DAYS, new_per_day: int = NEW_PER_DAY
) -> list[BalanceRun]:
    """The simulated year under each setting, the same deck and ratings generator for each."""
    settings = (
        ("load balancing off", Preset(load_balancing=False)),
        ("load balancing on (the default)", Preset()),
        ("on, Sunday minimum", Preset(easy_sunday="minimum")),
        ("on, Sunday reduced", Preset(easy_sunday="reduced")),
    )
    return [
        BalanceRun(name, simulate_days(preset, cards, days, new_per_day))
        for name, preset in settings
    ]


def section(
    runs: list[BalanceRun], cards: int = CARDS, days: int = DAYS, new_per_day: int = NEW_PER_DAY
) -> list[str]:
    """The runs as docs/benchmarks.md's section: a table, the goals, what it measures."""
    off, on = runs[0].load, runs[1].load
    lines = [
        "## Load balancing and Easy Days: a simulated year",
        "",
        f"{days} days of daily study of {cards:,} new cards ({new_per_day} introduced a day), "
        "every due card answered each day, ratings drawn from FSRS's retrievability with one "
        "seeded generator; each answer goes through the app's own scheduler and load "
        "balancer (`scheduling/load_simulation.py`). Reviews are answers to cards in review; "
        "answers include learning ones. Spread is the standard deviation of the reviews per "
        "day over their mean; day-to-day spread the standard deviation of each day's reviews "
        "over the average of the seven days around it (the load grows all year while new "
        "cards come in, which the plain spread mostly measures).",
        "",
        "| Setting | Answers | Reviews | Spread | Day-to-day spread | Sunday's reviews | "
        "Other days' reviews | Days chosen |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for run in runs:
        load = run.load
        lines.append(
            f"| {run.setting} | {load.total:,} | {sum(load.reviews_per_day):,} | "
            f"{load.spread:.3f} | {load.daily_spread:.3f} | "
            f"{load.weekday_average(_SUNDAY):.1f} a day | {load.others_average(_SUNDAY):.1f} a day"
            f" | {load.chosen:,} |"
        )
    daily = on.daily_spread / off.daily_spread if off.daily_spread else 0.0
    plain = on.spread / off.spread if off.spread else 0.0
    total = on.total / off.total if off.total else 0.0
    minimum, reduced = runs[2].load, runs[3].load

    def verdict(met: bool) -> str:
        return "met" if met else "missed"

    lines += [
        "",
        f"- **Spread at least halves with load balancing on**: the day-to-day spread is "
        f"{daily:.2f}x of balancing off's, the plain spread {plain:.2f}x: "
        f"**{verdict(daily <= SPREAD_GOAL)}**.",
        f"- **Total answers rise by at most 2%**: {total:.3f}x of balancing off's: "
        f"**{verdict(total <= TOTAL_GOAL)}**.",
        f"- **Easy Days cut the marked weekday's load**: Sunday minimum, "
        f"{minimum.weekday_average(_SUNDAY) / minimum.others_average(_SUNDAY):.2f}x the other "
        f"days' reviews; Sunday reduced, "
        f"{reduced.weekday_average(_SUNDAY) / reduced.others_average(_SUNDAY):.2f}x (a "
        "minimum day still gets the reviews whose interval has no range to choose in: under "
        "three days, as after a lapse, or over 90; a reduced day takes reviews while under "
        "half the others' load).",
    ]
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.measure_balance")
    parser.add_argument("--smoke", action="store_true", help="a small deck over a few weeks")
    args = parser.parse_args()
    cards, days, per_day = SMOKE if args.smoke else (CARDS, DAYS, NEW_PER_DAY)
    began = time.perf_counter()
    runs = measure_balance(cards, days, per_day)
    print("\n".join(section(runs, cards, days, per_day)))
    print(f"\n({time.perf_counter() - began:.0f} s)")


if __name__ == "__main__":
    main()
