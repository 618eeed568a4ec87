"""Card queries: a deck's cards by key, adding and updating them, and their schedules."""

from __future__ import annotations

import contextlib
import secrets
import struct
from collections.abc import Callable, Iterable, Iterator, Sequence
from datetime import datetime

from recall.core.memory import CardState, MemoryState
from recall.storage.bulk_rows import SCHEDULES_BATCHED_FROM, schedule_notes_batched
from recall.storage.records import CardKey, CardRow, MovedCard, NewCard
from recall.storage.rows import CARD_COLUMNS, card_row
from recall.storage.sql import Sql
from recall.storage.times import from_micros, to_micros

# Seeds are positive and below 2**62: an SQLite integer, and far from ids (cards from before
# schema 11 have their id as seed), so a random one clashes about never; when it does, it
# is drawn again.
SEED_LIMIT = 1 << 62
# Seeds looked up in one statement when checking new ones are free.
_SEEDS_PER_LOOKUP = 500


def random_seed() -> int:
    """A new card's seed: a random positive number below ``SEED_LIMIT``."""
    return secrets.randbelow(SEED_LIMIT - 1) + 1


def random_seeds(count: int) -> list[int]:
    """``count`` seeds drawn as ``random_seed`` draws one (each number from 1 to
    ``SEED_LIMIT - 1`` as likely), from one read of the system's randomness: 62 random bits
    each, a zero drawn again. One ``randbelow`` per card was 0.4 s of adding 100,000."""
    words = struct.unpack(f"<{count}Q", secrets.token_bytes(8 * count))
    mask = SEED_LIMIT - 1
    return [(word & mask) or random_seed() for word in words]


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
            "SELECT key, id, seed, position, kind, content FROM card WHERE deck_id = ?",
            (deck_id,),
        )
        return {
            key: CardKey(id=id_, seed=seed, position=position, kind=kind, content=content)
            for key, id_, seed, position, kind, content in rows
        }

    def add(
        self,
        deck_id: int,
        cards: Iterable[NewCard],
        now: datetime,
        draw: Callable[[], int] = random_seed,
    ) -> int:
        """Add new cards, each with a new-card memory state, in two batched inserts.

        Args:
            deck_id: The deck they go to.
            cards: The cards; one without a seed gets a random one no other card has.
            now: When they are added.
            draw: Draws a random seed (tests pass one that clashes).

        Returns:
            How many cards were added.
        """
        return self.add_in_batches(deck_id, [cards], now, draw)

    def add_in_batches(
        self,
        deck_id: int,
        batches: Iterable[Iterable[NewCard]],
        now: datetime,
        draw: Callable[[], int] = random_seed,
    ) -> int:
        """``add``, a batch of cards in memory at a time: the rows are those one ``add`` of
        every card writes, in the same order (a large deck's cards are read from a file
        batch by batch rather than held all at once).

        Returns:
            How many cards were added.
        """
        stamp = to_micros(now)
        count = 0
        for batch in batches:
            added = list(batch)
            if not added:
                continue
            seeds = self._new_seeds([card.seed for card in added], draw)
            # A search text left '' is derived by the insert trigger (or, with it lifted,
            # by ``card_index.SEARCH_TEXT_ADDED``); one given is the same text.
            self._sql.run_many(
                "INSERT INTO card (deck_id, key, position, kind, content, added_at, "
                "updated_at, seed, search_text) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    (
                        deck_id,
                        card.key,
                        card.position,
                        card.kind,
                        card.content,
                        stamp,
                        stamp,
                        s,
                        card.search_text or "",
                    )
                    for card, s in zip(added, seeds, strict=True)
                ),
            )
            count += len(added)
        if not count:
            return 0
        # Every card gets its memory row with it, so the deck's cards without one are these.
        self._sql.run(
            "INSERT INTO card_memory (card_id, deck_id, state, position) "
            "SELECT card.id, card.deck_id, ?, card.position FROM card WHERE card.deck_id = ? "
            "AND NOT EXISTS (SELECT 1 FROM card_memory WHERE card_memory.card_id = card.id)",
            (int(CardState.NEW), deck_id),
        )
        return count

    def taken_seeds(self, seeds: Iterable[int]) -> set[int]:
        """Those of ``seeds`` some card has."""
        wanted = list(seeds)
        taken: set[int] = set()
        for start in range(0, len(wanted), _SEEDS_PER_LOOKUP):
            chunk = wanted[start : start + _SEEDS_PER_LOOKUP]
            marks = ", ".join("?" * len(chunk))
            rows = self._sql.rows(f"SELECT seed FROM card WHERE seed IN ({marks})", chunk)
            taken.update(seed for (seed,) in rows)
        return taken

    def carried_over(self) -> list[int]:
        """The cards whose seed is still their id, as the upgrade to seeds left them."""
        return [int(row[0]) for row in self._sql.rows("SELECT id FROM card WHERE seed = id")]

    def reseed(self, card_ids: Sequence[int], draw: Callable[[], int] = random_seed) -> None:
        """Give these cards new random seeds no other card has (their schedules then need
        a replay: the seed draws the fuzz)."""
        seeds = self._new_seeds([None] * len(card_ids), draw)
        self._sql.run_many(
            "UPDATE card SET seed = ? WHERE id = ?", list(zip(seeds, card_ids, strict=True))
        )

    def _new_seeds(self, given: list[int | None], draw: Callable[[], int]) -> list[int]:
        """The seeds given, and a free random one in place of each None."""
        if draw is random_seed:
            drawn_at_once = iter(random_seeds(given.count(None)))
            seeds = [next(drawn_at_once) if seed is None else seed for seed in given]
        else:
            seeds = [draw() if seed is None else seed for seed in given]
        drawn = {index for index, seed in enumerate(given) if seed is None}
        while True:
            # Draw again where a random seed is some card's or another new card's.
            taken = self.taken_seeds(seeds[index] for index in drawn)
            seen: set[int] = {seed for seed in given if seed is not None}
            clashes = set()
            for index in sorted(drawn):
                if seeds[index] in taken or seeds[index] in seen:
                    clashes.add(index)
                seen.add(seeds[index])
            if not clashes:
                return seeds
            for index in clashes:
                seeds[index] = draw()

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
        """Store many cards' memory states in one batch (a large one with the cards noted
        for ``recall check`` afterwards: ``bulk_rows.schedule_notes_batched``)."""
        rows = [
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
        ]
        batched: contextlib.AbstractContextManager[None] = contextlib.nullcontext()
        if len(rows) >= SCHEDULES_BATCHED_FROM:
            batched = schedule_notes_batched(self._sql, [row[-1] for row in rows])
        with batched:
            self._sql.run_many(
                "UPDATE card_memory SET state = ?, step = ?, stability = ?, difficulty = ?, "
                "due = ?, last_review = ? WHERE card_id = ?",
                rows,
            )

    def moved_away(self, deck_key: str) -> dict[str, MovedCard]:
        """The cards that came from this deck's file under a key they no longer have there,
        by that key (the first such card when several did)."""
        rows = self._sql.rows(
            "SELECT card_origin.card_key, card.id, card.seed, card.position, card.kind, "
            "card.content, card.deck_id, card.key, card.updated_at, card.edited "
            "FROM card_origin JOIN card ON card.id = card_origin.card_id "
            "JOIN deck ON deck.id = card.deck_id WHERE card_origin.deck_key = ? "
            "AND NOT (deck.key = card_origin.deck_key AND card.key = card_origin.card_key) "
            "ORDER BY card.id DESC",
            (deck_key,),
        )
        moved: dict[str, MovedCard] = {}
        for origin, id_, seed, position, kind, content, deck_id, key, updated_at, edited in rows:
            moment = from_micros(updated_at)
            assert moment is not None, "updated_at is never NULL"
            stored = CardKey(id=id_, seed=seed, position=position, kind=kind, content=content)
            moved[origin] = MovedCard(stored, deck_id, key, moment, bool(edited))
        return moved

    def changed_marks(self, deck_id: int) -> dict[str, tuple[datetime, bool]]:
        """Each card of the deck by key: when its content last changed (in Recall or by an
        import) and whether it was changed in Recall (edited, tagged or moved)."""
        rows = self._sql.rows(
            "SELECT key, updated_at, edited FROM card WHERE deck_id = ?", (deck_id,)
        )
        marks: dict[str, tuple[datetime, bool]] = {}
        for key, updated_at, edited in rows:
            moment = from_micros(updated_at)
            assert moment is not None, "updated_at is never NULL"
            marks[key] = (moment, bool(edited))
        return marks

    def set_positions(self, positions: Iterable[tuple[int, int]]) -> None:
        """Move cards (id, position) in their deck's order, leaving their content and its
        time of change alone: a card only moved in the deck file did not change."""
        self._sql.run_many(
            "UPDATE card SET position = ? WHERE id = ?",
            [(position, card_id) for card_id, position in positions],
        )
