"""The loads load balancing weighs an answer's days by, kept by a study session between its
answers."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from recall.core.memory import CardState, MemoryState
from recall.scheduling.balance import Loads
from recall.storage import CardRow, Stamp, Transaction

# The states whose cards count toward a day's load (a new card is due on no day).
_DUE_STATES = frozenset({CardState.LEARNING, CardState.REVIEW, CardState.RELEARNING})
# More windows than a session's answers over a few weeks ask about: past it the counts are
# read again rather than walked on every answer.
_MOST_WINDOWS = 1024

Window = tuple[datetime, datetime]


class KeptLoads:
    """The cards due in each window (a study day) that a session's answers have weighed,
    kept between its answers, so that an answer reads from the database only the days no
    earlier answer asked about.

    A day's load is the collection's cards due on it (learning and relearning ones
    included, as Anki counts them; Anki counts only the cards of the card's preset, here
    every deck's cards are the learner's day).

    Each window holds the count ``cards_due_in`` gives with no card left out, and stays
    true while the database is where the session's own commits left it: each answer moves
    its card from the window of its old due date to the one of its new date. Any other
    commit (another connection's, or one of the session's own that is not an answer) gives
    the watched connection another stamp, and every count is read again.
    """

    def __init__(self) -> None:
        self._stamp: Stamp | None = None
        self._counts: dict[Window, int] = {}

    def reader(self, transaction: Transaction, stamp: Stamp, card: CardRow) -> Loads:
        """What ``balanced_review`` reads an answer's loads from: the kept counts where
        the database is still at ``stamp``, the rest read in ``transaction``, each without
        the answered card itself."""
        if stamp != self._stamp or len(self._counts) > _MOST_WINDOWS:
            self._counts.clear()
            self._stamp = stamp
        own = _due_of(card.memory)

        def loads(windows: Sequence[Window]) -> list[int]:
            missing = [window for window in dict.fromkeys(windows) if window not in self._counts]
            if missing:
                # Card ids start at 1: leaving out id 0 leaves out none.
                read = transaction.queue.cards_due_in(missing, leaving_out=0)
                self._counts.update(zip(missing, read, strict=True))
            return [
                self._counts[window] - (own is not None and window[0] <= own < window[1])
                for window in windows
            ]

        return loads

    def answered(self, before: MemoryState, after: MemoryState, stamp: Stamp) -> None:
        """Move a card answered (and committed) from its old due date's window to its new
        one's; ``stamp`` is the watched connection's once the answer was committed."""
        old, new = _due_of(before), _due_of(after)
        for window in self._counts:
            start, end = window
            self._counts[window] += (new is not None and start <= new < end) - (
                old is not None and start <= old < end
            )
        self._stamp = stamp

    def forget(self) -> None:
        """Read every count again at the next answer."""
        self._counts.clear()
        self._stamp = None

    def counts(self) -> dict[Window, int]:
        """The counts kept, by window, with no card left out."""
        return dict(self._counts)


def _due_of(memory: MemoryState) -> datetime | None:
    """The due date a schedule counts toward a day's load on, or None for none."""
    return memory.due if memory.state in _DUE_STATES else None
