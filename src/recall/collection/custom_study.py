"""Builds the queue of a custom study session from the search language (see study/custom.py)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from recall.collection.browse import BrowseRow, Finder
from recall.content.search import card_ids_term
from recall.core.errors import RecallError
from recall.core.i18n import tr
from recall.core.memory import CardState
from recall.scheduling import Schedulers
from recall.storage import Database
from recall.study.custom import CustomQueue, SessionKind

_LONGEST = 3650  # days ahead a preview may reach; more is a typo
_MOST_CARDS = 9999
_IDS_PER_SEARCH = 400  # at most 19 characters an id: well within search.MAX_LENGTH


class CustomStudyError(RecallError):
    """A custom session asked for in a way that cannot be done."""


@dataclass(frozen=True)
class SessionRequest:
    """What a custom session is to hold.

    Attributes:
        kind: The kind of session.
        search: Narrows the cards (docs/search.md); for cram, the search that picks them.
        days: For preview, how many days ahead.
        tag: For new, the tag.
        deck: For extra, the deck's name or id.
        limit: The most cards (for extra: new cards and reviews each).
        minutes: For timed, how long the session lasts.
        card_ids: For cram and search, cards chosen by hand (the browser's selection), found
            with a ``cid:`` search (narrowed by ``search``) and kept in the order given.
    """

    kind: SessionKind
    search: str = ""
    days: int = 1
    tag: str = ""
    deck: str = ""
    limit: int = 100
    minutes: int = 20
    card_ids: tuple[int, ...] = ()


class CustomStudy:
    """Builds custom sessions for one collection.

    Args:
        database: The collection.
        schedulers: Each card's preset's forgetting curve (for timed sessions).
        finder: Runs the searches.
    """

    def __init__(self, database: Database, schedulers: Schedulers, finder: Finder) -> None:
        self._database = database
        self._schedulers = schedulers
        self._finder = finder

    def build(self, request: SessionRequest, now: datetime) -> CustomQueue:
        """The queue of a session, its cards chosen at ``now``.

        Raises:
            CustomStudyError: A number is out of range, or a tag or deck is missing.
            SearchError: The search cannot be understood.
        """
        if not 1 <= request.limit <= _MOST_CARDS:
            raise CustomStudyError(
                tr("cannot study {count} cards: give 1 to {most}").format(
                    count=request.limit, most=_MOST_CARDS
                )
            )
        rows = self._rows(request, now)
        title = self._title(request)
        return CustomQueue(
            kind=request.kind,
            title=title,
            card_ids=frozenset(row.id for row in rows),
            states={row.id: row.memory.state for row in rows},
            pending=[row.id for row in rows],
            minutes=request.minutes if request.kind is SessionKind.TIMED else None,
        )

    def rows(self, queue: CustomQueue) -> list[BrowseRow]:
        """The queue's cards left, in order, as stored now (what ``--list`` prints)."""
        return self._finder.rows(queue.pending)

    def _rows(self, request: SessionRequest, now: datetime) -> list[BrowseRow]:
        kind, search, limit = request.kind, request.search, request.limit
        if kind in (SessionKind.CRAM, SessionKind.SEARCH):
            if request.card_ids:
                return self._chosen(request.card_ids, search, now)[:limit]
            if not search.strip():
                if kind is SessionKind.CRAM:
                    raise CustomStudyError(tr("cram needs a search, e.g. 'deck:French tag:verbs'"))
                raise CustomStudyError(
                    tr("studying a search needs a search, e.g. 'deck:French tag:verbs'")
                )
            return self._found(search, now)[:limit]
        if kind is SessionKind.PREVIEW:
            if not 1 <= request.days <= _LONGEST:
                raise CustomStudyError(
                    tr("cannot preview {days} days ahead: give 1 to {most} days").format(
                        days=request.days, most=_LONGEST
                    )
                )
            found = self._found(_scoped(search, f"prop:due>0 prop:due<={request.days}"), now)
            return [row for row in found if row.memory.state is CardState.REVIEW][:limit]
        if kind is SessionKind.FORGOTTEN:
            return self._found(_scoped(search, "rated:1:1"), now)[:limit]
        if kind is SessionKind.NEW:
            tag = request.tag.strip()
            if not tag:
                raise CustomStudyError(tr("new cards from a tag need a tag, e.g. 'verbs'"))
            return self._found(_scoped(search, f"is:new tag:{_quoted(tag)}"), now, "added")[:limit]
        if kind is SessionKind.EXTRA:
            deck = request.deck.strip()
            if not deck:
                raise CustomStudyError(
                    tr("studying a deck beyond its limits needs the deck's name")
                )
            scope = _scoped(search, f"deck:{_quoted(deck)}")
            due = self._found(_scoped(scope, "is:due"), now)[:limit]
            new = self._found(_scoped(scope, "is:new"), now, "added")[:limit]
            return due + new
        return self._timed(request, now)

    def _timed(self, request: SessionRequest, now: datetime) -> list[BrowseRow]:
        if not 1 <= request.minutes <= 24 * 60:
            raise CustomStudyError(
                tr("cannot study for {minutes} minutes: give 1 to {most} minutes").format(
                    minutes=request.minutes, most=24 * 60
                )
            )
        with self._database.reading() as transaction:
            presets = transaction.options.deck_presets()
        scored = []
        for row in self._found(_scoped(request.search, "is:review"), now):
            memory = row.memory
            if memory.state is not CardState.REVIEW or memory.due is None:
                continue
            scheduler = self._schedulers.for_deck(presets, row.deck_id)
            recall = scheduler.retrievability(row.id, memory, now)
            days_left = max((memory.due - now) / timedelta(days=1), 0.0)
            # What a review now gains: the recall already lost, counted in full for a card
            # due now and less the further off its due date is (it will be reviewed anyway).
            scored.append(((1.0 - recall) / (1.0 + days_left), row.id, row))
        scored.sort(key=lambda item: (-item[0], item[1]))
        return [row for _, _, row in scored][: request.limit]

    def _chosen(self, card_ids: Sequence[int], search: str, now: datetime) -> list[BrowseRow]:
        """The chosen cards a search of their ids finds, in the order chosen."""
        found: dict[int, BrowseRow] = {}
        # In parts, so that each search stays within the length a query may have.
        for start in range(0, len(card_ids), _IDS_PER_SEARCH):
            term = card_ids_term(card_ids[start : start + _IDS_PER_SEARCH])
            found.update((row.id, row) for row in self._found(_scoped(search, term), now))
        return [found[card_id] for card_id in dict.fromkeys(card_ids) if card_id in found]

    def _found(self, search: str, now: datetime, sort: str = "due") -> list[BrowseRow]:
        ids = self._finder.find(search, now, sort).card_ids
        return _studiable(self._finder.rows(ids), now)

    def _title(self, request: SessionRequest) -> str:
        kind = request.kind
        search = request.search.strip()
        if kind in (SessionKind.CRAM, SessionKind.SEARCH):
            cram = kind is SessionKind.CRAM
            if request.card_ids and search:
                title = (
                    tr("Cram: selected cards, {search}")
                    if cram
                    else tr("Study: selected cards, {search}")
                )
            elif request.card_ids:
                title = tr("Cram: selected cards") if cram else tr("Study: selected cards")
            else:
                title = tr("Cram: {search}") if cram else tr("Study: {search}")
            return title.format(search=search)
        if kind is SessionKind.PREVIEW:
            return tr("Preview: due within {days} days").format(days=request.days)
        if kind is SessionKind.FORGOTTEN:
            return tr("Forgotten today")
        if kind is SessionKind.NEW:
            return tr("New cards tagged {tag}").format(tag=request.tag.strip())
        if kind is SessionKind.EXTRA:
            return tr("{deck}: beyond today's limits").format(deck=request.deck.strip())
        return tr("{minutes} minutes: most to gain first").format(minutes=request.minutes)


def _studiable(rows: Sequence[BrowseRow], now: datetime) -> list[BrowseRow]:
    """The rows that may be studied: not suspended, not buried."""
    return [
        row
        for row in rows
        if not row.suspended and (row.buried_until is None or row.buried_until <= now)
    ]


def _scoped(search: str, condition: str) -> str:
    search = search.strip()
    return f"({search}) {condition}" if search else condition


def _quoted(text: str) -> str:
    escaped = text.replace("\\", "\\\\").replace('"', '\\"')
    return f'"{escaped}"'
