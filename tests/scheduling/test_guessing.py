"""The guess correction: fitted with and without it, judged on later reviews, adopted only
where it predicts them better."""

from __future__ import annotations

import json

import fsrs_rs_python
import pytest
from benchmarks.learners import learners

from recall.scheduling import DEFAULT_PARAMETERS, fitting, guessing

# A deck of 2-option and 4-option choice cards and cards rated by hand: one forgetting curve
# cannot fit right picks made by guessing on all three kinds at once.
MIXED = (2, 4, 0)


def test_guessing_learners_make_the_correction_win_and_be_adopted() -> None:
    # Three parts (two splits) keep the test short; the rule is the same with five.
    comparison = guessing.compare(learners(240, 300, seed=1, choices=MIXED, guessing=True), parts=3)
    assert comparison is not None
    assert comparison.guessing.log_loss < comparison.plain.log_loss
    assert comparison.adopted
    assert len(comparison.fitted) == len(DEFAULT_PARAMETERS)
    assert "adopted: the parameters are fitted with it" in comparison.words()


def test_answers_drawn_from_recall_alone_keep_the_correction_off() -> None:
    comparison = guessing.compare(
        learners(240, 300, seed=1, choices=MIXED, guessing=False), parts=3
    )
    assert comparison is not None
    assert comparison.guessing.log_loss > comparison.plain.log_loss
    assert not comparison.adopted
    assert comparison.fitted == ()
    assert "not adopted" in comparison.words()


def test_the_comparison_carries_both_figures_for_every_split() -> None:
    comparison = guessing.compare(learners(120, 200, seed=2, choices=MIXED), parts=3)
    assert comparison is not None
    shown = comparison.to_json()
    assert len(shown["splits"]) == 2  # type: ignore[arg-type]
    assert shown["without"] == {
        "log_loss": comparison.plain.log_loss,
        "rmse_bins": comparison.plain.rmse_bins,
    }
    assert f"{comparison.plain.log_loss:.4f} without" in comparison.words()
    assert f"{comparison.guessing.log_loss:.4f}" in comparison.words()
    held_out = sum(split.held_out for split in comparison.splits)
    assert held_out + comparison.splits[0].trained_on == sum(
        len(card.ranks) for card in fitting.walks(learners(120, 200, seed=2, choices=MIXED))
    )


def test_without_choice_cards_nothing_is_compared() -> None:
    assert guessing.compare(learners(120, 200, seed=3, choices=(0,))) is None


def test_the_model_predicts_what_fsrs_rs_python_predicts() -> None:
    cards = fitting.walks(learners(40, 200, seed=4, choices=(4,)))
    engine = fsrs_rs_python.FSRS(list(DEFAULT_PARAMETERS))
    decay = -DEFAULT_PARAMETERS[20]
    factor = 0.9 ** (1 / decay) - 1
    checked = 0
    for card in cards:
        reviews = [
            fsrs_rs_python.FSRSReview(rating, delta)
            for rating, delta in zip(card.ratings, card.deltas, strict=True)
        ]
        for index, chance, _right in fitting.predictions(DEFAULT_PARAMETERS, card, False, 0, 10**9):
            state = engine.memory_state(fsrs_rs_python.FSRSItem(reviews[:index]), None)
            expected = (card.deltas[index] / state.stability * factor + 1) ** decay
            assert chance == pytest.approx(expected, abs=1e-5)
            checked += 1
    assert checked > 50


def test_the_guess_term_raises_the_chance_of_a_right_pick_by_one_in_k() -> None:
    card = fitting.walks([fitting.CardHistory([(0, 3), (5, 3), (30, 1)], guess=0.25)])[0]
    plain = fitting.predictions(DEFAULT_PARAMETERS, card, False, 0, 10)
    guessed = fitting.predictions(DEFAULT_PARAMETERS, card, True, 0, 10)
    for (_, recall, _), (_, chance, _) in zip(plain, guessed, strict=True):
        assert chance == pytest.approx(recall + (1 - recall) / 4)


@pytest.mark.parametrize(
    ("choices", "chance"),
    [
        ([True, False, False, False], 0.25),
        ([False, True], 0.5),
        ([True, True, False, False], 0.0),  # select all that apply: no guess term
    ],
)
def test_the_guess_chance_comes_from_the_card(choices: list[bool], chance: float) -> None:
    content = json.dumps(
        {"choices": [{"text": str(at), "correct": right} for at, right in enumerate(choices)]}
    )
    assert guessing.guess_chance("choice", content) == chance
    assert guessing.guess_chance("basic", content) == 0.0
