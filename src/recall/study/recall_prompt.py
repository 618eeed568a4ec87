"""When a choice card is asked as type-in (recall) instead of with its choices, and which
option a typed answer to it names.

A single-answer choice card whose memory has grown stable (its preset's
``type_in_from_stability``, in days) is asked without its choices: the learner types the
right option's text. A lapse puts the card back in relearning with a lower stability, so
its choices come back by themselves. Cards whose right option cannot sensibly be typed
(an image, a sound, a long sentence) keep their choices.
"""

from __future__ import annotations

from recall.content.deck_format import BasicCard, ChoiceCard
from recall.content.plain_text import plain_text
from recall.content.sound import without_references
from recall.core import type_answer
from recall.core.memory import CardState, MemoryState

MAX_RECALL_CHARS = 80
"""The longest right option asked as type-in: a word or a short phrase, not a paragraph."""


def recall_option(card: ChoiceCard) -> int | None:
    """The right option of a card that could be asked as type-in, or None.

    Only a card with one right option qualifies, and only when that option is text one
    can type: no image or sound, and at most ``MAX_RECALL_CHARS`` characters as shown.
    """
    if len(card.correct_indexes) != 1:
        return None  # "select all that apply" stays a choice card
    (index,) = card.correct_indexes
    text = card.choices[index].text
    if "![" in text or without_references(text) != text:
        return None
    answer = plain_text(text)
    if not answer.strip() or len(answer) > MAX_RECALL_CHARS:
        return None
    return index


def asked_as_recall(card: ChoiceCard | BasicCard, memory: MemoryState, threshold: int) -> bool:
    """Whether a card is asked as type-in at this showing.

    Args:
        card: The card about to be shown.
        memory: Its memory state now.
        threshold: Its preset's ``type_in_from_stability`` in days; 0 is never.

    Returns:
        True for a single-answer choice card in review whose stability is at or past
        the threshold; False for everything else (new, learning, relearning cards too).
    """
    return (
        threshold > 0
        and isinstance(card, ChoiceCard)
        and memory.state is CardState.REVIEW
        and memory.stability is not None
        and memory.stability >= threshold
        and recall_option(card) is not None
    )


def recall_answer(card: ChoiceCard) -> str:
    """The text a learner types for the card: its right option as shown, without markup.

    Raises:
        ValueError: The card cannot be asked as type-in (``recall_option`` is None).
    """
    index = recall_option(card)
    if index is None:
        raise ValueError(f"card {card.id!r} cannot be asked as type-in")
    return plain_text(card.choices[index].text)


def typed_option(card: ChoiceCard, typed: str) -> int | None:
    """The option whose text was typed (case and surrounding space aside), or None.

    So a typed wrong option counts as picking it: the misconception shows in statistics.
    """
    if not typed.strip():
        return None
    for index, choice in enumerate(card.choices):
        if type_answer.matches(plain_text(choice.text), typed, ignore_case=True):
            return index
    return None
