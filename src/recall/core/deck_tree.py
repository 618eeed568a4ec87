"""Decks as a tree: names with ``::`` nest (``Spanish::Verbs`` is inside ``Spanish``)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Generic, Protocol, TypeVar

SEPARATOR = "::"
MAX_DEPTH = 256
"""Levels the tree shows: the steps of a deeper name (one stored before names were
bounded, or made by hand) stay together in the last row's label, so a tree of any name is
built in one pass and walked without recursing per level."""
T = TypeVar("T")


class Named(Protocol):
    """A deck as the tree needs it: an id, its file id and a name (``DeckRow`` is one)."""

    @property
    def id(self) -> int: ...

    @property
    def key(self) -> str: ...

    @property
    def name(self) -> str: ...


D = TypeVar("D", bound=Named)


def parts(name: str) -> list[str]:
    """A deck name's steps down the tree, each stripped: ``"A :: B"`` is ``["A", "B"]``."""
    return [part.strip() for part in name.split(SEPARATOR)]


def tree_steps(name: str) -> list[str]:
    """A deck name's steps as the tree shows them: at most ``MAX_DEPTH``."""
    steps = name.split(SEPARATOR, MAX_DEPTH - 1)
    return [part.strip() for part in steps]


def normalize(name: str) -> str:
    """A deck name with each step stripped and joined by ``::``."""
    return SEPARATOR.join(parts(name))


def leaf(name: str) -> str:
    """The last step of a deck name: what the tree shows on its row."""
    return parts(name)[-1]


def is_inside(name: str, ancestor: str) -> bool:
    """Whether deck ``name`` is ``ancestor`` itself or one of its subdecks (any case)."""
    lowered, top = name.casefold(), ancestor.casefold()
    return lowered == top or lowered.startswith(top + SEPARATOR)


def subtree(decks: Iterable[D], top: D) -> list[D]:
    """``top`` and every deck inside it, in name order (``top`` first); another deck of
    ``top``'s very name is beside it, not inside."""
    inside = [
        deck
        for deck in decks
        if deck.id != top.id
        and is_inside(deck.name, top.name)
        and normalize(deck.name).casefold() != normalize(top.name).casefold()
    ]
    return [top, *sorted(inside, key=lambda deck: (deck.name.casefold(), deck.id))]


def parent(decks: Sequence[D], deck: D) -> D | None:
    """The nearest deck whose name ``deck``'s name continues, or None at the top."""
    by_name = {other.name.casefold(): other for other in decks}
    steps = tree_steps(deck.name)
    for length in range(len(steps) - 1, 0, -1):
        found = by_name.get(SEPARATOR.join(steps[:length]).casefold())
        if found is not None:
            return found
    return None


@dataclass
class Node(Generic[D]):
    """One row of the deck tree: a deck, or a name step no deck holds (``deck`` None).

    Attributes:
        name: The full name down to this node.
        label: The last step of the name, shown on the row.
        own: What this node's own deck holds (None without a deck).
        total: ``own`` summed with every node below, by the summing function given.
    """

    name: str
    label: str
    deck: D | None = None
    children: list[Node[D]] = field(default_factory=list)


def build(decks: Iterable[D]) -> list[Node[D]]:
    """The deck tree: top-level nodes in name order, each with its children in name order."""
    roots: list[Node[D]] = []
    index: dict[str, Node[D]] = {}
    for deck in sorted(decks, key=lambda deck: (deck.name.casefold(), deck.id)):
        steps = tree_steps(deck.name)
        level, above = roots, ""
        for depth in range(1, len(steps) + 1):
            key = SEPARATOR.join(steps[:depth]).casefold()
            found = index.get(key)
            if found is None:
                label = steps[depth - 1]
                found = Node(name=f"{above}{SEPARATOR}{label}" if above else label, label=label)
                index[key] = found
                level.append(found)
            node = found
            level, above = node.children, node.name
        node = index[SEPARATOR.join(steps).casefold()]
        if node.deck is None:
            node.deck = deck
        else:
            _beside(node, deck, _level_of(roots, index, steps))
    return roots


def _level_of(roots: list[Node[D]], index: dict[str, Node[D]], steps: list[str]) -> list[Node[D]]:
    """The list of nodes the node of ``steps`` is in: the roots, or its parent's children."""
    return roots if len(steps) == 1 else index[SEPARATOR.join(steps[:-1]).casefold()].children


def _beside(node: Node[D], deck: D, level: list[Node[D]]) -> None:
    """Show a second deck of ``node``'s name as a row of its own after it; both rows say
    their deck's id, so neither deck hides the other."""
    first = node.deck
    assert first is not None
    if not node.label.endswith(f" ({first.key})"):
        node.label = f"{node.label} ({first.key})"
    label = f"{_leaf_label(node.name)} ({deck.key})"
    at = max(i for i, other in enumerate(level) if other.name.casefold() == node.name.casefold())
    level.insert(at + 1, Node(name=node.name, label=label, deck=deck))


def _leaf_label(name: str) -> str:
    """The label of the tree's row for a deck name: its last shown step."""
    return tree_steps(name)[-1]


def walk(nodes: Iterable[Node[D]]) -> Iterable[tuple[Node[D], int]]:
    """Every node with its depth, parents before children."""
    pending = [(node, 0) for node in reversed(list(nodes))]
    while pending:
        node, depth = pending.pop()
        yield node, depth
        pending += [(child, depth + 1) for child in reversed(node.children)]


def summed(node: Node[D], own: Callable[[D], T], add: Callable[[T, T], T], zero: T) -> T:
    """A value of the node's own deck added to that of every node below it."""
    total = zero
    for below, _depth in walk([node]):
        if below.deck is not None:
            total = add(total, own(below.deck))
    return total
