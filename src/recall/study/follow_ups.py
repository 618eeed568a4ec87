"""Follow-ups on misconceptions as the study session and the statistics read them: each
card's follow-ups worked out from its history (``scheduling.follow_ups``), with the card.

A follow-up is asked when it is its card's active one, its option is still a wrong option
of the card, the card may be studied (not suspended, not buried) and is not in learning or
relearning itself (the card comes back within minutes anyway; its follow-up waits until it
is through), and it is due.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from recall.core.memory import CardState
from recall.core.presets import DeckPresets
from recall.scheduling import Scheduler, Schedulers
from recall.scheduling.follow_ups import FollowUp, Standing, follow_ups
from recall.storage import Transaction
from recall.storage.times import to_micros

_LEARNING = (CardState.LEARNING, CardState.RELEARNING)


@dataclass(frozen=True)
class CardFollowUp:
    """A follow-up with its card.

    Attributes:
        why: The option's note, why it is wrong, as the card's text has it now ('' when
            the deck gives none).
        state: The card's own schedule's state.
        studiable_from: When the card may be studied (microseconds; None when suspended).
        follow_up: The follow-up, worked out from the card's history.
    """

    card_id: int
    deck_id: int
    key: str
    seed: int
    why: str
    state: CardState
    studiable_from: int | None
    follow_up: FollowUp

    @property
    def option(self) -> str:
        """The wrong option it follows up."""
        return self.follow_up.option

    @property
    def due(self) -> datetime | None:
        """When the follow-up is next due."""
        return self.follow_up.memory.due

    def askable(self, now: datetime) -> bool:
        """Whether it may be asked at ``now``, due or not (see the module's rules)."""
        studiable = self.studiable_from
        return (
            self.follow_up.standing is Standing.ACTIVE
            and studiable is not None
            and studiable <= (to_micros(now) or 0)
            and self.state not in _LEARNING
            and self.due is not None
        )


def card_follow_ups(
    transaction: Transaction,
    schedulers: Schedulers,
    presets: DeckPresets,
    deck_ids: Sequence[int] | None = None,
    card_ids: Sequence[int] | None = None,
) -> list[CardFollowUp]:
    """Every follow-up (active, waiting and faded) of the cards of some decks or some cards.

    Args:
        transaction: Where the cards and their histories are read.
        schedulers: FSRS per preset; a follow-up is scheduled by its card's deck preset.
        presets: The deck presets.
        deck_ids: Only these decks' cards; None for every deck.
        card_ids: Only these cards; None for any.
    """
    found: list[CardFollowUp] = []
    by_deck: dict[int, Scheduler] = {}
    for picked in transaction.follow_ups.picked_cards(deck_ids, card_ids):
        # The card's JSON was checked against the deck format when it was stored: its
        # options are read straight from it, without the format's models (the queue and
        # the deck list read every card with a follow-up).
        notes = _wrong_options(picked.content)
        wrong = set(notes)
        scheduler = by_deck.get(picked.deck_id)
        if scheduler is None:
            scheduler = by_deck[picked.deck_id] = schedulers.for_deck(presets, picked.deck_id)
        for follow_up in follow_ups(picked.history, wrong, scheduler, picked.seed):
            if follow_up.standing is Standing.ACTIVE and follow_up.option not in wrong:
                continue  # the card's text changed: the option is no longer a wrong one
            found.append(
                CardFollowUp(
                    card_id=picked.card_id,
                    deck_id=picked.deck_id,
                    key=picked.key,
                    seed=picked.seed,
                    why=notes.get(follow_up.option, ""),
                    state=picked.state,
                    studiable_from=picked.studiable_from,
                    follow_up=follow_up,
                )
            )
    return found


def askable_before(
    items: Sequence[CardFollowUp], before: datetime, now: datetime
) -> list[CardFollowUp]:
    """The follow-ups that may be asked at ``now`` and are due before ``before``, soonest
    due first."""
    due = [
        item for item in items if item.askable(now) and item.due is not None and item.due < before
    ]
    due.sort(key=lambda item: (item.due or now, item.card_id))
    return due


def _wrong_options(content: str) -> dict[str, str]:
    """A choice card's wrong options (text to note) from its stored JSON."""
    choices = json.loads(content).get("choices") or []
    return {
        str(choice["text"]): str(choice.get("why") or "")
        for choice in choices
        if isinstance(choice, dict) and "text" in choice and not choice.get("correct")
    }
