"""Decks, cards and reviews as sync reads and writes them: by their keys, column by column.

Sync names a card by its deck's key and its own (the ids each database gives are its own);
these queries translate, read the columns sync carries, and write what other devices sent.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Iterator, Sequence
from datetime import datetime
from typing import Any

from recall.core.memory import CardState, answer_ms
from recall.storage.cards import SEED_LIMIT, random_seed
from recall.storage.rows import ORIGIN_KEPT, REVIEW_ORDER
from recall.storage.sql import Row, Sql
from recall.storage.times import to_micros

CardColumns = dict[str, Any]
_CARD_SELECT = (
    "SELECT card.id, deck.key, card.key, card.position, card.kind, card.content, card.flag, "
    "card.edited, card_memory.suspended, card_memory.buried_until, card.seed FROM card "
    "JOIN deck ON deck.id = card.deck_id JOIN card_memory ON card_memory.card_id = card.id"
)
_REVIEW_SELECT = (
    "SELECT review.uid, deck.key, card.key, review.reviewed_at, review.kind, review.rating, "
    "review.duration_ms, review.state_before, review.picked, review.correct, review.set_due, "
    "review.proposed_rating, review.set_stability, review.set_difficulty FROM review "
    "JOIN card ON card.id = review.card_id "
    "JOIN deck ON deck.id = card.deck_id"
)
_CARD_TABLE = ("position", "kind", "content", "flag", "edited", "seed")
_MEMORY_TABLE = ("suspended", "buried_until")
ReviewValues = tuple[Any, ...]


def _card(row: Row) -> tuple[int, tuple[str, str], CardColumns]:
    card_id, deck_key, card_key, position, kind, content, flag, edited, suspended, buried = row[:10]
    columns = {
        "seed": int(row[10]),
        "position": int(position),
        "kind": kind,
        "content": content,
        "flag": int(flag),
        "edited": bool(edited),
        "suspended": bool(suspended),
        "buried_until": buried,
    }
    return int(card_id), (deck_key, card_key), columns


class SyncLocalQueries:
    """This database's decks, cards and reviews, named as every device names them."""

    def __init__(self, sql: Sql) -> None:
        self._sql = sql

    # Decks

    def decks(self, keys: Iterable[str] | None = None) -> dict[str, tuple[int, str, str, int]]:
        """deck key -> (id, name, description, preset id) of these decks (or all)."""
        rows = self._sql.rows(
            "SELECT deck.id, deck.key, deck.name, deck.description, "
            "coalesce(deck_preset.preset_id, 1) FROM deck "
            "LEFT JOIN deck_preset ON deck_preset.deck_id = deck.id"
        )
        wanted = None if keys is None else set(keys)
        return {
            key: (int(id_), name, description, int(preset))
            for id_, key, name, description, preset in rows
            if wanted is None or key in wanted
        }

    def exam_dates(self) -> dict[str, str]:
        """deck key -> the deck's exam day as stored (YYYY-MM-DD), for decks that have one."""
        return {
            str(key): str(day)
            for key, day in self._sql.rows("SELECT key, exam_on FROM deck WHERE exam_on <> ''")
        }

    def set_exam_date(self, deck_id: int, day: str | None) -> None:
        """Set or clear a deck's exam day as another device sent it."""
        self._sql.run("UPDATE deck SET exam_on = ? WHERE id = ?", (day, deck_id))

    def add_deck(self, key: str, name: str, description: str, now: datetime) -> int:
        """Add a deck; returns its id."""
        stamp = to_micros(now)
        return self._sql.run(
            "INSERT INTO deck (key, name, description, added_at, updated_at) "
            "VALUES (?, ?, ?, ?, ?)",
            (key, name, description, stamp, stamp),
        )

    def set_deck(self, deck_id: int, name: str, description: str, now: datetime) -> None:
        """Change a deck's name and description."""
        self._sql.run(
            "UPDATE deck SET name = ?, description = ?, updated_at = ? WHERE id = ?",
            (name, description, to_micros(now), deck_id),
        )

    def set_deck_preset(self, deck_id: int, preset_id: int) -> None:
        """Give a deck a preset (1, the default, removes its choice)."""
        self._sql.run("DELETE FROM deck_preset WHERE deck_id = ?", (deck_id,))
        if preset_id != 1:
            self._sql.run(
                "INSERT INTO deck_preset (deck_id, preset_id) VALUES (?, ?)", (deck_id, preset_id)
            )

    def delete_deck(self, deck_id: int) -> list[int]:
        """Delete a deck with its cards and their history; returns the cards' ids."""
        card_ids = [
            row[0] for row in self._sql.rows("SELECT id FROM card WHERE deck_id = ?", (deck_id,))
        ]
        self.delete_cards(card_ids)
        self._sql.run("DELETE FROM deck_preset WHERE deck_id = ?", (deck_id,))
        self._sql.run("DELETE FROM deck WHERE id = ?", (deck_id,))
        return card_ids

    # Cards

    def card_keys(self, card_ids: Iterable[int]) -> dict[int, tuple[str, str]]:
        """(deck key, card key) of these cards (those that still exist)."""
        found: dict[int, tuple[str, str]] = {}
        wanted = sorted(set(card_ids))
        for start in range(0, len(wanted), 500):
            chunk = wanted[start : start + 500]
            marks = ", ".join("?" * len(chunk))
            for card_id, deck_key, card_key in self._sql.rows(
                "SELECT card.id, deck.key, card.key FROM card JOIN deck ON deck.id = card.deck_id "
                f"WHERE card.id IN ({marks})",
                chunk,
            ):
                found[int(card_id)] = (deck_key, card_key)
        return found

    def cards(
        self, identities: Iterable[tuple[str, str]]
    ) -> dict[tuple[str, str], tuple[int, CardColumns]]:
        """(deck key, card key) -> (id, columns sync carries) of the cards that exist."""
        found: dict[tuple[str, str], tuple[int, CardColumns]] = {}
        for deck_key, card_key in identities:
            rows = self._sql.rows(
                f"{_CARD_SELECT} WHERE deck.key = ? AND card.key = ?", (deck_key, card_key)
            )
            if rows:
                card_id, identity, columns = _card(rows[0])
                found[identity] = (card_id, columns)
        return found

    def all_cards(self) -> Iterator[tuple[int, tuple[str, str], CardColumns]]:
        """Every card with the columns sync carries, in deck and file order."""
        for row in self._sql.each(f"{_CARD_SELECT} ORDER BY card.deck_id, card.position, card.id"):
            yield _card(row)

    def add_card(self, deck_id: int, key: str, columns: CardColumns, now: datetime) -> int:
        """Add a card with a new card's schedule; returns its id.

        It takes the seed sent with it (``free_seed``), or a random one if none was.
        """
        stamp = to_micros(now)
        card_id = self._sql.run(
            "INSERT INTO card (deck_id, key, position, kind, content, added_at, updated_at, "
            "flag, edited, seed) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                deck_id,
                key,
                columns["position"],
                columns["kind"],
                columns["content"],
                stamp,
                stamp,
                columns["flag"],
                columns["edited"],
                self.free_seed(columns.get("seed"), key),
            ),
        )
        self._sql.run(
            "INSERT INTO card_memory (card_id, deck_id, state, suspended, buried_until, "
            "position) VALUES (?, ?, ?, ?, ?, ?)",
            (
                card_id,
                deck_id,
                int(CardState.NEW),
                columns["suspended"],
                columns["buried_until"],
                columns["position"],
            ),
        )
        return card_id

    def set_card(self, card_id: int, columns: CardColumns, now: datetime) -> None:
        """Store the columns given of a card."""
        card = [name for name in _CARD_TABLE if name in columns]
        if card:
            assignments = ", ".join(f"{name} = ?" for name in card)
            values = [columns[name] for name in card]
            if "content" in columns:
                assignments += ", updated_at = ?"
                values.append(to_micros(now))
            self._sql.run(f"UPDATE card SET {assignments} WHERE id = ?", (*values, card_id))
        memory = [name for name in _MEMORY_TABLE if name in columns]
        if memory:
            assignments = ", ".join(f"{name} = ?" for name in memory)
            self._sql.run(
                f"UPDATE card_memory SET {assignments} WHERE card_id = ?",
                (*(columns[name] for name in memory), card_id),
            )

    def free_seed(self, wanted: int | None, key: str, owner: int | None = None) -> int:
        """The seed a card (``owner``, or one being added) takes: ``wanted`` unless another
        card has it, then one worked out from it and the card's key (two different cards
        that drew the same random seed: about never), or a random one when none is wanted.
        """
        if wanted is None:
            seed = random_seed()
            while self._seed_owner(seed) is not None:
                seed = random_seed()
            return seed
        seed, attempt = wanted, 0
        while self._seed_owner(seed) not in (None, owner):
            digest = hashlib.sha256(f"{wanted}:{key}:{attempt}".encode()).digest()
            seed = int.from_bytes(digest[:8]) % (SEED_LIMIT - 1) + 1
            attempt += 1
        return seed

    def set_seed(self, card_id: int, seed: int) -> None:
        """Give a card another seed (its schedule then needs a replay)."""
        self._sql.run("UPDATE card SET seed = ? WHERE id = ?", (seed, card_id))

    def seed_owner(self, seed: int) -> int | None:
        """The card that has this seed, if one does."""
        return self._seed_owner(seed)

    def _seed_owner(self, seed: int) -> int | None:
        found = self._sql.value("SELECT id FROM card WHERE seed = ?", (seed,))
        return None if found is None else int(found)

    def delete_cards(self, card_ids: Sequence[int]) -> None:
        """Delete cards with their schedules and history."""
        pairs = [(card_id,) for card_id in card_ids]
        if pairs:
            self._sql.run_many("DELETE FROM review WHERE card_id = ?", pairs)
            self._sql.run_many("DELETE FROM card_memory WHERE card_id = ?", pairs)
            self._sql.run_many("DELETE FROM card WHERE id = ?", pairs)

    def rekey_card(self, card_id: int, deck_id: int, key: str) -> None:
        """Put a card under other keys (moved to another deck), schedule and history too."""
        self._sql.run(ORIGIN_KEPT, (card_id,))
        self._sql.run(
            "UPDATE card SET deck_id = ?, key = ?, content = json_set(content, '$.id', ?) "
            "WHERE id = ?",
            (deck_id, key, key, card_id),
        )
        self._sql.run("UPDATE card_memory SET deck_id = ? WHERE card_id = ?", (deck_id, card_id))

    def hand_over_reviews(self, from_id: int, to_id: int) -> None:
        """Give one card's reviews that the other lacks (by id) to the other: taken out and
        added again under it (reviews are never updated in place)."""
        rows = self._sql.rows(
            "SELECT id, reviewed_at, rating, duration_ms, state_before, picked, correct, kind, "
            "set_due, proposed_rating, uid, set_stability, set_difficulty FROM review "
            "WHERE card_id = ? "
            "AND uid NOT IN (SELECT uid FROM review WHERE card_id = ?) ORDER BY id",
            (from_id, to_id),
        )
        if rows:
            self._sql.run_many("DELETE FROM review WHERE id = ?", [(row[0],) for row in rows])
            self.add_reviews((to_id, *row[1:]) for row in rows)

    def card_ids_of_deck(self, deck_id: int) -> list[int]:
        """The ids of a deck's cards."""
        return [
            row[0] for row in self._sql.rows("SELECT id FROM card WHERE deck_id = ?", (deck_id,))
        ]

    # Reviews

    def reviews(self, uids: Sequence[str]) -> list[ReviewValues]:
        """The reviews with these ids that exist, as ``_REVIEW_SELECT`` reads them."""
        found: list[ReviewValues] = []
        for start in range(0, len(uids), 500):
            chunk = list(uids[start : start + 500])
            marks = ", ".join("?" * len(chunk))
            found += self._sql.rows(f"{_REVIEW_SELECT} WHERE review.uid IN ({marks})", chunk)
        return found

    def all_reviews(self) -> Iterator[ReviewValues]:
        """Every review, in the order they happened."""
        return self._sql.each(f"{_REVIEW_SELECT} ORDER BY {REVIEW_ORDER}")

    def existing_uids(self, uids: Sequence[str]) -> set[str]:
        """Which of these review ids are stored."""
        found: set[str] = set()
        for start in range(0, len(uids), 500):
            chunk = list(uids[start : start + 500])
            marks = ", ".join("?" * len(chunk))
            found.update(
                row[0]
                for row in self._sql.rows(f"SELECT uid FROM review WHERE uid IN ({marks})", chunk)
            )
        return found

    def review_uids_of(self, card_ids: Sequence[int]) -> list[str]:
        """The ids of these cards' reviews."""
        found: list[str] = []
        for start in range(0, len(card_ids), 500):
            chunk = list(card_ids[start : start + 500])
            marks = ", ".join("?" * len(chunk))
            found += [
                row[0]
                for row in self._sql.rows(
                    f"SELECT uid FROM review WHERE card_id IN ({marks})", chunk
                )
            ]
        return found

    def add_reviews(self, rows: Iterable[tuple[Any, ...]]) -> None:
        """Store reviews: (card id, time, rating, duration, state before, picked JSON, correct,
        kind, set due, proposed rating, uid, and a memory entry's stability and difficulty)."""
        self._sql.run_many(
            "INSERT INTO review (card_id, reviewed_at, rating, duration_ms, state_before, "
            "picked, correct, kind, set_due, proposed_rating, uid, set_stability, "
            "set_difficulty) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            ((*row[:3], answer_ms(row[3]), *row[4:]) for row in rows),
        )

    def delete_reviews(self, uids: Sequence[str]) -> set[int]:
        """Delete reviews by id; returns their cards."""
        cards: set[int] = set()
        for start in range(0, len(uids), 500):
            chunk = list(uids[start : start + 500])
            marks = ", ".join("?" * len(chunk))
            cards.update(
                row[0]
                for row in self._sql.rows(
                    f"SELECT card_id FROM review WHERE uid IN ({marks})", chunk
                )
            )
            self._sql.run(f"DELETE FROM review WHERE uid IN ({marks})", chunk)
        return cards

    # Presets

    def presets(self) -> dict[int, tuple[str, dict[str, Any]]]:
        """Every stored preset: id -> (name, stored options)."""
        found: dict[int, tuple[str, dict[str, Any]]] = {}
        for id_, name, config in self._sql.rows("SELECT id, name, config FROM preset"):
            stored = json.loads(config)
            found[int(id_)] = (name, stored if isinstance(stored, dict) else {})
        return found

    def put_preset(self, preset_id: int | None, name: str, config: dict[str, Any]) -> int:
        """Store a preset (a new one when ``preset_id`` is None), its name made free if
        another preset has it; returns its id."""
        taken = {
            row[0]
            for row in self._sql.rows("SELECT name FROM preset WHERE id IS NOT ?", (preset_id,))
        }
        free, count = name, 1
        while free in taken:
            count += 1
            free = f"{name} ({count})"
        text = json.dumps(config)
        if preset_id is None:
            return self._sql.run("INSERT INTO preset (name, config) VALUES (?, ?)", (free, text))
        self._sql.run(
            "INSERT INTO preset (id, name, config) VALUES (?, ?, ?) ON CONFLICT (id) DO UPDATE "
            "SET name = excluded.name, config = excluded.config",
            (preset_id, free, text),
        )
        return preset_id

    def delete_preset(self, preset_id: int) -> list[int]:
        """Remove a preset; its decks go back to the default one. Returns those decks."""
        decks = [
            int(row[0])
            for row in self._sql.rows(
                "SELECT deck_id FROM deck_preset WHERE preset_id = ?", (preset_id,)
            )
        ]
        self._sql.run("DELETE FROM deck_preset WHERE preset_id = ?", (preset_id,))
        self._sql.run("DELETE FROM preset WHERE id = ?", (preset_id,))
        return decks

    def card_ids_of_decks(self, deck_ids: Iterable[int]) -> list[int]:
        """The ids of the cards of these decks."""
        out: list[int] = []
        for deck_id in set(deck_ids):
            out += self.card_ids_of_deck(deck_id)
        return out


def review_event_values(row: ReviewValues) -> dict[str, Any]:
    """A review as ``SyncLocalQueries.reviews`` reads it, as the fields of its event."""
    uid, deck_key, card_key, at, kind, rating, duration, state, picked, correct, due = row[:11]
    proposed, stability, difficulty = row[11:]
    memory = {} if stability is None else {"stability": stability, "difficulty": difficulty}
    return {
        "id": uid,
        "deck": deck_key,
        "card": card_key,
        "at": at,
        "kind": kind,
        "rating": rating,
        "duration_ms": duration,
        "state_before": state,
        "picked": None if picked is None else json.loads(picked),
        "correct": bool(correct),
        "set_due": due,
        "proposed": proposed,
        **memory,
    }
