"""Checking a database against its own history, and rebuilding what can be derived."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from recall.core import wording
from recall.core.errors import CancelledError
from recall.core.i18n import tr, trn
from recall.core.memory import FUTURE_TOLERANCE, MemoryState
from recall.core.progress import Cancelled, Progress, never_cancelled, no_progress
from recall.safekeeping import follow_up_check
from recall.scheduling import (
    PastReview,
    Scheduler,
    Schedulers,
    memory_of,
    replay_key,
)
from recall.storage import (
    CardRow,
    Database,
    DatabaseError,
    IntegrityCheck,
    ReviewRow,
    StorageError,
)

_PROGRESS_EVERY = 1_000
_LOOK_UP_AT_MOST = 2_000
_UNREADABLE = "the file cannot be read"


@dataclass(frozen=True)
class CheckReport:
    """What ``check`` found.

    Attributes:
        problems: Each finding in words; empty when the database is healthy.
        stale: Cards whose stored schedule differs from the replay of their history,
            with the replayed state that ``repair`` would store.
        future: Reviews dated after ``checked_at`` (and a tolerance): ``repair`` sets
            them aside, kept whole, and replays their cards without them.
        replayed: How many cards were replayed: every card, or those changed since the
            last healthy check that replayed them all.
        follow_ups: Cards whose kept follow-up summary differs from their follow-ups
            worked out from the history (``follow_up_check``); ``repair`` rewrites it.
    """

    problems: list[str]
    cards: int = 0
    reviews: int = 0
    stale: dict[int, MemoryState] = field(default_factory=dict)
    misplaced: int = 0
    future: int = 0
    checked_at: datetime | None = None
    schedules_replayed: bool = True
    replayed: int = 0
    follow_ups: tuple[int, ...] = ()

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
    full: bool = False,
    file_checked: bool = False,
) -> CheckReport:
    """Check the file and every card's schedule against its history.

    Looks for: SQLite integrity (``quick_check``; ``integrity_check`` when ``full``) and
    foreign-key problems, stored schedules that differ from replaying the card's history
    under its deck's current preset, schedule rows naming another deck, reviews pointing
    at missing cards, and reviews dated in the future.

    Every card is replayed the first time, and whenever ``full``. After a healthy check
    that replayed every card, the next ones replay only the cards the database's
    triggers noted as changed since (``storage.verification``), unless a preset changed
    or the replay itself or the study days it counts in did (``replay_key``). A healthy
    check records what it verified; it changes nothing else.

    Args:
        database: The database to check.
        schedulers: Replay each card's history under its deck's preset.
        now: Reviews after it (and a tolerance) are reported as dated in the future.
        progress: Called with the cards checked so far.
        cancelled: Stops the check when it turns true.
        replay_schedules: False checks everything but the replay of each schedule (a
            restore's quick check: a backup's schedules were checked when it was made).
        full: Run SQLite's full integrity check and replay every card.
        file_checked: Leave out SQLite's integrity and foreign-key checks (and so the
            look for reviews of missing cards): the caller just ran them on these pages (a
            restore checks the snapshot it copies in).

    Raises:
        CancelledError: ``cancelled()`` turned true; nothing was changed.
    """
    # SQLite's check reads the file on a thread of its own while this one replays.
    sqlite_check = None if file_checked else IntegrityCheck(database.path, full=full)
    try:
        return _check(
            database, schedulers, now, progress, cancelled, replay_schedules, full, sqlite_check
        )
    except (DatabaseError, StorageError):
        if sqlite_check is not None:
            found = sqlite_check.problems()
            # A file SQLite cannot read as a database fails the replay too: say what SQLite
            # found rather than what the replay tripped on.
            if any(problem.startswith(_UNREADABLE) for problem in found):
                return CheckReport(problems=found)
        raise
    finally:
        if sqlite_check is not None:
            sqlite_check.stop()


def _check(
    database: Database,
    schedulers: Schedulers,
    now: datetime,
    progress: Progress,
    cancelled: Cancelled,
    replay_schedules: bool,
    full: bool,
    sqlite_check: IntegrityCheck | None,
) -> CheckReport:
    replay_problems: list[str] = []
    stale: dict[int, MemoryState] = {}
    cards = reviews = 0
    with database.reading() as transaction:
        decks = transaction.decks.keys()
        presets = transaction.options.deck_presets()
        total = transaction.cards.count()
        noted = transaction.verification.changed()
        generation = transaction.verification.generation()
        # Replaying every card in one pass beats looking many of them up one by one.
        everything = (
            full
            or not transaction.verification.trusted(replay_key(presets.days))
            or len(noted) > max(total // 4, _LOOK_UP_AT_MOST)
        )
        todo = total if everything else len(noted)
        progress(0, todo)
        replayed = 0
        if replay_schedules:
            cards, reviews = total, transaction.history.count()
            only = None if everything else noted
            histories = transaction.history.schedules_and_histories(only)
        else:
            cards, reviews, histories = total, transaction.history.count(), iter(())
        replayers: dict[int, Scheduler] = {}
        for card_id, seed, deck_id, schedule, history in histories:
            replayed += 1
            if replayed % _PROGRESS_EVERY == 0:
                if cancelled():
                    raise CancelledError(tr("the check was stopped; nothing was changed"))
                progress(replayed, todo)
            scheduler = replayers.get(deck_id)
            if scheduler is None:
                scheduler = replayers[deck_id] = schedulers.for_deck(presets, deck_id)
            memory = scheduler.replay_raw(seed, history)
            if memory != schedule:
                card = transaction.cards.get(card_id)
                stale[card_id] = memory_of(memory)
                replay_problems.append(
                    tr(
                        "card {card}: the stored schedule (due {stored}) differs from its "
                        "history (due {replayed})"
                    ).format(
                        card=f"{decks.get(deck_id, '?')}/{card.key}",
                        stored=_when(card.memory.due),
                        replayed=_when(stale[card_id].due),
                    )
                )
        problems = [] if sqlite_check is None else sqlite_check.problems()
        if any(problem.startswith(_UNREADABLE) for problem in problems):
            return CheckReport(problems=problems)
        problems += replay_problems
        wrong_follow_ups: list[int] = []
        if replay_schedules:
            # Every card's on a full pass; else those noted as changed, as for the replay.
            wrong_follow_ups = follow_up_check.wrong_summaries(
                transaction, presets, None if everything else noted
            )
            for card_id in wrong_follow_ups:
                card = transaction.cards.get(card_id)
                problems.append(
                    f"card {decks.get(card.deck_id, '?')}/{card.key}: the kept summary of its "
                    "follow-ups differs from its history; --repair rewrites it"
                )
        misplaced = transaction.checks.misplaced_schedules()
        if misplaced:
            problems.append(
                trn(
                    "{count} card has a schedule row that names another deck or position than "
                    "the card (first: card {first})",
                    "{count} cards have a schedule row that names another deck or position than "
                    "the card (first: card {first})",
                    len(misplaced),
                ).format(count=wording.number(len(misplaced)), first=misplaced[0])
            )
        # Reviews of missing cards are what SQLite's foreign-key check reports as "review
        # row N points at a missing card": looked up by id only when it found some.
        none_gone = sqlite_check is None or not any(p.startswith("review row ") for p in problems)
        for orphan in [] if none_gone else transaction.history.orphans():
            problems.append(
                tr("review {review} points at card {card}, which is gone").format(
                    review=orphan.id, card=orphan.card_id
                )
            )
        future = transaction.history.after(now + FUTURE_TOLERANCE)
        if future:
            problems.append(
                trn(
                    "{count} review is dated in the future, the latest at {latest} (was the clock "
                    "wrong?); --repair sets it aside, kept, and reschedules its card without it",
                    "{count} reviews are dated in the future, the latest at {latest} (was the "
                    "clock wrong?); --repair sets them aside, kept, and reschedules their cards "
                    "without them",
                    len(future),
                ).format(count=wording.number(len(future)), latest=_when(future[-1].reviewed_at))
            )
    if replay_schedules and not problems:
        with database.transaction() as transaction:
            transaction.verification.record(
                noted, generation if everything else None, replay_key(presets.days)
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
        replayed=replayed,
        follow_ups=tuple(wrong_follow_ups),
    )


def replay(scheduler: Scheduler, card: CardRow, history: list[ReviewRow]) -> MemoryState:
    """The memory state a card's history gives: its answers and its changes made by hand."""
    return scheduler.replay(card.seed, [past(review) for review in history])


def past(review: ReviewRow) -> PastReview:
    """A stored history entry as scheduling reads it: an answer or a change made by hand."""
    return PastReview(
        review.reviewed_at,
        review.rating,
        review.kind,
        review.set_due,
        review.stability,
        review.difficulty,
    )


def _when(moment: datetime | None) -> str:
    return "never (new)" if moment is None else moment.strftime("%Y-%m-%d %H:%M UTC")
