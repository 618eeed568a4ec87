"""The follow-ups' summary kept in the file (``storage.follow_up_summary``), as readers use it.

The queue, the deck list and the statistics read each card's follow-ups from the kept
summary, with the cards marked stale since worked out again from their histories first, in
the same transaction (``Kept``): a reading transaction uses them, a writing one stores them.
The follow-ups due before a time are found along the summary's index and only their cards'
follow-ups are worked out in full (``due_before``), so a start works out the few due today,
not every picked card's.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime

from recall.core.presets import DeckPresets
from recall.scheduling import Schedulers
from recall.scheduling.follow_ups import Standing
from recall.storage import Database, Transaction
from recall.storage.follow_up_summary import ACTIVE, FADED, WAITING, SummaryRow
from recall.storage.times import to_micros
from recall.study.follow_ups import CardFollowUp, card_follow_ups

_CHUNK = 500
_STANDINGS = {Standing.ACTIVE: ACTIVE, Standing.WAITING: WAITING, Standing.FADED: FADED}


def worked_out(
    transaction: Transaction, presets: DeckPresets, card_ids: Sequence[int]
) -> list[tuple[int, SummaryRow]]:
    """The summary rows of some cards worked out from their histories, each with its card's
    deck: every follow-up's standing, and the active one's due time with fuzz and without."""
    found: list[tuple[int, SummaryRow]] = []
    for start in range(0, len(card_ids), _CHUNK):
        chunk = sorted(card_ids)[start : start + _CHUNK]
        plain = {
            (item.card_id, item.option): item
            for item in card_follow_ups(transaction, Schedulers(fuzz=False), presets, None, chunk)
        }
        for item in card_follow_ups(transaction, Schedulers(fuzz=True), presets, None, chunk):
            active = item.follow_up.standing is Standing.ACTIVE
            unfuzzed = plain[item.card_id, item.option]
            found.append(
                (
                    item.deck_id,
                    SummaryRow(
                        card_id=item.card_id,
                        option=item.option,
                        standing=_STANDINGS[item.follow_up.standing],
                        persisting=item.follow_up.persisting,
                        due=to_micros(item.due) if active else None,
                        due_unfuzzed=to_micros(unfuzzed.due) if active else None,
                    ),
                )
            )
    return found


class Kept:
    """The kept summary as one transaction sees it, the stale cards worked out again.

    Args:
        transaction: Where it is read.
        presets: The deck presets the follow-ups are scheduled by.
        store: Store the stale cards' rows (a writing transaction); else they are used only
            by this reader.
    """

    def __init__(self, transaction: Transaction, presets: DeckPresets, store: bool) -> None:
        self._queries = transaction.follow_up_summary
        stale = self._queries.stale()
        self._fresh = worked_out(transaction, presets, stale) if stale else []
        if store and stale:
            self._queries.store(stale, (row for _deck, row in self._fresh))
            stale = []
        self._stale = set(stale)
        if not stale:
            self._fresh = []

    def rows(self, deck_ids: Sequence[int] | None = None) -> list[tuple[int, SummaryRow]]:
        """Every follow-up (of the cards of some decks, or all) with its card's deck."""
        kept = [item for item in self._queries.rows(deck_ids) if item[1].card_id not in self._stale]
        return kept + list(_in(self._fresh, deck_ids))

    def due_before(
        self, before: datetime, fuzz: bool, deck_ids: Sequence[int] | None = None
    ) -> list[int]:
        """The cards whose active follow-up is due before ``before`` (scheduled with fuzz or
        without), by id."""
        moment = to_micros(before)
        assert moment is not None
        kept = {
            card_id
            for _deck, card_id in self._queries.active_before(moment, fuzz, deck_ids)
            if card_id not in self._stale
        }
        for _deck, row in _in(self._fresh, deck_ids):
            due = row.due if fuzz else row.due_unfuzzed
            if row.standing == ACTIVE and due is not None and due < moment:
                kept.add(row.card_id)
        return sorted(kept)


def due_before(
    transaction: Transaction,
    schedulers: Schedulers,
    presets: DeckPresets,
    kept: Kept,
    before: datetime,
    deck_ids: Sequence[int] | None = None,
) -> list[CardFollowUp]:
    """The follow-ups of the cards whose active one is due before ``before``, worked out in
    full from their histories (every follow-up of those cards, as ``card_follow_ups``)."""
    card_ids = kept.due_before(before, schedulers.fuzz, deck_ids)
    found: list[CardFollowUp] = []
    for start in range(0, len(card_ids), _CHUNK):
        chunk = card_ids[start : start + _CHUNK]
        found += card_follow_ups(transaction, schedulers, presets, deck_ids, chunk)
    return found


def bring_up_to_date(database: Database) -> None:
    """Work out and store the summary of every card marked stale, in one short write
    transaction when there are any (after an upgrade, a sync or an import with history)."""
    with database.reading() as transaction:
        if not transaction.follow_up_summary.stale():
            return
    with database.transaction() as transaction:
        Kept(transaction, transaction.options.deck_presets(), store=True)


def standing_name(row: SummaryRow) -> str:
    """Where a follow-up is, as the misconceptions list names it."""
    if row.standing == FADED:
        return "faded"
    return "persisting" if row.persisting else "fading"


def _in(
    rows: Iterable[tuple[int, SummaryRow]], deck_ids: Sequence[int] | None
) -> Iterable[tuple[int, SummaryRow]]:
    wanted = None if deck_ids is None else set(deck_ids)
    return (item for item in rows if wanted is None or item[0] in wanted)
