"""An import's history written: reviews and changes by hand not stored yet, each card replayed.

A review counts as stored when the card already has one at the same moment, to Anki's
millisecond (and within a few of them), so the same history imported twice, or Recall's own
history back from Anki, is written once.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from operator import attrgetter

from recall.collection._imported_schedule import as_past, imported_entries
from recall.content.deck_format import Deck
from recall.core.errors import ImportCancelledError
from recall.core.memory import CardState, MemoryState, ReviewKind
from recall.core.progress import Cancelled, never_cancelled
from recall.importers import ImportedChange, ImportedReview
from recall.scheduling import PastReview, Scheduler, Schedulers
from recall.storage import NewReview, Transaction
from recall.storage.browsing import NewEntry

CANCEL_CHECK_CARDS = 200  # replaying a card's history is slow enough to check this often
SAME_MOMENT_MS = 8  # a review this little after a stored one of the card is that review


_moment = attrgetter("reviewed_at")


def _milliseconds(moment: datetime) -> int:
    """A moment to Anki's precision: its review log counts milliseconds."""
    return int(moment.timestamp() * 1000)


def write_history(
    transaction: Transaction,
    schedulers: Schedulers,
    deck: Deck,
    reviews: dict[tuple[str, str], list[ImportedReview]],
    cancelled: Cancelled = never_cancelled,
    replayed: Callable[[int], object] = lambda _count: None,
    changes: dict[tuple[str, str], list[ImportedChange]] | None = None,
) -> int:
    """Append a deck's imported reviews (and changes by hand) not stored yet; replay each card.

    Every ``CANCEL_CHECK_CARDS`` cards ``cancelled`` is asked and ``replayed`` told how
    many cards are done.

    A review counts as stored when the card already has one at the same moment (to the
    millisecond, Anki's precision, and within a few of them: an export to Anki moves a
    review sharing its millisecond with another card's), so importing the same history
    twice, or Recall's own reviews back from Anki, adds each once. Each card is replayed
    over its whole history in time order, so a review older than one already stored lands
    where it belongs and the schedule is the one a fresh import of the same history gives.
    """
    incoming = imported_entries(deck.id, reviews, changes or {})
    if not incoming:
        return 0
    deck_row = transaction.decks.by_key(deck.id)
    assert deck_row is not None
    presets = transaction.options.deck_presets()
    scheduler = schedulers.for_deck(presets, deck_row.id)
    keys = transaction.cards.keys(deck_row.id)
    stored = {card.id: history for card, history in transaction.history.per_card(deck_row.id)}
    # The file's cards the learner moved to another deck (or key): their history goes to
    # them there, replayed with that deck's preset.
    away = {
        key: moved
        for key, moved in transaction.cards.moved_away(deck.id).items()
        if key in incoming and key not in keys
    }
    for moved in away.values():
        stored[moved.stored.id] = transaction.history.of_card(moved.stored.id)
    rows: list[NewReview] = []
    entries: list[NewEntry] = []
    memories: dict[int, MemoryState] = {}
    for count, (card_key, history) in enumerate(incoming.items(), 1):
        if count % CANCEL_CHECK_CARDS == 0:
            if cancelled():
                raise ImportCancelledError
            replayed(count)
        there = away.get(card_key)
        found = keys[card_key] if there is None else there.stored
        card_id, seed = found.id, found.seed
        replaying = scheduler if there is None else schedulers.for_deck(presets, there.deck_id)
        past = [
            PastReview(
                review.reviewed_at,
                review.rating,
                review.kind,
                review.set_due,
                review.stability,
                review.difficulty,
            )
            for review in stored.get(card_id, [])
        ]
        seen = {_milliseconds(review.reviewed_at) for review in past}
        new = sorted(
            (
                review
                for review in history
                if not seen  # a card without stored history: every entry is new
                or not seen.intersection(
                    range(
                        _milliseconds(review.reviewed_at) - SAME_MOMENT_MS,
                        _milliseconds(review.reviewed_at) + 1,
                    )
                )
            ),
            key=_moment,
        )
        if not new:
            continue
        new, states, memory = replayed_entries(replaying, seed, past, new)
        if not new:
            continue
        for review in new:
            if isinstance(review, ImportedChange):
                state = int(states[review.reviewed_at])
                at, kind, due = review.reviewed_at, review.kind, review.set_due
                kept = None
                if review.stability is not None and review.difficulty is not None:
                    kept = (review.stability, review.difficulty)
                entries.append((card_id, kind, at, state, due, kept))
                continue
            rows.append(
                NewReview.rated(
                    card_id=card_id,
                    reviewed_at=review.reviewed_at,
                    rating=review.rating,
                    duration_ms=review.duration_ms,
                    state_before=states[review.reviewed_at],
                )
            )
        memories[card_id] = memory
    transaction.browsing.add_entries(entries)  # before the answers, as one by one
    transaction.history.add_many(rows)
    transaction.cards.set_memories(memories.items())
    return len(rows)


