"""Decks of one name become one on import, as Anki merges them: no deck hides another."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from recall.content.deck_format import Deck
from recall.core import deck_tree
from recall.importers import ImportedPackage, ImportedReview
from recall.storage import Transaction

MAX_KEY = 100  # the deck format's longest card id


@dataclass(frozen=True)
class DeckTarget:
    """One deck an import writes: the file's decks of one name, under one id.

    Attributes:
        deck: The file's deck (its cards and those of every deck merged into it), with the
            id of the deck it is written to.
        merged_from: The file's deck ids written into another deck's id: an existing deck
            of that name, or the file's first deck of that name.
        existing_name: The name of the existing deck it goes to, if another source made it.
    """

    deck: Deck
    merged_from: tuple[str, ...] = ()
    existing_name: str = ""


def deck_targets(transaction: Transaction, package: ImportedPackage) -> list[DeckTarget]:
    """Where each of the package's decks goes: to the deck with its id, else to the deck
    with its name (any case, spaces around ``::`` aside), else to a new deck.

    Decks of one name within the package go to one deck too, the first of them giving the
    order. Cards of a deck merged into another's id are filed as ``<card id>.<deck id>``
    with their history, so they take no other card's place.
    """
    stored = transaction.browsing.decks()
    keys = {deck.key for deck in stored}
    named: dict[str, tuple[str, str]] = {}  # normalized name -> (deck id, its name)
    for row in sorted(stored, key=lambda row: row.id):
        named.setdefault(_name_key(row.name), (row.key, row.name))
    groups: dict[str, list[Deck]] = {}
    existing_names: dict[str, str] = {}
    for deck in package.decks:
        if deck.id in keys:
            target = deck.id
        else:
            found = named.get(_name_key(deck.name))
            target = found[0] if found is not None else deck.id
            if found is not None and found[0] in keys:
                existing_names[target] = found[1]
        named.setdefault(_name_key(deck.name), (target, deck.name))
        groups.setdefault(target, []).append(deck)
    targets = []
    for target, decks in groups.items():
        first = decks[0]
        cards, seen = [], set()
        for deck in decks:
            for card in deck.cards:
                if deck.id != target:
                    card = card.model_copy(update={"id": merged_key(card.id, deck.id)})
                if card.id not in seen:
                    seen.add(card.id)
                    cards.append(card)
        update: dict[str, object] = {"id": target, "cards": cards}
        existing_name = existing_names.get(target, "")
        if existing_name and all(deck.id != target for deck in decks):
            # Another source's deck: its name and description stay as they are.
            stored_deck = next(row for row in stored if row.key == target)
            update |= {"name": stored_deck.name, "description": stored_deck.description}
        merged = tuple(deck.id for deck in decks if deck.id != target)
        targets.append(DeckTarget(first.model_copy(update=update), merged, existing_name))
    return targets


def retargeted(package: ImportedPackage, targets: list[DeckTarget]) -> ImportedPackage:
    """The package with its history and change times filed under the decks written."""
    moved = {source: target.deck.id for target in targets for source in target.merged_from}

    def filed(deck_key: str, card_key: str) -> tuple[str, str]:
        if deck_key not in moved:
            return deck_key, card_key
        return moved[deck_key], merged_key(card_key, deck_key)

    reviews: dict[tuple[str, str], list[ImportedReview]] = {}
    for (deck_key, card_key), history in package.reviews.items():
        reviews.setdefault(filed(deck_key, card_key), []).extend(history)
    modified = {
        filed(deck_key, card_key): moment
        for (deck_key, card_key), moment in package.modified.items()
    }
    return dataclasses.replace(
        package,
        decks=[target.deck for target in targets],
        reviews={
            key: sorted(history, key=lambda review: review.reviewed_at)
            for key, history in reviews.items()
        },
        modified=modified,
        presets={moved.get(key, key): preset for key, preset in package.presets.items()},
    )


def merged_key(card_key: str, deck_key: str) -> str:
    """A card's id in the deck its own was merged into: its id and its deck's, so it never
    takes the id of a card from another source, and finds itself again on re-import."""
    return f"{card_key}.{deck_key}"[:MAX_KEY]


def _name_key(name: str) -> str:
    return deck_tree.normalize(name).casefold()
