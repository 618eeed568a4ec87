"""Queries of the card browser: run a search, read rows for a table, change many cards at once.

Plain SQL on the transaction's own sqlite3 connection, as the study queries are: a search
over 100,000 cards reads one integer per match, and rows are read only for what is shown.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from recall.core.memory import CardState, MemoryState, ReviewKind
from recall.storage.bulk_rows import indexes_lifted
from recall.storage.records import DeckRow
from recall.storage.review_ids import batch_uids, card_keys, free_uid
from recall.storage.rows import ORIGIN_KEPT
from recall.storage.sql import Sql
from recall.storage.times import from_micros, to_micros

if TYPE_CHECKING:
    from recall.storage.search_sql import Condition

_ENTRY_INSERT = (
    "INSERT INTO review (card_id, reviewed_at, rating, duration_ms, state_before, "
    "picked, correct, kind, set_due, set_stability, set_difficulty, uid) "
    "VALUES (?, ?, 0, 0, ?, NULL, 0, ?, ?, ?, ?, ?)"
)
NewEntry = tuple[int, ReviewKind, datetime, int, datetime | None, tuple[float, float] | None]
"""A schedule change to append: card id, kind, time, state before, due date, memory state."""

FROM = (
    "FROM card JOIN card_memory ON card_memory.card_id = card.id "
    "JOIN deck ON deck.id = card.deck_id"
)
_CHUNK = 500
# The page cache a search runs with, in KiB. SQLite sorts in memory up to the cache's size
# and beyond it writes sorted runs to a temporary file and merges them: at SQLite's default
# (2,000 KiB) the sort of 90,000 matches by due spilled, about 3 ms of a 23 ms search.
# The connection keeps it after the search (SQLite keeps a reader's pages between its
# transactions while nothing writes): the index by state and due of 100,000 cards (3.3 MB)
# and the schedules a rated: search looks up (5.4 MB) no longer fit when the cache went back
# to 2,000 KiB, so each search read them from the file again. Anki keeps 40 MiB.
_SEARCH_CACHE_KIB = 8192
# What undo may put back, by table: the columns a bulk action changes.
_RESTORABLE = {
    "card": {"deck_id", "key", "content", "updated_at", "edited", "flag"},
    "card_memory": {"deck_id", "suspended", "buried_until"},
    "deck": {"name", "description", "updated_at"},
}


@dataclass(frozen=True, slots=True)
class BrowseRow:
    """A card as the browser's table shows it."""

    id: int
    deck_id: int
    deck_name: str
    key: str
    kind: str
    content: str
    memory: MemoryState
    reps: int
    lapses: int
    last_correct: bool | None
    added_at: datetime
    updated_at: datetime
    suspended: bool
    buried_until: datetime | None
    flag: int
    tags: tuple[str, ...]


