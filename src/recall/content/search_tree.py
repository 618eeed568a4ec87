"""The tree a search query is parsed into (``search.parse``): its terms, negation, and the
``and`` and ``or`` groups. ``storage.search_sql`` turns a tree into SQL."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Comparison = Literal["<=", ">=", "!=", "=", "<", ">"]


@dataclass(frozen=True, slots=True)
class Text:
    """Text to find: in any of the card's texts (``field`` None), or in one field.

    Attributes:
        pattern: An SQL LIKE pattern (``%`` any run, ``_`` one character, ``\\`` escapes).
    """

    pattern: str
    field: str | None = None


@dataclass(frozen=True, slots=True)
class InDeck:
    """Cards of a deck (matched by name or id, wildcards allowed) and of its subdecks."""

    pattern: str


@dataclass(frozen=True, slots=True)
class Tagged:
    """Cards with a tag or one of its child tags (``a::b`` is a child of ``a``); ``none``."""

    pattern: str


@dataclass(frozen=True, slots=True)
class Is:
    """Cards in a state: one of ``IS_VALUES``."""

    value: str


@dataclass(frozen=True, slots=True)
class Flag:
    """Cards with a flag, 1-7; 0 means no flag."""

    value: int


@dataclass(frozen=True, slots=True)
class CardIds:
    """Cards with one of these ids (``cid:12,40,41``, as Anki writes a selection)."""

    ids: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Prop:
    """A numeric property compared with a number (``prop:ivl>=10``)."""

    name: str
    comparison: Comparison
    value: float


@dataclass(frozen=True, slots=True)
class Days:
    """Events in the last ``days`` study days: answered, answered wrong, added, edited.

    Attributes:
        rating: For ``rated``, only answers with this rating (1-4).
    """

    kind: str
    days: int
    rating: int | None = None


@dataclass(frozen=True, slots=True)
class Not:
    """Cards the operand does not match."""

    operand: Node


@dataclass(frozen=True, slots=True)
class And:
    """Cards every operand matches."""

    operands: tuple[Node, ...]


@dataclass(frozen=True, slots=True)
class Or:
    """Cards at least one operand matches."""

    operands: tuple[Node, ...]


Node = Text | InDeck | Tagged | Is | Flag | CardIds | Prop | Days | Not | And | Or
