"""A typed answer compared with the right one, character by character, as Anki shows it.

Both texts are compared in Unicode's composed form (NFC) with the matcher Anki uses
(Python's ``difflib``, the same algorithm): the typed line marks what matches as good, what
should not be there as wrong and a run of dashes where characters are missing; the right
line below marks what matches as good and what the learner left out or got wrong as
missed. An answer one slip from right (one character added, dropped, changed, or two
swapped) is told apart from a wrong one, for grading. A type-in card's answer counts case,
as Anki's does; an option's text typed from memory may be compared ignoring it.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from difflib import SequenceMatcher
from enum import Enum


class Mark(Enum):
    """How a run of characters compares."""

    GOOD = "good"
    BAD = "bad"  # typed, but not in the answer there
    MISSED = "missed"  # in the answer, not typed


@dataclass(frozen=True)
class Piece:
    """A run of characters with one mark."""

    text: str
    mark: Mark


@dataclass(frozen=True)
class Comparison:
    """What was typed against what was expected.

    Attributes:
        typed: The typed text in marked runs (dashes stand where characters are missing).
        expected: The right answer in marked runs.
        correct: Whether the typed text is the answer exactly.
        one_slip: Whether it is one slip from the answer (never when correct).
    """

    typed: tuple[Piece, ...]
    expected: tuple[Piece, ...]
    correct: bool
    one_slip: bool


def _normal(text: str) -> str:
    return unicodedata.normalize("NFC", text).strip()


def compare(expected: str, typed: str, ignore_case: bool = False) -> Comparison:
    """Compare a typed answer with the expected one.

    Args:
        expected: The right answer, as plain text.
        typed: What the learner typed; whitespace at either end does not count.
        ignore_case: Whether "paris" is "Paris"; the marked runs keep each text's own case.
    """
    want, got = _normal(expected), _normal(typed)
    # Compared character by character, each folded alone, so the runs' positions stay
    # those of the texts as written (folding a whole text may change its length: "ß").
    want_keys, got_keys = _keys(want, ignore_case), _keys(got, ignore_case)
    if want_keys == got_keys:
        return Comparison((Piece(got, Mark.GOOD),), (Piece(want, Mark.GOOD),), True, False)
    typed_pieces: list[Piece] = []
    expected_pieces: list[Piece] = []
    matcher = SequenceMatcher(None, got_keys, want_keys, autojunk=False)
    for tag, typed_start, typed_end, want_start, want_end in matcher.get_opcodes():
        typed_part, want_part = got[typed_start:typed_end], want[want_start:want_end]
        if tag == "equal":
            typed_pieces.append(Piece(typed_part, Mark.GOOD))
            expected_pieces.append(Piece(want_part, Mark.GOOD))
        elif tag == "delete":
            typed_pieces.append(Piece(typed_part, Mark.BAD))
        elif tag == "insert":
            typed_pieces.append(Piece("-" * len(want_part), Mark.MISSED))
            expected_pieces.append(Piece(want_part, Mark.MISSED))
        else:  # replace
            typed_pieces.append(Piece(typed_part, Mark.BAD))
            expected_pieces.append(Piece(want_part, Mark.MISSED))
    slip = _one_slip(want_keys, got_keys)
    return Comparison(tuple(typed_pieces), tuple(expected_pieces), False, slip)


def matches(expected: str, typed: str, ignore_case: bool = False) -> bool:
    """Whether ``typed`` is the answer, as ``compare`` judges it, without marking runs."""
    return _keys(_normal(expected), ignore_case) == _keys(_normal(typed), ignore_case)


def _keys(text: str, ignore_case: bool) -> tuple[str, ...]:
    return tuple(char.casefold() for char in text) if ignore_case else tuple(text)


def _one_slip(want: tuple[str, ...], got: tuple[str, ...]) -> bool:
    """Whether ``got`` is one edit from ``want``: a character added, dropped, changed, or
    two neighbours swapped (a typed answer is short: this is linear in its length)."""
    if abs(len(want) - len(got)) > 1 or not got:
        return False
    start = 0
    while start < min(len(want), len(got)) and want[start] == got[start]:
        start += 1
    end_want, end_got = len(want), len(got)
    while end_want > start and end_got > start and want[end_want - 1] == got[end_got - 1]:
        end_want -= 1
        end_got -= 1
    differing_want, differing_got = want[start:end_want], got[start:end_got]
    if len(differing_want) <= 1 and len(differing_got) <= 1:
        return True
    return len(differing_want) == 2 and differing_got == differing_want[::-1]
