"""How a choice card's answer is shown: each choice's mark, the notes and the verdict.

Pure logic with no Qt, so it is tested on its own; the card panel only paints the result.
"""

from __future__ import annotations

from collections.abc import Sequence, Set
from dataclasses import dataclass
from enum import Enum

from recall.content.deck_format import ChoiceCard
from recall.core import grading, i18n
from recall.core.i18n import mark

RIGHT_VERDICT = mark("Correct")
WRONG_VERDICT = mark("Not quite")


class Outcome(Enum):
    """How a choice is marked once the card is answered (shown by a word, not colour alone)."""

    NONE = ""
    PICKED_RIGHT = mark("✓ Your answer")
    PICKED_WRONG = mark("✗ Your answer")
    RIGHT = mark("✓ Right answer")
    MISSED = mark("✓ Also right")

    @property
    def shown(self) -> str:
        """The mark as shown, in the learner's language."""
        return i18n.tr(self.value) if self.value else ""

    @property
    def spoken(self) -> str:
        """The mark in words alone, as a screen reader says it (no sign to spell out)."""
        spoken = _SPOKEN[self]
        return i18n.tr(spoken) if spoken else ""


_SPOKEN = {
    Outcome.NONE: "",
    Outcome.PICKED_RIGHT: mark("your answer, right"),
    Outcome.PICKED_WRONG: mark("your answer, wrong"),
    Outcome.RIGHT: mark("the right answer"),
    Outcome.MISSED: mark("also right, not picked"),
}


@dataclass(frozen=True)
class ChoiceResult:
    """What the screen shows for an answered choice card.

    Attributes:
        outcomes: The mark of each choice, in the order the choices were shown.
        checked: Whether each shown choice was picked.
        notes: Markdown about the picked choices that carry a "why".
        verdict: "Correct" or "Not quite".
    """

    outcomes: tuple[Outcome, ...]
    checked: tuple[bool, ...]
    notes: str
    verdict: str


def choice_result(card: ChoiceCard, order: Sequence[int], picked: Set[int]) -> ChoiceResult:
    """Mark every shown choice after an answer.

    Args:
        card: The card answered.
        order: Indexes into ``card.choices`` in the order they were shown.
        picked: Indexes into ``card.choices`` the learner picked.

    Returns:
        The marks, the notes on picked choices and the verdict (graded as studying
        grades it).
    """
    right = card.correct_indexes
    outcomes: list[Outcome] = []
    notes: list[str] = []
    for index in order:
        if index in picked:
            outcomes.append(Outcome.PICKED_RIGHT if index in right else Outcome.PICKED_WRONG)
            why = card.choices[index].why
            if why:
                notes.append(f"**{card.choices[index].text}**: {why}")
        elif index in right:
            outcomes.append(Outcome.MISSED if picked & right else Outcome.RIGHT)
        else:
            outcomes.append(Outcome.NONE)
    return ChoiceResult(
        outcomes=tuple(outcomes),
        checked=tuple(index in picked for index in order),
        notes="\n\n".join(notes),
        verdict=i18n.tr(RIGHT_VERDICT if grading.is_correct(picked, right) else WRONG_VERDICT),
    )