class BrowsingQueries:
    """The browser's reads and writes inside one transaction."""

    def __init__(self, sql: Sql) -> None:
        self._sql = sql
        self._rows = sql.rows

    def search(self, condition: Condition, order: Condition) -> list[int]:
        """Ids of the cards matching a compiled search, in the order given (from search_sql):
        read from the tables the two need alone (``search_sql.source``).

        The ids come as one JSON array built in the sorted order (SQLite keeps a subquery's
        ORDER BY under an aggregate whose result depends on it, as ``json_group_array``'s
        does): a row object per match cost about a third of a search of 90,000 cards.
        The sort runs in memory and the next search finds the pages this one read: the
        connection's cache is raised to ``_SEARCH_CACHE_KIB`` if smaller, and stays so.
        The search compiler is imported here: a review reads the decks through these
        queries and never searches.
        """
        from recall.storage.search_sql import source

        ((cache,),) = self._rows("PRAGMA cache_size")
        if self._cache_kib(int(cache)) < _SEARCH_CACHE_KIB:
            self._rows(f"PRAGMA cache_size = {-_SEARCH_CACHE_KIB}")
        ((found,),) = self._rows(
            "SELECT json_group_array(card_id) FROM (SELECT card_memory.card_id AS card_id "
            f"FROM {source(condition, order)} WHERE {condition.sql} "
            f"ORDER BY {order.sql}, card_memory.card_id)",
            [*condition.parameters, *order.parameters],
        )
        ids: list[int] = json.loads(found)
        return ids

    def _cache_kib(self, cache_size: int) -> int:
        """A ``PRAGMA cache_size`` in KiB (SQLite's negative figures are KiB, positive pages)."""
        if cache_size < 0:
            return -cache_size
        ((page_size,),) = self._rows("PRAGMA page_size")
        return cache_size * int(page_size) // 1024

    def count(self, condition: Condition) -> int:
        """How many cards match a compiled search."""
        from recall.storage.search_sql import source

        ((count,),) = self._rows(
            f"SELECT count(*) FROM {source(condition)} WHERE {condition.sql}",
            condition.parameters,
        )
        return int(count)

    def rows(self, card_ids: Sequence[int]) -> list[BrowseRow]:
        """The table rows of these cards, in the order of ``card_ids`` (missing ones left out)."""
        found: dict[int, BrowseRow] = {}
        for start in range(0, len(card_ids), _CHUNK):
            chunk = list(card_ids[start : start + _CHUNK])
            marks = ", ".join("?" * len(chunk))
            answers = (
                f"SELECT card_id, count(*), sum(rating = 1 AND state_before = "
                f"{int(CardState.REVIEW)}) FROM review WHERE kind = {int(ReviewKind.ANSWER)} "
                f"AND card_id IN ({marks}) GROUP BY card_id"
            )
            counts = {row[0]: (row[1], row[2]) for row in self._rows(answers, chunk)}
            last = {
                row[0]: bool(row[1])
                for row in self._rows(
                    "SELECT card_id, correct FROM review WHERE id IN (SELECT max(id) FROM review "
                    f"WHERE kind = {int(ReviewKind.ANSWER)} AND card_id IN ({marks}) "
                    "GROUP BY card_id)",
                    chunk,
                )
            }
            tags: dict[int, list[str]] = {}
            for card_id, tag in self._rows(
                f"SELECT card_id, tag FROM card_tag WHERE card_id IN ({marks}) ORDER BY tag",
                chunk,
            ):
                tags.setdefault(card_id, []).append(tag)
            for row in self._rows(
                "SELECT card.id, card.deck_id, deck.name, card.key, card.kind, card.content, "
                "card_memory.state, card_memory.step, card_memory.stability, "
                "card_memory.difficulty, card_memory.due, card_memory.last_review, "
                "card.added_at, card.updated_at, card_memory.suspended, "
                f"card_memory.buried_until, card.flag {FROM} WHERE card.id IN ({marks})",
                chunk,
            ):
                card_id = row[0]
                reps, lapses = counts.get(card_id, (0, 0))
                found[card_id] = BrowseRow(
                    id=card_id,
                    deck_id=row[1],
                    deck_name=row[2],
                    key=row[3],
                    kind=row[4],
                    content=row[5],
                    memory=MemoryState(
                        CardState(row[6]),
                        row[7],
                        row[8],
                        row[9],
                        from_micros(row[10]),
                        from_micros(row[11]),
                    ),
                    reps=int(reps),
                    lapses=int(lapses or 0),
                    last_correct=last.get(card_id),
                    added_at=_time(row[12]),
                    updated_at=_time(row[13]),
                    suspended=bool(row[14]),
                    buried_until=from_micros(row[15]),
                    flag=int(row[16]),
                    tags=tuple(tags.get(card_id, ())),
                )
        return [found[card_id] for card_id in card_ids if card_id in found]

    def first_of_notes(self, card_ids: Sequence[int]) -> dict[int, int]:
        """Each of these cards' note, by its first card's id: the smallest id of the deck's
        cards sharing its ``note`` (a card without one is a note of its own)."""
        firsts: dict[int, int] = {}
        for start in range(0, len(card_ids), _CHUNK):
            chunk = list(card_ids[start : start + _CHUNK])
            marks = ", ".join("?" * len(chunk))
            rows = self._rows(
                "SELECT card.id, coalesce((SELECT min(other.id) FROM card AS other "
                "WHERE other.deck_id = card.deck_id AND json_extract(other.content, '$.note') "
                f"= json_extract(card.content, '$.note')), card.id) FROM card "
                f"WHERE card.id IN ({marks})",
                chunk,
            )
            firsts.update((int(row[0]), int(row[1])) for row in rows)
        return firsts

    def tags(self) -> list[str]:
        """Every tag in use, sorted without regard to case."""
        rows = self._rows("SELECT DISTINCT tag FROM card_tag ORDER BY tag COLLATE NOCASE")
        return [row[0] for row in rows]

    def lapses(self, card_id: int) -> int:
        """How many times the card was forgotten in review."""
        ((count,),) = self._rows(
            f"SELECT count(*) FROM review WHERE card_id = ? AND kind = {int(ReviewKind.ANSWER)} "
            f"AND rating = 1 AND state_before = {int(CardState.REVIEW)}",
            (card_id,),
        )
        return int(count)

    # Bulk changes

    def values(
        self, table: str, columns: Sequence[str], ids: Sequence[int]
    ) -> list[tuple[Any, ...]]:
        """``(id, *columns)`` of these cards (or decks), as stored: what undo puts back."""
        self._check(table, columns)
        key = "card_id" if table == "card_memory" else "id"
        out: list[tuple[Any, ...]] = []
        for start in range(0, len(ids), _CHUNK):
            chunk = list(ids[start : start + _CHUNK])
            marks = ", ".join("?" * len(chunk))
            out += self._rows(
                f"SELECT {key}, {', '.join(columns)} FROM {table} WHERE {key} IN ({marks})", chunk
            )
        return out

    def put_values(
        self, table: str, columns: Sequence[str], rows: Iterable[tuple[Any, ...]]
    ) -> None:
        """Store ``(id, *columns)`` rows as ``values`` read them."""
        self._check(table, columns)
        key = "card_id" if table == "card_memory" else "id"
        assignments = ", ".join(f"{column} = ?" for column in columns)
        self._many(
            f"UPDATE {table} SET {assignments} WHERE {key} = ?",
            [(*row[1:], row[0]) for row in rows],
        )

    def set_suspended(self, card_ids: Sequence[int], suspended: bool) -> None:
        """Suspend or unsuspend cards."""
        self._many(
            "UPDATE card_memory SET suspended = ? WHERE card_id = ?",
            [(suspended, card_id) for card_id in card_ids],
        )

    def set_buried(self, card_ids: Sequence[int], until: datetime | None) -> None:
        """Keep cards out of study until a time (None: no longer buried)."""
        self._many(
            "UPDATE card_memory SET buried_until = ? WHERE card_id = ?",
            [(to_micros(until), card_id) for card_id in card_ids],
        )

    def set_flag(self, card_ids: Sequence[int], flag: int) -> None:
        """Give cards a flag (0 removes it)."""
        self._many(
            "UPDATE card SET flag = ? WHERE id = ?", [(flag, card_id) for card_id in card_ids]
        )

    def set_content(self, changes: Iterable[tuple[int, str]], now: datetime) -> None:
        """Replace cards' content, marking them changed in Recall."""
        self._many(
            "UPDATE card SET content = ?, updated_at = ?, edited = 1 WHERE id = ?",
            [(content, to_micros(now), card_id) for card_id, content in changes],
        )

    def move(self, moves: Iterable[tuple[int, str]], deck_id: int) -> None:
        """Move cards (id, key in the new deck) to a deck, schedule rows too; a card's own
        id in its content becomes its new key."""
        rows = list(moves)
        self._many(ORIGIN_KEPT, [(card_id,) for card_id, _ in rows])
        self._many(
            "UPDATE card SET deck_id = ?, key = ?, edited = 1, "
            "content = json_set(content, '$.id', ?) WHERE id = ?",
            [(deck_id, key, key, card_id) for card_id, key in rows],
        )
        self._many(
            "UPDATE card_memory SET deck_id = ? WHERE card_id = ?",
            [(deck_id, card_id) for card_id, _ in rows],
        )

    def keys(self, deck_id: int) -> set[str]:
        """The card keys a deck holds."""
        return {row[0] for row in self._rows("SELECT key FROM card WHERE deck_id = ?", (deck_id,))}

    def add_entry(
        self,
        card_id: int,
        kind: ReviewKind,
        at: datetime,
        state_before: int,
        due: datetime | None,
        memory: tuple[float, float] | None = None,
    ) -> int:
        """Append a schedule change (forget, set due date, memory state kept) to the history.

        ``memory`` is a memory entry's stability and difficulty.
        """
        micros = to_micros(at)
        assert micros is not None
        uid = free_uid(self._sql, card_keys(self._sql, [card_id])[card_id], micros, int(kind), 0)
        stability, difficulty = memory or (None, None)
        return self._sql.run(
            _ENTRY_INSERT,
            (card_id, micros, state_before, int(kind), to_micros(due), stability, difficulty, uid),
        )

    def add_entries(self, entries: Sequence[NewEntry]) -> None:
        """``add_entry`` for each of ``entries`` (its arguments in order), in one batch."""
        rows = []
        for card_id, kind, at, state_before, due, memory in entries:
            micros = to_micros(at)
            assert micros is not None
            stability, difficulty = memory or (None, None)
            rows.append(
                (card_id, micros, state_before, int(kind), to_micros(due), stability, difficulty)
            )
        uids = batch_uids(self._sql, [(row[0], row[1], row[3], 0) for row in rows])
        with indexes_lifted(self._sql, "review", len(rows)):
            self._many(_ENTRY_INSERT, [(*row, uid) for row, uid in zip(rows, uids, strict=True)])

    def delete_reviews(self, review_ids: Sequence[int]) -> None:
        """Remove history entries (undo of a forget or set due date)."""
        self._many("DELETE FROM review WHERE id = ?", [(review_id,) for review_id in review_ids])

    # Whole cards, for delete and its undo

    def dump(self, card_ids: Sequence[int]) -> dict[str, list[tuple[Any, ...]]]:
        """Every stored row of these cards, by table, so ``load`` can put them back."""
        out: dict[str, list[tuple[Any, ...]]] = {}
        for table, key in (("card", "id"), ("card_memory", "card_id"), ("review", "card_id")):
            rows: list[tuple[Any, ...]] = []
            for start in range(0, len(card_ids), _CHUNK):
                chunk = list(card_ids[start : start + _CHUNK])
                marks = ", ".join("?" * len(chunk))
                rows += self._rows(f"SELECT * FROM {table} WHERE {key} IN ({marks})", chunk)
            out[table] = rows
        return out

    def load(self, dumped: dict[str, list[tuple[Any, ...]]]) -> None:
        """Insert rows ``dump`` read (cards first, then schedules, then their history)."""
        for table in ("card", "card_memory", "review"):
            rows = dumped.get(table, [])
            if rows:
                marks = ", ".join("?" * len(rows[0]))
                self._many(f"INSERT INTO {table} VALUES ({marks})", rows)

    def delete_cards(self, card_ids: Sequence[int]) -> None:
        """Delete cards with their schedules and history."""
        pairs = [(card_id,) for card_id in card_ids]
        self._many("DELETE FROM review WHERE card_id = ?", pairs)
        self._many("DELETE FROM card_memory WHERE card_id = ?", pairs)
        self._many("DELETE FROM card WHERE id = ?", pairs)

    # Decks

    def decks(self) -> list[DeckRow]:
        """Every deck, by name."""
        rows = self._rows("SELECT id, key, name, description FROM deck ORDER BY name, id")
        return [DeckRow(id=row[0], key=row[1], name=row[2], description=row[3]) for row in rows]

    def deck_contents(self, deck_ids: Sequence[int]) -> tuple[int, int]:
        """How many cards and reviews these decks hold."""
        marks = ", ".join("?" * len(deck_ids))
        ((cards,),) = self._rows(f"SELECT count(*) FROM card WHERE deck_id IN ({marks})", deck_ids)
        ((reviews,),) = self._rows(
            f"SELECT count(*) FROM review WHERE card_id IN "
            f"(SELECT id FROM card WHERE deck_id IN ({marks}))",
            deck_ids,
        )
        return int(cards), int(reviews)

    def card_ids_of_decks(self, deck_ids: Sequence[int]) -> list[int]:
        """The ids of the cards in these decks."""
        marks = ", ".join("?" * len(deck_ids))
        rows = self._rows(f"SELECT id FROM card WHERE deck_id IN ({marks})", deck_ids)
        return [row[0] for row in rows]

    def set_deck(self, deck_id: int, name: str, description: str, now: datetime) -> None:
        """Change a deck's name and description."""
        self._sql.run(
            "UPDATE deck SET name = ?, description = ?, updated_at = ? WHERE id = ?",
            (name, description, to_micros(now), deck_id),
        )

    def delete_decks(self, deck_ids: Sequence[int]) -> None:
        """Delete decks that hold no cards any more."""
        self._many("DELETE FROM deck WHERE id = ?", [(deck_id,) for deck_id in deck_ids])

    def load_deck(self, row: tuple[Any, ...]) -> None:
        """Put back a deck row read with ``deck_rows``."""
        self._sql.run(f"INSERT INTO deck VALUES ({', '.join('?' * len(row))})", row)

    def deck_rows(self, deck_ids: Sequence[int]) -> list[tuple[Any, ...]]:
        """Decks' stored rows, for undoing their deletion."""
        marks = ", ".join("?" * len(deck_ids))
        return self._rows(f"SELECT * FROM deck WHERE id IN ({marks})", deck_ids)

    def edited_keys(self, deck_id: int) -> set[str]:
        """Keys of the deck's cards changed in Recall (edited, tagged, or moved in), and
        the keys of cards changed before schema 23 whose origin is unknown: each may have
        been moved out of this deck under its key."""
        return {
            row[0]
            for row in self._rows(
                "SELECT key FROM card WHERE deck_id = ? AND edited UNION "
                "SELECT card_key FROM card_origin WHERE deck_key IS NULL",
                (deck_id,),
            )
        }

    def card_id(self, deck_id: int, key: str) -> int | None:
        """The id of the deck's card with this key, if there is one."""
        found = self._sql.value("SELECT id FROM card WHERE deck_id = ? AND key = ?", (deck_id, key))
        return None if found is None else int(found)

    def next_position(self, deck_id: int) -> int:
        """The position after the deck's last card: where a card added by hand goes."""
        last = self._sql.value("SELECT max(position) FROM card WHERE deck_id = ?", (deck_id,))
        return 0 if last is None else int(last) + 1

    def deck_keys(self) -> set[str]:
        """Every deck's file id."""
        return {row[0] for row in self._rows("SELECT key FROM deck")}

    def question_exists(self, deck_id: int, question: str, but: int | None = None) -> bool:
        """Whether another card of the deck has this question (or front), exactly."""
        rows = self._rows(
            "SELECT 1 FROM card WHERE deck_id = ? AND id IS NOT ? AND coalesce("
            "json_extract(content, '$.question'), json_extract(content, '$.front')) = ? LIMIT 1",
            (deck_id, but, question),
        )
        return bool(rows)

    def _many(self, sql: str, rows: list[tuple[Any, ...]]) -> None:
        if rows:
            self._sql.run_many(sql, rows)

    @staticmethod
    def _check(table: str, columns: Sequence[str]) -> None:
        allowed = _RESTORABLE.get(table, set())
        if not columns or not set(columns) <= allowed:
            raise ValueError(f"cannot restore {table}.{columns}")


def _time(value: int) -> datetime:
    moment = from_micros(value)
    assert moment is not None
    return moment


def tags_of(content: str) -> list[str]:
    """The tags a card's JSON content lists."""
    tags = json.loads(content).get("tags", [])
    return [str(tag) for tag in tags]
