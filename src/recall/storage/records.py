"""Plain values the store hands out and takes in, so no ORM object leaves the storage layer."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from recall.memory import MemoryState


@dataclass(frozen=True, slots=True)
class DeckRow:
    """A deck's identity."""

    id: int
    key: str
    name: str
    description: str


@dataclass(frozen=True, slots=True)
class DeckCounts:
    """A deck with the counts the deck list shows.

    Attributes:
        total: Cards in the deck.
        unseen: Cards never reviewed.
        due: Reviewed cards due before the end of the study day.
        introduced_today: New cards first reviewed this study day.
    """

    deck: DeckRow
    total: int
    unseen: int
    due: int
    introduced_today: int


@dataclass(frozen=True, slots=True)
class CardRow:
    """A card with its deck file content and its memory state."""

    id: int
    deck_id: int
    key: str
    kind: str
    content: str
    memory: MemoryState


@dataclass(frozen=True, slots=True)
class NewCard:
    """A card to add or update, as a deck file gives it."""

    key: str
    position: int
    kind: str
    content: str


@dataclass(frozen=True, slots=True)
class ReviewRow:
    """One stored review."""

    id: int
    card_id: int
    reviewed_at: datetime
    rating: int
    duration_ms: int
    state_before: int
    picked: tuple[str, ...] | None
    correct: bool
    kind: int = 0
    set_due: datetime | None = None
