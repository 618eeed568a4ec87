"""A hand-made history of picks on the item-analysis deck, with known shares and flags."""

from __future__ import annotations

from datetime import datetime, timedelta

from recall.collection import importing
from recall.content.deck_format import load_deck
from recall.core.memory import CardState, Rating
from recall.storage import Database
from recall.storage.records import NewReview
from tests.conftest import DATA

WEAK, STRONG = CardState.LEARNING, CardState.REVIEW

# Per card: (memory before the answer, option picked), oldest first.
PICKS: dict[str, list[tuple[CardState, str]]] = {
    # Weak: Lyon, Lyon, Paris, Nice; strong: Paris x5, Nice. Bern never, after 10 answers.
    "france": [(WEAK, "Lyon"), (WEAK, "Lyon"), (WEAK, "Paris"), (WEAK, "Nice")]
    + [(STRONG, "Paris")] * 5
    + [(STRONG, "Nice")],
    # Weak: Saturn, Mars, Jupiter, Saturn; strong: Jupiter x3, Saturn (Jupiter is right).
    "planet": [(WEAK, "Saturn"), (WEAK, "Mars"), (WEAK, "Jupiter"), (WEAK, "Saturn")]
    + [(STRONG, "Jupiter")] * 3
    + [(STRONG, "Saturn")],
    # Right at first sight and every time since.
    "sum": [(CardState.NEW, "4"), (WEAK, "4"), (STRONG, "4"), (STRONG, "4")],
}
RIGHT = {"france": "Paris", "planet": "Saturn", "sum": "4"}


def install(database: Database, start: datetime) -> dict[str, int]:
    """Import the deck and add the history, a day between answers; the cards' ids."""
    importing.import_deck(database, load_deck(DATA / "decks" / "item_analysis.json"), start)
    with database.transaction() as transaction:
        deck = transaction.decks.by_key("items")
        assert deck is not None
        ids = {key: value.id for key, value in transaction.cards.keys(deck.id).items()}
        for key, answers in PICKS.items():
            for number, (state, choice) in enumerate(answers, start=1):
                right = choice == RIGHT[key]
                transaction.history.add(
                    NewReview.rated(
                        card_id=ids[key],
                        reviewed_at=start + timedelta(days=number),
                        rating=Rating.GOOD if right else Rating.AGAIN,
                        duration_ms=3000,
                        state_before=state,
                        picked=(choice,),
                        correct=right,
                    )
                )
    return ids
