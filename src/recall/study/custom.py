"""Custom study sessions: a queue of cards chosen by a search instead of today's limits.

Each kind picks its cards once, when the session starts (suspended and buried cards never):

- cram: the cards a search finds (or the browser's selection), in the search's order; the
  answers are recorded as cram answers, which leave every schedule as it was;
- search: the same cards, answered as ordinary answers (each card under its deck's preset);
- preview: review cards due in the next N days (not today), answered as early reviews;
- forgotten: cards answered Again today, to go over them once more;
- new: new cards with a tag, beyond the day's new-card limit;
- extra: a deck's new cards and due reviews beyond the day's limits;
- timed: review cards whose recall gains most from a review now, lowest retrievability
  first, weighted by how soon they fall due; the session stops after N minutes.

Except in cram, answers are ordinary answers: they reschedule the card and count in the
statistics. A card answered Again comes back once more at the end of the queue.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from enum import StrEnum

from recall.core.i18n import mark
from recall.core.memory import CardState, Rating


class SessionKind(StrEnum):
    """The kinds of custom session."""

    CRAM = "cram"
    SEARCH = "search"
    PREVIEW = "preview"
    FORGOTTEN = "forgotten"
    NEW = "new"
    EXTRA = "extra"
    TIMED = "timed"

    @property
    def label(self) -> str:
        """The kind as the window names it (in English; ``i18n.tr`` translates it)."""
        return _LABELS[self]


_LABELS = {
    SessionKind.CRAM: mark("Cram a search"),
    SessionKind.SEARCH: mark("Study a search, answers rescheduled"),
    SessionKind.PREVIEW: mark("Preview cards due soon"),
    SessionKind.FORGOTTEN: mark("Review cards forgotten today"),
    SessionKind.NEW: mark("New cards from a tag"),
    SessionKind.EXTRA: mark("A deck beyond today's limits"),
    SessionKind.TIMED: mark("A session of N minutes"),
}


@dataclass
class CustomQueue:
    """The cards of a custom session, in the order they come, and what was answered.

    Attributes:
        kind: The kind of session.
        title: What the review screen names the session.
        card_ids: Every card the session may show.
        states: Each card's learning state as last known (for the counts).
        minutes: For a timed session, its length; it starts at the first card.
    """

    kind: SessionKind
    title: str
    card_ids: frozenset[int]
    states: dict[int, CardState]
    pending: list[int]
    minutes: int | None = None
    started: datetime | None = None
    _answered: list[tuple[int, bool]] = field(default_factory=list)

    @property
    def cram(self) -> bool:
        """Whether answers leave the schedule as it was."""
        return self.kind is SessionKind.CRAM

    def next_id(self, now: datetime) -> int | None:
        """The card to show now, or None when the session is over."""
        if self.minutes is not None:
            if self.started is None:
                self.started = now
            elif now >= self.started + timedelta(minutes=self.minutes):
                return None
        return self.pending[0] if self.pending else None

    def answered(self, card_id: int, rating: Rating, state_after: CardState) -> None:
        """Take an answered card off the queue; after Again it comes back at the end."""
        if card_id in self.pending:
            self.pending.remove(card_id)
        again = rating is Rating.AGAIN
        if again:
            self.pending.append(card_id)
        self._answered.append((card_id, again))
        self.states[card_id] = state_after

    def undone(self, card_id: int, state_before: CardState) -> None:
        """Put the card of the last answer back at the front."""
        if self._answered and self._answered[-1][0] == card_id:
            _, again = self._answered.pop()
            if again:
                last = len(self.pending) - 1 - self.pending[::-1].index(card_id)
                del self.pending[last]
        if card_id in self.pending:
            self.pending.remove(card_id)
        self.pending.insert(0, card_id)
        self.states[card_id] = state_before

    def counts(self) -> tuple[int, int]:
        """New cards and other cards left."""
        new = sum(1 for card_id in self.pending if self.states.get(card_id) is CardState.NEW)
        return new, len(self.pending) - new
