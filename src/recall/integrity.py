"""Checking a database against its own history, and rebuilding what can be derived."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from recall.errors import CancelledError
from recall.memory import FUTURE_TOLERANCE, MemoryState
from recall.progress import Cancelled, Progress, never_cancelled, no_progress
from recall.scheduling import PastReview, Scheduler, Schedulers
from recall.storage import CardRow, Database, ReviewRow, integrity_problems

_PROGRESS_EVERY = 1_000


@dataclass(frozen=True)
class CheckReport:
    """What ``check`` found.

    Attributes:
        problems: Each finding in words; empty when the database is healthy.
        stale: Cards whose stored schedule differs from the replay of their history,
            with the replayed state that ``repair`` would store.
        future: Reviews dated after ``checked_at`` (and a tolerance): ``repair`` sets
            them aside, kept whole, and replays their cards without them.
    """

    problems: list[str]
    cards: int = 0
    reviews: int = 0
    stale: dict[int, MemoryState] = field(default_factory=dict)
    misplaced: int = 0
    future: int = 0
    checked_at: datetime | None = None
    schedules_replayed: bool = True

    @property
    def healthy(self) -> bool:
        """True when nothing was found."""
        return not self.problems


def check(
    database: Database,
    schedulers: Schedulers,
    now: datetime,
    progress: Progress = no_progress,
    cancelled: Cancelled = never_cancelled,
    replay_schedules: bool = True,
) -> CheckReport:
    """Check the file and every card's schedule against its history.

    Looks for: SQLite integrity and foreign-key problems, stored schedules that differ
    from replaying the card's reviews under its deck's current preset, reviews pointing
    at missing cards, and reviews dated in the future. Only reads.

    Args:
        database: The database to check.
        schedulers: Replay each card's history under its deck's preset.
        now: Reviews after it (and a tolerance) are reported as dated in the future.
        progress: Called with the cards checked so far.
        cancelled: Stops the check when it turns true.
        replay_schedules: False checks everything but the replay of each schedule (a
            restore's quick check: a backup's schedules were checked when it was made,
            and a million reviews take minutes to replay in Python).

    Raises:
        CancelledError: ``cancelled()`` turned true; nothing was changed.
    """
    problems = integrity_problems(database.path)
    if any(problem.startswith("the file cannot be read") for problem in problems):
        return CheckReport(problems=problems)
    stale: dict[int, MemoryState] = {}
    cards = reviews = 0
    with database.reading() as transaction:
        decks = transaction.decks.keys()
        presets = transaction.options.deck_presets()
        total = transaction.cards.count()
        progress(0, total)
        if not replay_schedules:
            cards, reviews = total, transaction.history.count()
        histories = transaction.history.ratings_per_card() if replay_schedules else iter(())
        for card, history in histories:
            cards += 1
            if cards % _PROGRESS_EVERY == 0:
                if cancelled():
                    raise CancelledError("the check was stopped; nothing was changed")
                progress(cards, total)
            reviews += len(history)
            replayed = schedulers.for_deck(presets, card.deck_id).replay(card.seed, history)
            if replayed != card.memory:
                stale[card.id] = replayed
                problems.append(
                    f"card {decks.get(card.deck_id, '?')}/{card.key}: the stored schedule "
                    f"(due {_when(card.memory.due)}) differs from its history "
                    f"(due {_when(replayed.due)})"
                )
        misplaced = transaction.checks.misplaced_schedules()
        if misplaced:
            problems.append(
                f"{len(misplaced)} card(s) have a schedule row that names another deck "
                f"(first: card {misplaced[0]})"
            )
        for orphan in transaction.history.orphans():
            reviews += 1
            problems.append(f"review {orphan.id} points at card {orphan.card_id}, which is gone")
        future = transaction.history.after(now + FUTURE_TOLERANCE)
        if future:
            problems.append(
                f"{len(future)} review(s) are dated in the future, the latest at "
                f"{_when(future[-1].reviewed_at)} (was the clock wrong?); --repair sets them "
                "aside, kept, and reschedules their cards without them"
            )
    return CheckReport(
        problems=problems,
        cards=cards,
        reviews=reviews,
        stale=stale,
        misplaced=len(misplaced),
        future=len(future),
        checked_at=now,
        schedules_replayed=replay_schedules,
    )


def repair(database: Database, report: CheckReport, schedulers: Schedulers) -> list[str]:
    """Store the replayed schedule of every stale card, and its deck, in one transaction.

    Only derived state is rewritten, and reviews dated in the future are moved to
    ``set_aside_review`` (kept whole, never deleted) before their cards are replayed
    without them. Make a backup first.

    Returns:
        What was changed, one line per card.
    """
    changes: list[str] = []
    with database.transaction() as transaction:
        if report.misplaced:
            placed = transaction.checks.place_schedules()
            changes.append(f"gave {placed} schedule row(s) their card's deck")
        decks = transaction.decks.keys()
        presets = transaction.options.deck_presets()
        stale = dict(report.stale)
        if report.future and report.checked_at is not None:
            cutoff = report.checked_at + FUTURE_TOLERANCE
            touched = transaction.checks.set_aside_after(
                cutoff, report.checked_at, "dated in the future when checked"
            )
            changes.append(
                f"set aside {report.future} review(s) dated after {_when(cutoff)} (kept in "
                "the table set_aside_review); their cards are rescheduled without them"
            )
            for card_id in touched:
                card = transaction.cards.get(card_id)
                scheduler = schedulers.for_deck(presets, card.deck_id)
                stale[card_id] = replay(scheduler, card, transaction.history.of_card(card_id))
        for card_id, memory in stale.items():
            card = transaction.cards.get(card_id)
            transaction.cards.set_memory(card_id, memory)
            changes.append(
                f"rebuilt card {decks.get(card.deck_id, '?')}/{card.key}: due "
                f"{_when(card.memory.due)}"
                f" -> {_when(memory.due)}"
            )
    return changes


def replay(scheduler: Scheduler, card: CardRow, history: list[ReviewRow]) -> MemoryState:
    """The memory state a card's history gives: its answers and its changes made by hand."""
    return scheduler.replay(card.seed, [past(review) for review in history])


def past(review: ReviewRow) -> PastReview:
    """A stored history entry as scheduling reads it: an answer or a change made by hand."""
    return PastReview(review.reviewed_at, review.rating, review.kind, review.set_due)


def _when(moment: datetime | None) -> str:
    return "never (new)" if moment is None else moment.strftime("%Y-%m-%d %H:%M UTC")
