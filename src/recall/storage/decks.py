"""Deck queries: find, add and rename decks, and the counts the deck list shows."""

from __future__ import annotations

from datetime import date, datetime

from recall.core.memory import CardState
from recall.storage.records import DeckCounts, DeckRow
from recall.storage.rows import DECK_COLUMNS, REVIEWED_STATES, deck_row
from recall.storage.sql import Sql
from recall.storage.times import to_micros


class DeckQueries:
    """The decks of one transaction."""

    def __init__(self, sql: Sql) -> None:
        self._sql = sql

    def by_key(self, key: str) -> DeckRow | None:
        """The deck whose file id is ``key``, if there is one."""
        rows = self._sql.rows(f"SELECT {DECK_COLUMNS} FROM deck WHERE key = ?", (key,))
        return deck_row(rows[0]) if rows else None

    def get(self, deck_id: int) -> DeckRow:
        """The deck with database id ``deck_id``.

        Raises:
            LookupError: There is no such deck.
        """
        rows = self._sql.rows(f"SELECT {DECK_COLUMNS} FROM deck WHERE id = ?", (deck_id,))
        if not rows:
            raise LookupError(f"no deck {deck_id}")
        return deck_row(rows[0])

    def add(self, key: str, name: str, description: str, now: datetime) -> DeckRow:
        """Add a deck and return it."""
        stamp = to_micros(now)
        deck_id = self._sql.run(
            "INSERT INTO deck (key, name, description, added_at, updated_at) "
            "VALUES (?, ?, ?, ?, ?)",
            (key, name, description, stamp, stamp),
        )
        return DeckRow(id=deck_id, key=key, name=name, description=description)

    def rename(self, deck_id: int, name: str, description: str, now: datetime) -> None:
        """Change a deck's name and description."""
        self._sql.run(
            "UPDATE deck SET name = ?, description = ?, updated_at = ? WHERE id = ?",
            (name, description, to_micros(now), deck_id),
        )

    def exam_dates(self) -> dict[int, date]:
        """Each deck's exam day, by deck id, for the decks that have one.

        A stored value that is not a date (written by hand, or by a newer Recall in
        another form) counts as none.
        """
        found: dict[int, date] = {}
        for deck_id, text in self._sql.rows(
            "SELECT id, exam_on FROM deck WHERE exam_on IS NOT NULL"
        ):
            try:
                found[int(deck_id)] = date.fromisoformat(str(text))
            except ValueError:
                continue
        return found

    def set_exam_date(self, deck_id: int, day: date | None, now: datetime) -> None:
        """Set (or with None clear) the day the learner sits an exam on a deck."""
        self._sql.run(
            "UPDATE deck SET exam_on = ?, updated_at = ? WHERE id = ?",
            (None if day is None else day.isoformat(), to_micros(now), deck_id),
        )

    def names(self) -> list[str]:
        """Every deck's name (the deck list reads them at start, without the browser's
        queries)."""
        return [str(row[0]) for row in self._sql.rows("SELECT name FROM deck")]

    def keys(self) -> dict[int, str]:
        """Every deck's file id, by database id."""
        return {int(id_): key for id_, key in self._sql.rows("SELECT id, key FROM deck")}

    def counts(
        self,
        due_before: datetime,
        day_start: datetime,
        deck_id: int | None = None,
        now: datetime | None = None,
    ) -> list[DeckCounts]:
        """Every deck (or the one given) with its card counts, by name.

        Args:
            due_before: The end of the study day: reviewed cards due before it count as due.
            day_start: The start of the study day, for counting new cards introduced today.
            deck_id: Count only this deck.
            now: Suspended cards, and cards buried past this time, are not counted as new
                or due (when given; the day's start otherwise).
        """
        studiable = "NOT suspended AND coalesce(buried_until, 0) <= ?"
        moment = to_micros(now or day_start)
        only, parameters = ("", ()) if deck_id is None else ("WHERE deck.id = ?", (deck_id,))
        decks = self._sql.rows(
            f"SELECT {DECK_COLUMNS} FROM deck {only} ORDER BY name, id", parameters
        )
        totals = self._per_deck("SELECT deck_id, count(*) FROM card GROUP BY deck_id")
        unseen = self._per_deck(
            f"SELECT deck_id, count(*) FROM card_memory WHERE state = ? AND {studiable} "
            "GROUP BY deck_id",
            (int(CardState.NEW), moment),
        )
        due = self._per_deck(
            f"SELECT deck_id, count(*) FROM card_memory WHERE state IN {REVIEWED_STATES} "
            f"AND due < ? AND {studiable} GROUP BY deck_id",
            (to_micros(due_before), moment),
        )
        review_due = self._per_deck(
            "SELECT deck_id, count(*) FROM card_memory WHERE state = ? AND due < ? "
            f"AND {studiable} GROUP BY deck_id",
            (int(CardState.REVIEW), to_micros(due_before), moment),
        )
        answered = {
            (int(deck), int(state)): int(count)
            for deck, state, count in self._sql.rows(
                "SELECT card.deck_id, review.state_before, count(*) FROM review CROSS JOIN card "
                "ON card.id = review.card_id WHERE review.reviewed_at >= ? "
                "AND review.state_before IN (?, ?) AND review.kind = 0 "
                "GROUP BY card.deck_id, review.state_before",
                (to_micros(day_start), int(CardState.NEW), int(CardState.REVIEW)),
            )
        }
        return [
            DeckCounts(
                deck=deck_row(row),
                total=totals.get(row[0], 0),
                unseen=unseen.get(row[0], 0),
                due=due.get(row[0], 0),
                introduced_today=answered.get((row[0], int(CardState.NEW)), 0),
                review_due=review_due.get(row[0], 0),
                reviewed_today=answered.get((row[0], int(CardState.REVIEW)), 0),
            )
            for row in decks
        ]

    def _per_deck(self, sql: str, parameters: tuple[object, ...] = ()) -> dict[int, int]:
        return {int(deck): int(count) for deck, count in self._sql.rows(sql, parameters)}
