"""Card queries: a deck's cards by key, adding and updating them, and their schedules."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from datetime import datetime

from recall.memory import CardState, MemoryState
from recall.storage.records import CardKey, CardRow, NewCard
from recall.storage.rows import CARD_COLUMNS, card_row
from recall.storage.sql import Sql
from recall.storage.times import to_micros


class CardQueries:
    """The cards of one transaction, each with its schedule (its memory state)."""

    def __init__(self, sql: Sql) -> None:
        self._sql = sql

    def get(self, card_id: int) -> CardRow:
        """One card with its memory state.

        Raises:
            LookupError: There is no such card.
        """
        rows = self._sql.rows(
            f"SELECT {CARD_COLUMNS} FROM card JOIN card_memory "
            "ON card_memory.card_id = card.id WHERE card.id = ?",
            (card_id,),
        )
        if len(rows) != 1:
            raise LookupError(f"no card {card_id}")
        return card_row(rows[0])

    def count(self) -> int:
        """How many cards there are."""
        return int(self._sql.value("SELECT count(*) FROM card"))

    def of_deck(self, deck_id: int) -> list[CardRow]:
        """Every card of a deck, in deck-file order; cards sharing a position (each added at
        the end of the deck on another device before they synced) by key, the same order
        on every device."""
        rows = self._sql.rows(
            f"SELECT {CARD_COLUMNS} FROM card JOIN card_memory ON card_memory.card_id = card.id "
            "WHERE card.deck_id = ? ORDER BY card.position, card.key",
            (deck_id,),
        )
        return [card_row(row) for row in rows]

    def contents_of_deck(self, deck_id: int) -> Iterator[str]:
        """Each card's stored content (its deck-file JSON), in deck-file order (cards sharing
        a position by key, as ``of_deck``), read as it is consumed."""
        for (content,) in self._sql.each(
            "SELECT content FROM card WHERE deck_id = ? ORDER BY position, key", (deck_id,)
        ):
            yield content

    def keys(self, deck_id: int) -> dict[str, CardKey]:
        """Every card of the deck by its key."""
        rows = self._sql.rows(
            "SELECT key, id, position, kind, content FROM card WHERE deck_id = ?", (deck_id,)
        )
        return {
            key: CardKey(id=id_, position=position, kind=kind, content=content)
            for key, id_, position, kind, content in rows
        }

    def add(self, deck_id: int, cards: Iterable[NewCard], now: datetime) -> int:
        """Add new cards, each with a new-card memory state, in two batched inserts."""
        stamp = to_micros(now)
        rows = [
            (deck_id, card.key, card.position, card.kind, card.content, stamp, stamp)
            for card in cards
        ]
        if not rows:
            return 0
        self._sql.run_many(
            "INSERT INTO card (deck_id, key, position, kind, content, added_at, updated_at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            rows,
        )
        # Every card gets its memory row with it, so the deck's cards without one are these.
        self._sql.run(
            "INSERT INTO card_memory (card_id, deck_id, state) SELECT card.id, card.deck_id, ? "
            "FROM card WHERE card.deck_id = ? AND NOT EXISTS "
            "(SELECT 1 FROM card_memory WHERE card_memory.card_id = card.id)",
            (int(CardState.NEW), deck_id),
        )
        return len(rows)

    def update(self, card_id: int, card: NewCard, now: datetime) -> None:
        """Replace a card's content and position; its history and memory stay."""
        self._sql.run(
            "UPDATE card SET position = ?, kind = ?, content = ?, updated_at = ? WHERE id = ?",
            (card.position, card.kind, card.content, to_micros(now), card_id),
        )

    def set_memory(self, card_id: int, memory: MemoryState) -> None:
        """Store a card's memory state."""
        self.set_memories([(card_id, memory)])

    def set_memories(self, memories: Iterable[tuple[int, MemoryState]]) -> None:
        """Store many cards' memory states in one batch."""
        self._sql.run_many(
            "UPDATE card_memory SET state = ?, step = ?, stability = ?, difficulty = ?, "
            "due = ?, last_review = ? WHERE card_id = ?",
            (
                (
                    int(memory.state),
                    memory.step,
                    memory.stability,
                    memory.difficulty,
                    to_micros(memory.due),
                    to_micros(memory.last_review),
                    card_id,
                )
                for card_id, memory in memories
            ),
        )
