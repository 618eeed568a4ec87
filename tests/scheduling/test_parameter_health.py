"""The fitted parameters' health check: time-series splits judged on held-out reviews."""

from __future__ import annotations

import random

from recall.scheduling import parameter_health
from tests.scheduling.test_optimize import by_day, simulate, truth


def test_parameters_fitted_to_a_learner_unlike_the_defaults_generalise() -> None:
    histories = by_day(simulate(truth((2.0, 6.0, 15.0, 40.0), 1.0), cards=400, days=300, seed=2))
    health = parameter_health.check(histories)
    assert health is not None
    assert [split.trained_on for split in health.splits] == sorted(
        split.trained_on for split in health.splits
    )
    assert len(health.splits) == parameter_health.PARTS - 1
    held_out = sum(split.held_out for split in health.splits)
    assert held_out + health.splits[0].trained_on == len(parameter_health.dated_items(histories))
    assert health.wins >= 3
    assert health.healthy
    assert "they generalise" in health.words()


def test_ratings_that_do_not_follow_memory_are_warned_of() -> None:
    rng = random.Random(5)
    # Again or Good at random, whatever the time since the last review: nothing to learn.
    histories = [
        [(day, rng.choice((1, 3))) for day in sorted(rng.sample(range(400), 12))]
        for _ in range(150)
    ]
    health = parameter_health.check(histories)
    assert health is not None
    assert not health.healthy
    assert "Warning:" in health.words()
    assert health.to_json()["healthy"] is False


def test_too_little_history_makes_no_check() -> None:
    assert parameter_health.check([[(1, 3), (3, 3), (9, 3)]] * 20) is None
