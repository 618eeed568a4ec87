"""Follow-ups on misconceptions as the study session and the statistics read them: each
card's follow-ups worked out from its history (``scheduling.follow_ups``), with the card.

A follow-up is asked when it is its card's active one, its option is still a wrong option
of the card, the card may be studied (not suspended, not buried) and is not in learning or
relearning itself (the card comes back within minutes anyway; its follow-up waits until it
is through), and it is due.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from recall.core.memory import CardState
from recall.core.presets import DeckPresets
from recall.scheduling import Schedulers
from recall.scheduling.follow_ups import FollowUp, Standing, follow_ups
from recall.storage import Transaction
from recall.storage.times import to_micros

if TYPE_CHECKING:
    from recall.content.deck_format import ChoiceCard

_LEARNING = (CardState.LEARNING, CardState.RELEARNING)


@dataclass(frozen=True)
class CardFollowUp:
    """A follow-up with its card.

    Attributes:
        card: The card as its text is now.
        state: The card's own schedule's state.
        studiable_from: When the card may be studied (microseconds; None when suspended).
        follow_up: The follow-up, worked out from the card's history.
    """

    card_id: int
    deck_id: int
    key: str
    seed: int
    card: ChoiceCard
    state: CardState
    studiable_from: int | None
    follow_up: FollowUp

    @property
    def option(self) -> str:
        """The wrong option it follows up."""
        return self.follow_up.option

    @property
    def why(self) -> str:
        """The option's note, why it is wrong ('' when the deck gives none)."""
        for choice in self.card.choices:
            if choice.text == self.option:
                return choice.why or ""
        return ""

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
    picked_cards = transaction.follow_ups.picked_cards(deck_ids, card_ids)
    if not picked_cards:
        return found  # the deck list at start: no need to load the deck format's models
    from recall.content.deck_format import CARD_ADAPTER, ChoiceCard

    for picked in picked_cards:
        card = CARD_ADAPTER.validate_json(picked.content)
        if not isinstance(card, ChoiceCard):
            continue
        wrong = {choice.text for choice in card.choices if not choice.correct}
        scheduler = schedulers.for_deck(presets, picked.deck_id)
        for follow_up in follow_ups(picked.history, wrong, scheduler, picked.seed):
            if follow_up.standing is Standing.ACTIVE and follow_up.option not in wrong:
                continue  # the card's text changed: the option is no longer a wrong one
            found.append(
                CardFollowUp(
                    card_id=picked.card_id,
                    deck_id=picked.deck_id,
                    key=picked.key,
                    seed=picked.seed,
                    card=card,
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
