"""The follow-ups that may be asked today, as the queue keeps them: made only when looked at.

At a start every active follow-up due today is askable (11,608 at 100,000 generated
cards), and the queue shows them one at a time. They are kept as the rows read from the
kept summary, each made a ``CardFollowUp`` the first time the queue looks at it (the first
one, and the few a bisection probes), beside their places in the order: by due time
(microseconds), then card.
"""

from __future__ import annotations

import bisect
import sys
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from recall.storage.times import to_micros
from recall.study.follow_ups import CardFollowUp

Place = tuple[int, int]
"""Where a follow-up comes: its due time (microseconds), then its card."""


def place_of(item: CardFollowUp) -> Place:
    """Where a follow-up that may be asked comes among the others."""
    due = to_micros(item.due)
    assert due is not None, "a follow-up that may be asked is due"
    return due, item.card_id


class AskableFollowUps:
    """The follow-ups that may be asked, soonest due first (then by card).

    Args:
        places: Each one's place, in order.
        entries: Each one, made or as its row, in the same order.
        make: Makes a follow-up of a row.
    """

    def __init__(
        self,
        places: list[Place],
        entries: list[Any],
        make: Callable[[Any], CardFollowUp],
    ) -> None:
        self._places = places
        self._entries = entries
        self._make = make
        self._due_of: dict[int, list[int]] = {}
        for due, card_id in places:
            self._due_of.setdefault(card_id, []).append(due)

    @classmethod
    def of(cls, items: Iterable[CardFollowUp]) -> AskableFollowUps:
        """Follow-ups already made, soonest due first."""
        made = list(items)
        return cls([place_of(item) for item in made], made, lambda item: item)

    def __len__(self) -> int:
        return len(self._places)

    def __bool__(self) -> bool:
        return bool(self._places)

    def first(self) -> CardFollowUp | None:
        """The soonest due, if any."""
        return self._at(0) if self._places else None

    def first_due_after(self, moment: int) -> int | None:
        """The due time (microseconds) of the first one due after ``moment``, if any."""
        later = bisect.bisect_right(self._places, (moment, sys.maxsize))
        return self._places[later][0] if later < len(self._places) else None

    def of_card(self, card_id: int) -> list[CardFollowUp]:
        """A card's follow-ups kept, in their order."""
        found = []
        for due in dict.fromkeys(self._due_of.get(card_id, ())):
            index = bisect.bisect_left(self._places, (due, card_id))
            while index < len(self._places) and self._places[index] == (due, card_id):
                found.append(self._at(index))
                index += 1
        return found

    def replace_card(self, card_id: int, items: Sequence[CardFollowUp]) -> None:
        """Put ``items`` (soonest due first) in place of the card's follow-ups kept, each
        after those of the same place (one card's keep the order its history gives)."""
        for due in self._due_of.pop(card_id, ()):
            index = bisect.bisect_left(self._places, (due, card_id))
            del self._places[index]
            del self._entries[index]
        for item in items:
            place = place_of(item)
            index = bisect.bisect_right(self._places, place)
            self._places.insert(index, place)
            self._entries.insert(index, item)
            self._due_of.setdefault(card_id, []).append(place[0])

    def made(self) -> list[CardFollowUp]:
        """Every one, made (for tests and checks; the queue never needs them all)."""
        return [self._at(index) for index in range(len(self._places))]

    def _at(self, index: int) -> CardFollowUp:
        entry = self._entries[index]
        if not isinstance(entry, CardFollowUp):
            entry = self._entries[index] = self._make(entry)
        return entry
