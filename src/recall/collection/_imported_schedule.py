"""Another app's schedule as an import writes it: changes by hand in the history, card states."""

from __future__ import annotations

from recall.content.deck_format import Deck
from recall.importers import ImportedCardState, ImportedChange, ImportedReview
from recall.scheduling import PastReview
from recall.storage import Transaction

Imported = ImportedReview | ImportedChange


def imported_entries(
    deck_key: str,
    reviews: dict[tuple[str, str], list[ImportedReview]],
    changes: dict[tuple[str, str], list[ImportedChange]],
) -> dict[str, list[Imported]]:
    """One deck's imported reviews and changes by hand, by card key, in time order."""
    entries: dict[str, list[Imported]] = {}
    for (deck, card_key), answers in reviews.items():
        if deck == deck_key:
            entries.setdefault(card_key, []).extend(answers)
    for (deck, card_key), made in changes.items():
        if deck == deck_key:
            entries.setdefault(card_key, []).extend(made)
    for history in entries.values():
        history.sort(key=lambda entry: entry.reviewed_at)
    return entries


def as_past(entry: Imported) -> PastReview:
    """An imported entry as replay reads it."""
    if isinstance(entry, ImportedChange):
        return PastReview(
            entry.reviewed_at, None, entry.kind, entry.set_due, entry.stability, entry.difficulty
        )
    return PastReview(entry.reviewed_at, entry.rating)


def write_card_states(
    transaction: Transaction, deck: Deck, states: dict[tuple[str, str], ImportedCardState]
) -> None:
    """Suspend, bury and flag a deck's imported cards as the other app had them.

    A card the file does not mark is left as it is in Recall: importing again never
    unsuspends what the learner suspended here.
    """
    mine = {
        card_key: state for (deck_key, card_key), state in states.items() if deck_key == deck.id
    }
    if not mine:
        return
    deck_row = transaction.decks.by_key(deck.id)
    assert deck_row is not None
    keys = transaction.cards.keys(deck_row.id)
    suspended = [keys[key].id for key, state in mine.items() if key in keys and state.suspended]
    transaction.browsing.set_suspended(suspended, True)
    buried = [(keys[key].id, state.buried_until) for key, state in mine.items() if key in keys]
    for card_id, until in buried:
        if until is not None:
            transaction.browsing.set_buried([card_id], until)
    flags: dict[int, list[int]] = {}
    for key, state in mine.items():
        if key in keys and state.flag:
            flags.setdefault(state.flag, []).append(keys[key].id)
    for flag, card_ids in flags.items():
        transaction.browsing.set_flag(card_ids, flag)
