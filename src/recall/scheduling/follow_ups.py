"""Follow-ups on misconceptions: which a card's history makes, and each one's own schedule.

A wrong option picked in two or more wrong answers of a card becomes a follow-up: the same
question asked again, that option among the choices, its note shown after. Nothing about a
follow-up is stored but its answers (``ReviewKind.FOLLOW_UP`` entries of the card's
history): which follow-ups a card has, which of them is asked now, its schedule and whether
it faded are all worked out here from the history, so every computer that holds the same
history derives the same follow-ups, and nothing can disagree with the history.

The rules, applied to the card's entries in the order they happened:

- Every wrong answer (a study, cram or follow-up answer) counts the options it picked that
  the card's current text marks wrong. An option's second such pick makes it a follow-up,
  and that pick is its first answer, rated Again: it comes due as FSRS schedules a new item
  answered Again (the first learning step).
- A card asks one follow-up at a time: the active one. The others wait; when none is
  active, the waiting one picked most (then picked last, then first by text) becomes it.
  A follow-up answer is the active follow-up's answer: that is how an answer names its
  follow-up without a field of its own.
- The active follow-up's schedule replays its answers with their ratings, under the card's
  deck preset; a wrong pick of its option in any other answer counts as an Again too.
- It fades (retires) after ``FADED_AFTER`` follow-up answers in a row that did not pick the
  option, the last of them at least ``FADED_GAP`` after the one before it: the learner
  kept clear of it across three weeks. A faded option picked again in any wrong answer
  comes back as a fresh follow-up, waiting for its turn.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from enum import Enum

from recall.core.memory import MemoryState, Rating, ReviewKind
from recall.scheduling.history import memory_of
from recall.scheduling.replay import RawEntry
from recall.scheduling.review import Scheduler

FOLLOW_UP_AFTER = 2
"""Wrong answers picking one option that make it a follow-up."""
FADED_AFTER = 3
"""Follow-up answers in a row without the option that can retire it."""
FADED_GAP = timedelta(days=21)
"""The least time between the last two of those answers."""

_ANSWERS = (int(ReviewKind.ANSWER), int(ReviewKind.CRAM), int(ReviewKind.FOLLOW_UP))
_FOLLOW_UP = int(ReviewKind.FOLLOW_UP)
_AGAIN = int(Rating.AGAIN)
_GAP = FADED_GAP // timedelta(microseconds=1)
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


# A history entry as follow-ups read it: time (microseconds), kind, rating, the picked
# options' texts (None on a basic card or a change made by hand) and whether it was right.
PickEntry = tuple[int, int, int, tuple[str, ...] | None, bool]


class Standing(Enum):
    """Where a follow-up is: asked now, waiting for the card's active one to end, or faded."""

    ACTIVE = "active"
    WAITING = "waiting"
    FADED = "faded"


@dataclass(frozen=True)
class FollowUp:
    """One wrong option of a card made a follow-up.

    Attributes:
        option: The wrong option's text.
        picks: Wrong answers of the card that picked it, all told.
        last_pick: When one last did.
        standing: Asked now, waiting, or faded.
        memory: Its own schedule (for a faded one, as it was when it faded).
        answers: Follow-up answers it had since it last became a follow-up.
        picked_lately: Whether the card's latest answer picked it.
    """

    option: str
    picks: int
    last_pick: datetime
    standing: Standing
    memory: MemoryState
    answers: int
    picked_lately: bool

    @property
    def persisting(self) -> bool:
        """Still picked: not faded, and the card's latest answer picked it."""
        return self.standing is not Standing.FADED and self.picked_lately


@dataclass
class _Track:
    """A follow-up as the history is read: its schedule's entries and its answers in a row
    without the option."""

    entries: list[RawEntry]
    faded: bool = False
    answers: int = 0
    clear: list[int] = field(default_factory=list)


def follow_ups(
    entries: Sequence[PickEntry],
    wrong: Collection[str],
    scheduler: Scheduler,
    seed: int,
) -> list[FollowUp]:
    """The follow-ups a card's history makes, the active one first.

    Args:
        entries: The card's history in the order it happened.
        wrong: The card's options its current text marks wrong.
        scheduler: The card's deck preset's scheduler.
        seed: The card's seed; it seeds the follow-ups' interval fuzz too.
    """
    counts: dict[str, int] = {}
    last: dict[str, int] = {}
    tracks: dict[str, _Track] = {}
    active: str | None = None
    latest: frozenset[str] = frozenset()
    for moment, kind, rating, chosen, correct in entries:
        if kind not in _ANSWERS:
            continue
        picked = () if correct or not chosen else chosen
        wrong_picked = [option for option in dict.fromkeys(picked) if option in wrong]
        latest = frozenset(wrong_picked)
        if kind == _FOLLOW_UP and active is not None:
            track = tracks[active]
            track.entries.append((0, moment, rating, 0, None, None, None))
            track.answers += 1
            if active in wrong_picked:
                track.clear = []
            else:
                track.clear.append(moment)
                clear = track.clear
                if len(clear) >= FADED_AFTER and clear[-1] - clear[-2] >= _GAP:
                    track.faded = True
                    active = None
        for option in wrong_picked:
            counts[option] = counts.get(option, 0) + 1
            last[option] = moment
            track_of = tracks.get(option)
            if track_of is None or track_of.faded:
                if counts[option] >= FOLLOW_UP_AFTER:
                    tracks[option] = _Track([_again(moment)])
            elif not (kind == _FOLLOW_UP and option == active):
                # Picked again elsewhere: an Again for its schedule, and a fresh start
                # towards fading.
                track_of.entries.append(_again(moment))
                track_of.clear = []
        if active is None:
            waiting = [option for option, track in tracks.items() if not track.faded]
            if waiting:
                active = min(waiting, key=lambda option: (-counts[option], -last[option], option))
    found = [
        FollowUp(
            option=option,
            picks=counts[option],
            last_pick=_moment(last[option]),
            standing=(
                Standing.FADED
                if track.faded
                else Standing.ACTIVE
                if option == active
                else Standing.WAITING
            ),
            memory=memory_of(scheduler.replay_raw(seed, track.entries)),
            answers=track.answers,
            picked_lately=option in latest,
        )
        for option, track in tracks.items()
    ]
    order = {Standing.ACTIVE: 0, Standing.WAITING: 1, Standing.FADED: 2}
    found.sort(key=lambda item: (order[item.standing], -item.picks, item.option))
    return found


def _again(moment: int) -> RawEntry:
    return (0, moment, _AGAIN, 0, None, None, None)


def _moment(micros: int) -> datetime:
    return _EPOCH + timedelta(microseconds=micros)
