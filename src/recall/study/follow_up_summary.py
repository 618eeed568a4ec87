"""The follow-ups' summary kept in the file (``storage.follow_up_summary``), as readers use it.

The queue, the deck list and the statistics read each card's follow-ups from the kept
summary, with the cards marked stale since worked out again from their histories first, in
the same transaction (``Kept``): a reading transaction uses them, a writing one stores them.
The follow-ups due before a time are read along the summary's index with their cards
(``due_before``): a start works out no card's follow-ups but the stale ones'.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Any

from recall.core.memory import CardState, MemoryState
from recall.core.presets import DeckPresets
from recall.scheduling import Schedulers
from recall.scheduling.follow_ups import FollowUp, Standing
from recall.storage import Database, Transaction
from recall.storage.follow_up_summary import ACTIVE, FADED, WAITING, DueRow, SummaryRow
from recall.storage.sql import Row
from recall.storage.times import from_micros, to_micros
from recall.study.askable import AskableFollowUps, place_of
from recall.study.follow_ups import CardFollowUp, askable_before, card_follow_ups

_CHUNK = 500
_STANDINGS = {Standing.ACTIVE: ACTIVE, Standing.WAITING: WAITING, Standing.FADED: FADED}
_NAMES = {number: standing for standing, number in _STANDINGS.items()}
_CARD_STATES = {int(state): state for state in CardState}  # a dict look-up, not an enum call


def worked_out(
    transaction: Transaction, presets: DeckPresets, card_ids: Sequence[int]
) -> list[tuple[int, SummaryRow]]:
    """The summary rows of some cards worked out from their histories, each with its card's
    deck: every follow-up as ``card_follow_ups`` gives it, due with fuzz and without."""
    return [(deck_id, row) for deck_id, row, _items in _worked_out(transaction, presets, card_ids)]


def _worked_out(
    transaction: Transaction, presets: DeckPresets, card_ids: Sequence[int]
) -> list[tuple[int, SummaryRow, tuple[CardFollowUp, CardFollowUp]]]:
    """As ``worked_out``, each row with the follow-up worked out with fuzz and without."""
    found: list[tuple[int, SummaryRow, tuple[CardFollowUp, CardFollowUp]]] = []
    ordered = sorted(card_ids)
    for start in range(0, len(ordered), _CHUNK):
        chunk = ordered[start : start + _CHUNK]
        plain = {
            (item.card_id, item.option): item
            for item in card_follow_ups(transaction, Schedulers(fuzz=False), presets, None, chunk)
        }
        for item in card_follow_ups(transaction, Schedulers(fuzz=True), presets, None, chunk):
            unfuzzed = plain[item.card_id, item.option]
            follow_up, memory = item.follow_up, item.follow_up.memory
            last_pick = to_micros(follow_up.last_pick)
            assert last_pick is not None
            row = SummaryRow(
                card_id=item.card_id,
                option=item.option,
                standing=_STANDINGS[follow_up.standing],
                picks=follow_up.picks,
                last_pick=last_pick,
                answers=follow_up.answers,
                picked_lately=follow_up.picked_lately,
                why=item.why,
                state=int(memory.state),
                step=memory.step,
                stability=memory.stability,
                difficulty=memory.difficulty,
                due=to_micros(memory.due),
                due_unfuzzed=to_micros(unfuzzed.due),
                last_review=to_micros(memory.last_review),
            )
            found.append((item.deck_id, row, (item, unfuzzed)))
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
        fresh = _worked_out(transaction, presets, stale) if stale else []
        if store and stale:
            self._queries.store(stale, (row for _deck, row, _items in fresh))
            stale, fresh = [], []
        self._stale = set(stale)
        self._fresh = fresh

    def rows(self, deck_ids: Sequence[int] | None = None) -> list[tuple[int, SummaryRow]]:
        """Every follow-up (of the cards of some decks, or all) with its card's deck."""
        wanted = None if deck_ids is None else set(deck_ids)
        kept = [item for item in self._queries.rows(deck_ids) if item[1].card_id not in self._stale]
        return kept + [
            (deck_id, row)
            for deck_id, row, _items in self._fresh
            if wanted is None or deck_id in wanted
        ]

    def standing_counts(self, deck_ids: Sequence[int] | None = None) -> Counter[str]:
        """How many follow-ups (of the cards of some decks, or all) stand where, by
        ``standing_name``: the kept rows counted in SQL, the stale cards' worked out again."""
        wanted = None if deck_ids is None else set(deck_ids)
        faded, persisting, fading = self._queries.standing_counts(deck_ids)
        counted = Counter({"faded": faded, "persisting": persisting, "fading": fading})
        counted.update(
            standing_name(row)
            for deck_id, row, _items in self._fresh
            if wanted is None or deck_id in wanted
        )
        return counted

    def standings(self, card_ids: Sequence[int]) -> dict[tuple[int, str], str]:
        """Where each follow-up of some cards (a few) stands, by card and option."""
        wanted = set(card_ids)
        rows = self._queries.of_cards(sorted(wanted - self._stale))
        rows += [row for _deck, row, _items in self._fresh if row.card_id in wanted]
        return {(row.card_id, row.option): standing_name(row) for row in rows}

    def decks_with(self) -> set[int]:
        """The decks with a card that has a follow-up (of any standing)."""
        return self._queries.decks_with() | {deck_id for deck_id, _row, _items in self._fresh}

    def active_cards(self, deck_ids: Sequence[int] | None = None) -> set[int]:
        """The cards (of some decks, or all) that have an active follow-up, due or not."""
        kept = self._queries.active_cards(deck_ids) - self._stale
        wanted = None if deck_ids is None else set(deck_ids)
        return kept | {
            row.card_id
            for deck_id, row, _items in self._fresh
            if row.standing == ACTIVE and (wanted is None or deck_id in wanted)
        }

    def due_before(
        self, before: datetime, fuzz: bool, deck_ids: Sequence[int] | None = None
    ) -> list[CardFollowUp]:
        """The active follow-ups due before ``before`` (scheduled with fuzz or without),
        each with its card, by card id: read from the table, none worked out again but
        the stale cards'."""
        moment = to_micros(before)
        assert moment is not None
        found = [
            _card_follow_up(row, fuzz)
            for row in self._queries.active_before(moment, fuzz, deck_ids)
            if row.follow_up.card_id not in self._stale
        ]
        found += self._fresh_due(moment, fuzz, deck_ids)
        found.sort(key=lambda item: item.card_id)
        return found

    def askable(
        self, before: datetime, fuzz: bool, now: datetime, deck_ids: Sequence[int] | None = None
    ) -> AskableFollowUps:
        """What ``askable_before`` keeps of ``due_before``'s follow-ups, found in SQL: each
        one made only when the queue looks at it."""
        moment, at = to_micros(before), to_micros(now)
        assert moment is not None
        assert at is not None
        rows = self._queries.askable_before(moment, fuzz, at, deck_ids)
        due = 12 if fuzz else 13  # the row's column of the due time, as ``_COLUMNS`` has it
        places = [(int(row[due]), int(row[0])) for row in rows]
        entries: list[Any] = list(rows)
        fresh = askable_before(self._fresh_due(moment, fuzz, deck_ids), before, now)
        if fresh:
            places += [place_of(item) for item in fresh]
            entries += fresh
            order = sorted(range(len(places)), key=places.__getitem__)
            places = [places[index] for index in order]
            entries = [entries[index] for index in order]
        return AskableFollowUps(places, entries, lambda row: _card_follow_up(_due_row(row), fuzz))

    def askable_counts(
        self, before: datetime, fuzz: bool, now: datetime, deck_ids: Sequence[int] | None = None
    ) -> Counter[int]:
        """How many follow-ups ``askable`` finds, per deck, none of them made."""
        moment, at = to_micros(before), to_micros(now)
        assert moment is not None
        assert at is not None
        counted = Counter(self._queries.askable_counts(moment, fuzz, at, deck_ids))
        fresh = askable_before(self._fresh_due(moment, fuzz, deck_ids), before, now)
        counted.update(item.deck_id for item in fresh)
        return counted

    def _fresh_due(
        self, moment: int, fuzz: bool, deck_ids: Sequence[int] | None
    ) -> list[CardFollowUp]:
        """The stale cards' active follow-ups due before ``moment``, as worked out again."""
        wanted = None if deck_ids is None else set(deck_ids)
        found = []
        for deck_id, row, items in self._fresh:
            due = row.due if fuzz else row.due_unfuzzed
            if wanted is not None and deck_id not in wanted:
                continue
            if row.standing == ACTIVE and due is not None and due < moment:
                found.append(items[0] if fuzz else items[1])
        return found


