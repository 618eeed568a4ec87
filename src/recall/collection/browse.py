"""Finding cards: a query run against the collection, and the rows a table or a script shows."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, tzinfo

from recall.content import search
from recall.content.deck_format import CARD_ADAPTER, Deck
from recall.content.plain_text import plain_text
from recall.core import days
from recall.core.errors import RecallError
from recall.core.i18n import tr
from recall.core.memory import CardState
from recall.core.preferences import Preferences
from recall.scheduling import Scheduler
from recall.storage import Database, search_sql
from recall.storage.browsing import BrowseRow

__all__ = ["BrowseRow", "Finder", "SearchResult", "plain_text"]

STATE_NAMES = {
    CardState.NEW: "new",
    CardState.LEARNING: "learning",
    CardState.REVIEW: "review",
    CardState.RELEARNING: "relearning",
}


@dataclass(frozen=True)
class SearchResult:
    """The cards a query matched, in the order asked for."""

    query: str
    card_ids: tuple[int, ...]
    sort: str
    descending: bool


class Finder:
    """Runs queries for one collection; the current time is passed to each call.

    Args:
        database: The collection.
        scheduler: Gives the forgetting curve that ``prop:retrievability`` uses.
        settings: The day rollover hour that ``rated:``, ``added:`` and ``is:due`` count by.
        zone: The learner's time zone; None is the system's.
    """

    def __init__(
        self,
        database: Database,
        scheduler: Scheduler,
        settings: Preferences,
        zone: tzinfo | None = None,
    ) -> None:
        self._database = database
        self._decay, self._factor = scheduler.forgetting_curve()
        self._settings = settings
        self._zone = zone
        self._day: tuple[datetime, datetime] | None = None

    def context(self, now: datetime) -> search_sql.SearchContext:
        """What the query's words mean at ``now``: today's study day and the forgetting curve."""
        day = self._day
        if day is None or not day[0] <= now < day[1]:
            # The study day's bounds take time zone arithmetic; a day holds many searches.
            day = days.study_day(now, self._settings.day_rollover_hour, self._zone)
            self._day = day
        return search_sql.SearchContext(now, day[0], day[1], self._decay, self._factor)

    def find(
        self, query: str, now: datetime, sort: str = "due", descending: bool = False
    ) -> SearchResult:
        """The ids of the cards ``query`` matches, sorted by one of ``SORT_COLUMNS``.

        Raises:
            SearchError: The query cannot be understood; the message says what and where.
        """
        context = self.context(now)
        condition = search_sql.compile_query(search.parse(query), context)
        order = search_sql.sort_sql(sort, descending, context)
        with self._database.reading() as transaction:
            ids = transaction.browsing.search(condition, order)
        return SearchResult(query, tuple(ids), sort, descending)

    def rows(self, card_ids: Sequence[int]) -> list[BrowseRow]:
        """The rows of these cards, in the order given."""
        with self._database.reading() as transaction:
            return transaction.browsing.rows(card_ids)

    def tags(self) -> list[str]:
        """Every tag in use."""
        with self._database.reading() as transaction:
            return transaction.browsing.tags()

    def retrievability(self, row: BrowseRow, now: datetime) -> float | None:
        """The chance the card is recalled now (None for a new card), as fsrs computes it."""
        memory = row.memory
        if memory.last_review is None or not memory.stability:
            return None
        elapsed = max(0, (now - memory.last_review).days)
        return float((1 + self._factor * elapsed / memory.stability) ** self._decay)


def selection_deck(
    database: Database, card_ids: Sequence[int], name: str, key: str = "selection"
) -> Deck:
    """The chosen cards as one deck model, for export (ids kept unique within it).

    Raises:
        RecallError: No card was chosen.
    """
    if not card_ids:
        raise RecallError(tr("select the cards to export first"))
    with database.reading() as transaction:
        rows = transaction.browsing.rows(card_ids)
    cards = []
    taken: set[str] = set()
    for row in rows:
        card = CARD_ADAPTER.validate_json(row.content)
        card_key, number = card.id, 2
        while card_key in taken:
            card_key, number = f"{card.id}-{number}", number + 1
        taken.add(card_key)
        cards.append(card.model_copy(update={"id": card_key}))
    return Deck(format="recall-deck", version=1, id=key, name=name, cards=cards)


def question(row: BrowseRow) -> str:
    """The card's question (or front) as plain text on one line."""
    content = json.loads(row.content)
    markup = "html" if content.get("markup") == "html" else "markdown"
    text = plain_text(str(content.get("question") or content.get("front") or ""), markup)
    if not text.strip() and content.get("occlusion"):
        return tr("(image occlusion)")  # an occlusion card without a header: its image asks
    return text


def to_json(row: BrowseRow) -> dict[str, object]:
    """A card as ``recall search --json`` prints it."""
    return {
        "id": row.id,
        "deck": row.deck_name,
        "key": row.key,
        "type": row.kind,
        "question": question(row),
        "state": STATE_NAMES[row.memory.state],
        "due": row.memory.due.isoformat() if row.memory.due else None,
        "tags": list(row.tags),
        "suspended": row.suspended,
        "buried_until": row.buried_until.isoformat() if row.buried_until else None,
        "flag": row.flag,
        "reviews": row.reps,
        "lapses": row.lapses,
    }