_SAME_DAY = timedelta(hours=12)  # from the middle of a study day to either of its ends
# Anki keeps stability to 4 decimal places and difficulty to 3 (as Recall's export writes
# them): a memory state that rounds to the one kept is that one, so a card back from Anki
# unchanged gains no entry for it.
_SAME_STABILITY = 0.5e-4 + 1e-9
_SAME_DIFFICULTY = 0.5e-3 + 1e-9


Entries = list[ImportedReview | ImportedChange]
_APPLIED_ON_TOP = frozenset({ReviewKind.SET_DUE, ReviewKind.MEMORY})


def replayed_entries(
    scheduler: Scheduler, seed: int, past: list[PastReview], new: Entries
) -> tuple[Entries, dict[datetime, CardState], MemoryState]:
    """The entries of ``new`` to store, the card's state before each entry, and the schedule
    its whole history (``past`` and those entries) leaves.

    ``new`` loses the changes that only restate where the history already leaves the card
    (a review card due on that day, a new card new), so a card back from another app gains
    no entry for being where it was. The history without them is replayed once; the one
    restating change an import usually adds (Anki's due day or memory state, after every
    review) is applied on top of that replay (``Scheduler.apply``, which the replay equals
    step by step) instead of replaying everything again with it.
    """
    restating = [entry for entry in new if isinstance(entry, ImportedChange) and entry.restates]
    kept = [entry for entry in new if entry not in restating]
    merged = sorted([*past, *map(as_past, kept)], key=_moment)
    states, memory = scheduler.replay_with_states(seed, merged)
    if not restating:
        return new, states, memory
    needed = [change for change in restating if _needed(change, memory)]
    if not needed:
        return sorted(kept, key=_moment), states, memory
    (change, *more) = needed
    if (
        not more
        and change.kind in _APPLIED_ON_TOP
        and memory.state is not CardState.NEW
        and (not merged or merged[-1].reviewed_at < change.reviewed_at)
    ):
        states[change.reviewed_at] = memory.state
        return [*kept, change], states, scheduler.apply(seed, memory, as_past(change))
    entries = sorted([*kept, *needed], key=_moment)
    merged = sorted([*past, *map(as_past, entries)], key=_moment)
    states, memory = scheduler.replay_with_states(seed, merged)
    return entries, states, memory


def _needed(change: ImportedChange, memory: MemoryState) -> bool:
    """Whether a restating change moves the card from where ``memory`` leaves it."""
    if change.kind == ReviewKind.FORGET:
        return memory.state != CardState.NEW
    return (
        change.set_due is None
        or memory.due is None
        or memory.state != CardState.REVIEW
        or abs(memory.due - change.set_due) >= _SAME_DAY
        or (change.kind == ReviewKind.MEMORY and not _same_memory(memory, change))
    )


def _same_memory(memory: MemoryState, change: ImportedChange) -> bool:
    """Whether the history already gives the stability and difficulty a memory entry sets."""
    if memory.stability is None or memory.difficulty is None:
        return False
    assert change.stability is not None
    assert change.difficulty is not None
    return (
        abs(memory.stability - change.stability) <= _SAME_STABILITY
        and abs(memory.difficulty - change.difficulty) <= _SAME_DIFFICULTY
    )
