"""The cards that may have follow-ups on misconceptions, with what their follow-ups are
worked out from: the card's text, state and history of picks.

A follow-up needs an option picked in two wrong answers, so only cards with such a count
in ``wrong_pick_count`` (kept by triggers, ``pick_counts``) are read; their histories are
read along the index of a card's reviews.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import NamedTuple

from recall.core.memory import CardState, ReviewKind
from recall.storage.rows import FOLLOW_UP_ENTRIES, REVIEW_ORDER
from recall.storage.sql import Sql

_CHUNK = 500
# The kinds of entry that answer a card: an answer, a cram answer, a follow-up answer.
_ANSWERS = (int(ReviewKind.ANSWER), int(ReviewKind.CRAM), int(ReviewKind.FOLLOW_UP))
# A history entry as follow-ups read it: time (microseconds), kind, rating, the picked
# options' texts and whether it was right.
PickRow = tuple[int, int, int, tuple[str, ...] | None, bool]


# The entries follow-ups are made from, of the cards whose ids fill ``marks``: one search
# of the partial index that holds them and covers what is read.
ENTRIES_OF = (
    "SELECT review.id, review.card_id, review.reviewed_at, review.kind, review.rating, "
    "review.picked, review.correct FROM review WHERE review.card_id IN ({marks}) "
    f"AND ({FOLLOW_UP_ENTRIES}) ORDER BY review.card_id, {REVIEW_ORDER}"
)


class PickedCard(NamedTuple):
    """A choice card with an option picked in two or more wrong answers.

    Attributes:
        content: The card's JSON, as stored.
        state: Its own schedule's state.
        studiable_from: When it may be studied (0 when now; None when suspended), in
            microseconds.
        history: The entries of its history that follow-ups are made from, in the order
            they happened: its follow-up answers, its wrong answers that picked options,
            and its last answer (of any kind that answers) with its picks left out when it
            is none of those (it says only that the latest answer picked no option). Its
            right answers and changes made by hand before that change no follow-up.
    """

    card_id: int
    deck_id: int
    key: str
    seed: int
    content: str
    state: CardState
    studiable_from: int | None
    history: list[PickRow]


class FollowUpQueries:
    """The cards follow-ups are worked out from, as one transaction sees them."""

    def __init__(self, sql: Sql) -> None:
        self._sql = sql

    def picked_cards(
        self, deck_ids: Sequence[int] | None = None, card_ids: Sequence[int] | None = None
    ) -> list[PickedCard]:
        """The choice cards (of some decks, or some cards, or all) with an option picked in
        two or more wrong answers, each with its history, by card id."""
        where = ["card.kind = 'choice'"]
        parameters: list[int] = []
        for column, ids in (("card.deck_id", deck_ids), ("card.id", card_ids)):
            if ids is not None:
                where.append(f"{column} IN ({', '.join('?' * len(ids)) or 'NULL'})")
                parameters += ids
        # A few cards (an answer's): each looked up in the counts by its id; else the
        # counts' cards listed once, from the index by times.
        picked = (
            "EXISTS (SELECT 1 FROM wrong_pick_count WHERE wrong_pick_count.card_id = card.id "
            "AND wrong_pick_count.times >= 2)"
            if card_ids is not None
            else "card.id IN (SELECT card_id FROM wrong_pick_count WHERE times >= 2)"
        )
        # Each card's last answer, found backwards along the index of its history.
        last_answer = (
            "(SELECT last.id FROM review AS last WHERE last.card_id = card.id "
            f"AND last.kind IN {_ANSWERS} ORDER BY last.reviewed_at DESC, last.uid DESC LIMIT 1)"
        )
        rows = self._sql.rows(
            "SELECT card.id, card.deck_id, card.key, card.seed, card.content, card_memory.state, "
            "CASE WHEN card_memory.suspended THEN NULL "
            f"ELSE coalesce(card_memory.buried_until, 0) END, {last_answer} "
            "FROM card JOIN card_memory ON card_memory.card_id = card.id "
            f"WHERE {picked} AND {' AND '.join(where)} ORDER BY card.id",
            tuple(parameters),
        )
        cards = [
            PickedCard(
                int(card_id),
                int(deck_id),
                str(key),
                int(seed),
                str(content),
                CardState(state),
                None if studiable is None else int(studiable),
                [],
            )
            for card_id, deck_id, key, seed, content, state, studiable, _last in rows
        ]
        by_id = {card.card_id: card for card in cards}
        ids = list(by_id)
        last_answers = {int(row[0]): row[7] for row in rows if row[7] is not None}
        read: dict[int, int] = {}  # each card's last entry read, by review id
        # Picks repeat (the same options picked again and again): each text decoded once.
        decoded: dict[str, tuple[str, ...]] = {}
        for start in range(0, len(ids), _CHUNK):
            chunk = ids[start : start + _CHUNK]
            for review_id, card_id, moment, kind, rating, picked, correct in self._sql.rows(
                ENTRIES_OF.format(marks=", ".join("?" * len(chunk))), tuple(chunk)
            ):
                by_id[card_id].history.append(
                    (
                        int(moment),
                        int(kind),
                        int(rating),
                        None if picked is None else _decoded(decoded, picked),
                        bool(correct),
                    )
                )
                read[card_id] = review_id
        # A card whose last answer was right (or picked nothing): that answer, last.
        unread = [last for card_id, last in last_answers.items() if read.get(card_id) != last]
        for start in range(0, len(unread), _CHUNK):
            chunk = unread[start : start + _CHUNK]
            for card_id, moment, kind, rating, correct in self._sql.rows(
                "SELECT card_id, reviewed_at, kind, rating, correct FROM review "
                f"WHERE id IN ({', '.join('?' * len(chunk))})",
                tuple(chunk),
            ):
                by_id[card_id].history.append(
                    (int(moment), int(kind), int(rating), None, bool(correct))
                )
        return cards

    def answers(self, deck_ids: Sequence[int] | None = None) -> tuple[int, int]:
        """Follow-up answers given to the cards of some decks (or all), and how many of
        them were wrong."""
        condition = ""
        if deck_ids is not None:
            condition = f" AND card.deck_id IN ({', '.join('?' * len(deck_ids)) or 'NULL'})"
        ((answers, wrong),) = self._sql.rows(
            "SELECT count(*), coalesce(sum(NOT review.correct), 0) "
            "FROM review CROSS JOIN card ON card.id = review.card_id "
            f"WHERE review.kind = {int(ReviewKind.FOLLOW_UP)}{condition}",
            tuple(deck_ids or ()),
        )
        return int(answers), int(wrong)


def _decoded(decoded: dict[str, tuple[str, ...]], picked: str) -> tuple[str, ...]:
    found = decoded.get(picked)
    if found is None:
        found = decoded[picked] = tuple(json.loads(picked))
    return found
