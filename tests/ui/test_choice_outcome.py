"""The marks a choice card gets after an answer, computed without Qt."""

from __future__ import annotations

import subprocess
import sys

from recall.content.deck_format import Choice, ChoiceCard
from recall.ui.review.choice_outcome import Outcome, choice_result


def card(*choices: tuple[str, bool, str | None]) -> ChoiceCard:
    return ChoiceCard(
        id="c",
        type="choice",
        question="Which?",
        choices=[Choice(text=text, correct=right, why=why) for text, right, why in choices],
    )


ONE_RIGHT = card(("a", False, "a is a trap"), ("b", True, None), ("c", False, None))
TWO_RIGHT = card(("a", True, "a counts"), ("b", True, None), ("c", False, "c does not"))


def test_a_right_pick_is_marked_in_the_order_shown() -> None:
    result = choice_result(ONE_RIGHT, order=(2, 1, 0), picked={1})
    assert result.outcomes == (Outcome.NONE, Outcome.PICKED_RIGHT, Outcome.NONE)
    assert result.checked == (False, True, False)
    assert result.verdict == "Correct"
    assert result.notes == ""


def test_a_wrong_pick_shows_the_right_choice_and_why_the_pick_was_wrong() -> None:
    result = choice_result(ONE_RIGHT, order=(0, 1, 2), picked={0})
    assert result.outcomes == (Outcome.PICKED_WRONG, Outcome.RIGHT, Outcome.NONE)
    assert result.verdict == "Not quite"
    assert result.notes == "**a**: a is a trap"


def test_a_partly_right_select_all_answer_marks_the_missed_choice_and_is_wrong() -> None:
    result = choice_result(TWO_RIGHT, order=(0, 1, 2), picked={0})
    assert result.outcomes == (Outcome.PICKED_RIGHT, Outcome.MISSED, Outcome.NONE)
    assert result.verdict == "Not quite"
    assert result.notes == "**a**: a counts"


def test_a_select_all_answer_with_no_right_pick_shows_the_right_ones_as_right() -> None:
    result = choice_result(TWO_RIGHT, order=(1, 2, 0), picked={2})
    assert result.outcomes == (Outcome.RIGHT, Outcome.PICKED_WRONG, Outcome.RIGHT)
    assert result.notes == "**c**: c does not"
    assert result.verdict == "Not quite"


def test_every_mark_but_none_is_said_in_words() -> None:
    assert all(outcome.value for outcome in Outcome if outcome is not Outcome.NONE)
    assert {o.value[0] for o in Outcome if o is not Outcome.NONE} == {"✓", "✗"}


def test_the_outcome_logic_loads_no_qt() -> None:
    script = "import sys, recall.ui.review.choice_outcome; print('PySide6' in sys.modules)"
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "False"
