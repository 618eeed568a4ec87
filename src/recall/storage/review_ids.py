"""Each review's id on every device: a hash of its card's keys, its time, kind and rating.

Made from what the review is, so the same history imported on two devices gets the same
ids and sync's union by id keeps one copy. Two entries alike in all of these (a rare
duplicate in an imported file) are told apart by a count appended to what is hashed.
"""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Iterable, Sequence

from recall.storage.sql import Sql, StatementError


def review_uid(
    deck_key: str, card_key: str, micros: int, kind: int, rating: int, repeat: int = 0
) -> str:
    """The id of a review of the card (``deck_key``, ``card_key``) at ``micros``."""
    text = f"{deck_key}\n{card_key}\n{micros}\n{kind}\n{rating}"
    if repeat:
        text += f"\n{repeat}"
    return hashlib.blake2b(text.encode(), digest_size=16).hexdigest()


def card_keys(sql: Sql, card_ids: Iterable[int]) -> dict[int, tuple[str, str]]:
    """(deck key, card key) of each of these cards; a card that does not exist gets keys no
    card has, so its insert goes on to fail on the foreign key as it always did."""
    wanted = sorted(set(card_ids))
    found: dict[int, tuple[str, str]] = {}
    for start in range(0, len(wanted), 500):
        chunk = wanted[start : start + 500]
        marks = ", ".join("?" * len(chunk))
        for card_id, deck_key, card_key in sql.rows(
            "SELECT card.id, deck.key, card.key FROM card JOIN deck ON deck.id = card.deck_id "
            f"WHERE card.id IN ({marks})",
            chunk,
        ):
            found[int(card_id)] = (deck_key, card_key)
    for card_id in wanted:
        found.setdefault(card_id, ("", f"#{card_id}"))
    return found


def free_uid(sql: Sql, keys: tuple[str, str], micros: int, kind: int, rating: int) -> str:
    """The review id for a new entry, counted past any stored entry that has it already."""
    repeat = 0
    while True:
        uid = review_uid(*keys, micros, kind, rating, repeat)
        if sql.value("SELECT 1 FROM review WHERE uid = ?", (uid,)) is None:
            return uid
        repeat += 1


def taken_uid(error: StatementError) -> bool:
    """Whether a review's insert failed only because another entry has its id."""
    cause = error.error
    return isinstance(cause, sqlite3.IntegrityError) and "failed: review.uid" in str(cause)


def batch_uids(sql: Sql, entries: Sequence[tuple[int, int, int, int]]) -> list[str]:
    """Ids for new entries (card id, micros, kind, rating), distinct among themselves and
    from every stored review."""
    keys = card_keys(sql, (entry[0] for entry in entries))
    taken: set[str] = set()
    uids: list[str] = []
    for card_id, micros, kind, rating in entries:
        repeat = 0
        while True:
            uid = review_uid(*keys[card_id], micros, kind, rating, repeat)
            if uid not in taken:
                break
            repeat += 1
        taken.add(uid)
        uids.append(uid)
    stored = _stored(sql, uids)
    if not stored:
        return uids
    for index, uid in enumerate(uids):
        if uid in stored:
            card_id, micros, kind, rating = entries[index]
            repeat = 1
            while True:
                fresh = review_uid(*keys[card_id], micros, kind, rating, repeat)
                if fresh not in taken and fresh not in _stored(sql, [fresh]):
                    break
                repeat += 1
            taken.add(fresh)
            uids[index] = fresh
    return uids


def _stored(sql: Sql, uids: Sequence[str]) -> set[str]:
    found: set[str] = set()
    for start in range(0, len(uids), 500):
        chunk = list(uids[start : start + 500])
        marks = ", ".join("?" * len(chunk))
        found.update(
            row[0] for row in sql.rows(f"SELECT uid FROM review WHERE uid IN ({marks})", chunk)
        )
    return found