def due_before(
    schedulers: Schedulers, kept: Kept, before: datetime, deck_ids: Sequence[int] | None = None
) -> list[CardFollowUp]:
    """The active follow-ups due before ``before`` as ``schedulers`` schedule them (with
    fuzz or without), with their cards, by card id."""
    return kept.due_before(before, schedulers.fuzz, deck_ids)


def _due_row(row: Row) -> DueRow:
    return DueRow(SummaryRow(*row[:15]), *row[15:])


def _card_follow_up(due: DueRow, fuzz: bool) -> CardFollowUp:
    row = due.follow_up
    memory = MemoryState(
        state=_CARD_STATES[row.state],
        step=row.step,
        stability=row.stability,
        difficulty=row.difficulty,
        due=from_micros(row.due if fuzz else row.due_unfuzzed),
        last_review=from_micros(row.last_review),
    )
    last_pick = from_micros(row.last_pick)
    assert last_pick is not None
    return CardFollowUp(
        card_id=row.card_id,
        deck_id=due.deck_id,
        key=due.key,
        seed=due.seed,
        why=row.why,
        state=_CARD_STATES[due.card_state],
        studiable_from=due.studiable_from,
        follow_up=FollowUp(
            option=row.option,
            picks=row.picks,
            last_pick=last_pick,
            standing=_NAMES[row.standing],
            memory=memory,
            answers=row.answers,
            picked_lately=bool(row.picked_lately),
        ),
    )


def bring_up_to_date(database: Database) -> None:
    """Work out and store the summary of every card marked stale, in one short write
    transaction when there are any (after an upgrade, a sync or an import with history)."""
    with database.reading() as transaction:
        if not transaction.follow_up_summary.stale():
            return
    with database.transaction() as transaction:
        Kept(transaction, transaction.options.deck_presets(), store=True)


def standing_name(row: SummaryRow) -> str:
    """Where a follow-up is, as the misconceptions list names it (as ``standing_counts``
    counts them)."""
    if row.standing == FADED:
        return "faded"
    return "persisting" if row.picked_lately else "fading"


def _in(
    rows: Iterable[tuple[int, SummaryRow]], deck_ids: Sequence[int] | None
) -> Iterable[tuple[int, SummaryRow]]:
    wanted = None if deck_ids is None else set(deck_ids)
    return (item for item in rows if wanted is None or item[0] in wanted)
