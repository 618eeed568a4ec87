"""Decks by hand: create, rename (moving it in the tree), describe, delete; each undoable."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime

from recall.changes.change import Change, Restore
from recall.core import deck_tree, wording
from recall.core.errors import RecallError
from recall.core.i18n import tr, trn
from recall.storage import Database, DeckRow, Transaction


class DeckNameError(RecallError):
    """A deck name that cannot be used: empty, an empty step, or taken."""


@dataclass(frozen=True)
class DeckContents:
    """What deleting a deck takes with it: its subdecks, their cards and reviews."""

    decks: tuple[DeckRow, ...]
    cards: int
    reviews: int


def check_name(name: str, decks: list[DeckRow], but: set[int] | None = None) -> str:
    """A deck name, normalized (``A :: B`` is ``A::B``), checked to be usable and free.

    Raises:
        DeckNameError: The name is empty, has an empty step, or another deck has it.
    """
    steps = deck_tree.parts(name)
    if not name.strip():
        raise DeckNameError(tr("a deck needs a name"))
    if any(not step for step in steps):
        raise DeckNameError(tr("{name} has an empty step between '::'").format(name=repr(name)))
    normal = deck_tree.SEPARATOR.join(steps)
    skip = but or set()
    for deck in decks:
        if deck.id not in skip and deck.name.casefold() == normal.casefold():
            raise DeckNameError(
                tr("there is already a deck named {name}").format(name=repr(deck.name))
            )
    return normal


def _key(name: str, taken: set[str]) -> str:
    stem = "-".join(re.findall(r"[a-z0-9]+", name.lower()))[:80] or "deck"
    key, number = stem, 2
    while key in taken:
        key, number = f"{stem}-{number}", number + 1
    return key


def add_parents(transaction: Transaction, now: datetime) -> list[DeckRow]:
    """Give every deck's parent steps a deck of their own where none has that name yet.

    ``Spanish::Verbs`` alone gets a deck ``Spanish``, as in Anki: a parent is a deck to
    study, export, tune and chart with its subdecks, never a bare step of a name.

    Returns:
        The decks added, parents before children.
    """
    browsing = transaction.browsing
    decks = browsing.decks()
    known = {deck_tree.normalize(deck.name).casefold() for deck in decks}
    taken = browsing.deck_keys()
    added = []
    for deck in decks:
        steps = deck_tree.tree_steps(deck.name)  # the rows the tree shows, no more
        for depth in range(1, len(steps)):
            step_name = deck_tree.SEPARATOR.join(steps[:depth])
            if not all(steps[:depth]) or step_name.casefold() in known:
                continue
            known.add(step_name.casefold())
            key = _key(step_name, taken)
            taken.add(key)
            added.append(transaction.decks.add(key, step_name, "", now))
    return added


def new_deck(database: Database, name: str, now: datetime, description: str = "") -> Change:
    """Add an empty deck (with any parent decks its name needs that do not exist yet).

    Raises:
        DeckNameError: The name is empty, has an empty step, or is taken.
    """
    with database.transaction() as transaction:
        browsing = transaction.browsing
        decks = browsing.decks()
        normal = check_name(name, decks)
        taken = browsing.deck_keys()
        known = {deck.name.casefold() for deck in decks}
        steps = deck_tree.parts(normal)
        added = []
        for depth in range(1, len(steps) + 1):
            step_name = deck_tree.SEPARATOR.join(steps[:depth])
            if step_name.casefold() in known:
                continue
            key = _key(step_name, taken)
            taken.add(key)
            text = description if depth == len(steps) else ""
            added.append(transaction.decks.add(key, step_name, text, now).id)
    return Change(
        tr("Add the deck {deck}").format(deck=normal), len(added), Restore(added_decks=tuple(added))
    )


def rename_deck(database: Database, deck_id: int, name: str, now: datetime) -> Change:
    """Rename a deck and, with it, each of its subdecks; ``A::B`` moves it under ``A``.

    Raises:
        DeckNameError: The name is unusable or taken, or would put the deck inside itself.
    """
    with database.transaction() as transaction:
        browsing = transaction.browsing
        decks = browsing.decks()
        deck = next((row for row in decks if row.id == deck_id), None)
        if deck is None:
            raise RecallError(tr("that deck no longer exists"))
        moving = deck_tree.subtree(decks, deck)
        normal = check_name(name, decks, {row.id for row in moving})
        if deck_tree.is_inside(normal, deck.name) and normal.casefold() != deck.name.casefold():
            raise DeckNameError(tr("{name} cannot move inside itself").format(name=repr(deck.name)))
        before = browsing.values(
            "deck", ("name", "description", "updated_at"), [r.id for r in moving]
        )
        for row in moving:
            renamed = normal + row.name[len(deck.name) :]
            browsing.set_deck(row.id, renamed, row.description, now)
        parents = tuple(row.id for row in add_parents(transaction, now))  # A of A::B
    return Change(
        tr("Rename {deck} to {name}").format(deck=deck.name, name=normal),
        len(moving),
        Restore(
            values=(("deck", ("name", "description", "updated_at"), tuple(before)),),
            added_decks=parents,
        ),
    )


def describe_deck(database: Database, deck_id: int, description: str, now: datetime) -> Change:
    """Change a deck's description."""
    with database.transaction() as transaction:
        browsing = transaction.browsing
        before = browsing.values("deck", ("name", "description", "updated_at"), [deck_id])
        deck = transaction.decks.get(deck_id)
        browsing.set_deck(deck_id, deck.name, description.strip(), now)
    return Change(
        tr("Describe {deck}").format(deck=deck.name),
        1,
        Restore(values=(("deck", ("name", "description", "updated_at"), tuple(before)),)),
    )


def contents(database: Database, deck_id: int) -> DeckContents:
    """What deleting a deck would take: it and its subdecks, their cards and reviews."""
    with database.reading() as transaction:
        decks = transaction.browsing.decks()
        deck = transaction.decks.get(deck_id)
        inside = deck_tree.subtree(decks, deck)
        cards, reviews = transaction.browsing.deck_contents([row.id for row in inside])
    return DeckContents(tuple(inside), cards, reviews)


def delete_deck(database: Database, deck_id: int, now: datetime) -> Change:
    """Delete a deck, its subdecks, their cards and history, after a backup; undo restores.

    Raises:
        BackupError: The backup could not be made; nothing was deleted.
    """
    from recall.safekeeping import backups

    backups.make_backup(database, now, note="before-delete")
    with database.transaction() as transaction:
        browsing = transaction.browsing
        deck = transaction.decks.get(deck_id)
        ids = [row.id for row in deck_tree.subtree(browsing.decks(), deck)]
        card_ids = browsing.card_ids_of_decks(ids)
        dumped = browsing.dump(card_ids)
        deck_rows = browsing.deck_rows(ids)
        browsing.delete_cards(card_ids)
        browsing.delete_decks(ids)
    label = tr("Delete {deck} ({decks}, {cards}, {reviews})").format(
        deck=deck.name,
        decks=trn("{count} deck", "{count} decks", len(ids)).format(count=wording.number(len(ids))),
        cards=trn("{count} card", "{count} cards", len(dumped["card"])).format(
            count=wording.number(len(dumped["card"]))
        ),
        reviews=trn("{count} review", "{count} reviews", len(dumped["review"])).format(
            count=wording.number(len(dumped["review"]))
        ),
    )
    return Change(label, len(dumped["card"]), Restore(decks=tuple(deck_rows), cards=dumped))
