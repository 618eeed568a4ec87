"""Anki cloze deletions (``{{c1::text}}``, ``{{c1::text::hint}}``, nested): numbers and faces.

Deletions may nest without limit: parsing and rendering walk the nesting with explicit
stacks, never by recursion. A number of more than nine digits is not a deletion.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field

_TOKEN = re.compile(r"\{\{c(\d{1,9})::|::|\}\}")
HIDDEN = "[...]"


@dataclass
class _Deletion:
    number: int
    body: list[_Deletion | str] = field(default_factory=list)
    hint: list[_Deletion | str] | None = None

    def literal(self) -> list[_Deletion | str]:
        """The deletion as the text it was written with, for one that never closes."""
        hint = ["::", *self.hint] if self.hint is not None else []
        return [f"{{{{c{self.number}::", *self.body, *hint]


def _parse(text: str) -> list[_Deletion | str]:
    """Split text into plain runs and deletions; a deletion left open stays plain text."""
    root: list[_Deletion | str] = []
    open_deletions: list[_Deletion] = []

    def target() -> list[_Deletion | str]:
        if not open_deletions:
            return root
        innermost = open_deletions[-1]
        return innermost.hint if innermost.hint is not None else innermost.body

    position = 0
    for match in _TOKEN.finditer(text):
        target().append(text[position : match.start()])
        position = match.end()
        token = match.group(0)
        innermost = open_deletions[-1] if open_deletions else None
        in_hint = innermost is not None and innermost.hint is not None
        number = match.group(1)
        if number is not None and not in_hint and int(number) > 0:
            deletion = _Deletion(int(number))
            target().append(deletion)
            open_deletions.append(deletion)
        elif token == "::" and innermost is not None and not in_hint:
            innermost.hint = []
        elif token == "}}" and innermost is not None:
            open_deletions.pop()
        else:
            target().append(token)
    target().append(text[position:])
    while open_deletions:
        unclosed = open_deletions.pop()
        parent = target()
        index = next(i for i, node in enumerate(parent) if node is unclosed)
        parent[index : index + 1] = unclosed.literal()
    return root


def _numbers(nodes: list[_Deletion | str]) -> set[int]:
    found: set[int] = set()
    pending = [nodes]
    while pending:
        for node in pending.pop():
            if isinstance(node, _Deletion):
                found.add(node.number)
                pending.append(node.body)
    return found


def cloze_numbers(text: str) -> set[int]:
    """The cloze numbers (1 for ``c1``) that text deletes, nested deletions included."""
    return set(_parsed(text).numbers)


def has_cloze(text: str) -> bool:
    """Whether text holds at least one cloze deletion."""
    return bool(cloze_numbers(text))


_DONE = object()


def _render(nodes: list[_Deletion | str], number: int, *, answer: bool) -> str:
    parts: list[str] = []
    frames = [iter(nodes)]
    closers = [""]
    while frames:
        node = next(frames[-1], _DONE)
        if node is _DONE:
            frames.pop()
            parts.append(closers.pop())
        elif isinstance(node, str):
            parts.append(node)
        elif isinstance(node, _Deletion) and (node.number != number or answer):
            opening, closing = ("<b>", "</b>") if node.number == number else ("", "")
            parts.append(opening)
            frames.append(iter(node.body))
            closers.append(closing)
        elif isinstance(node, _Deletion):
            hint = "".join(part for part in node.hint or [] if isinstance(part, str)).strip()
            parts.append(f"[{hint}]" if hint else HIDDEN)
    return "".join(parts)


class ClozeText:
    """A cloze field parsed once, to give each of its cards.

    The text with every deletion revealed is rendered once; a card then renders only the
    top-level runs that hold its deletion and copies the rest, so a note with thousands
    of deletions gives its cards in time proportional to their size.
    """

    def __init__(self, text: str) -> None:
        self._nodes = _parse(text)
        self.numbers = sorted(_numbers(self._nodes))
        pieces: list[str] = []
        self._starts: list[int] = []
        self._runs: dict[int, list[int]] = {}
        length = 0
        for index, node in enumerate(self._nodes):
            self._starts.append(length)
            if isinstance(node, _Deletion):
                for number in _numbers([node]):
                    self._runs.setdefault(number, []).append(index)
                piece = _render([node], 0, answer=False)  # no deletion is numbered 0
            else:
                piece = node
            pieces.append(piece)
            length += len(piece)
        self._starts.append(length)
        self._revealed = "".join(pieces)

    def faces(self, number: int) -> tuple[str, str]:
        """The question and answer of one cloze card (see ``cloze_faces``)."""
        question: list[str] = []
        answer: list[str] = []
        position = 0
        for index in self._runs.get(number, []):
            before = self._revealed[position : self._starts[index]]
            node = self._nodes[index : index + 1]
            question += (before, _render(node, number, answer=False))
            answer += (before, _render(node, number, answer=True))
            position = self._starts[index + 1]
        rest = self._revealed[position:]
        return "".join(question) + rest, "".join(answer) + rest


@functools.lru_cache(maxsize=16)
def _parsed(text: str) -> ClozeText:
    """The parse of a field, kept for the next card of the same note."""
    return ClozeText(text)


def cloze_faces(text: str, number: int) -> tuple[str, str]:
    """The question and answer of one cloze card, as Anki shows them.

    Args:
        text: The cloze field (HTML or escaped plain text).
        number: Which deletion this card asks for (1 for ``c1``).

    Returns:
        The front, with deletion ``number`` shown as ``[...]`` (or ``[hint]``) and every
        other deletion as its text; and the back, with deletion ``number`` revealed in bold.
    """
    return _parsed(text).faces(number)


def cloze_answers(text: str, number: int) -> list[str]:
    """The texts deletion ``number`` hides, in order (what a ``{{type:cloze:}}`` box expects).

    A deletion nested in another of the same number is part of the outer one's text.
    """
    answers: list[str] = []
    pending: list[_Deletion | str] = list(reversed(_parsed(text)._nodes))
    while pending:
        node = pending.pop()
        if isinstance(node, _Deletion):
            if node.number == number:
                answers.append(_render(node.body, 0, answer=False))
            else:
                pending.extend(reversed(node.body))
    return answers
