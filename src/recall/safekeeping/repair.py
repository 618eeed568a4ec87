"""Looking after the database: repair what ``recall check`` found, with a backup first.

The command line and the window both call this, so "back up, then rebuild" is one step
that cannot be half done by either.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from recall.core import wording
from recall.core.i18n import tr, trn
from recall.core.memory import FUTURE_TOLERANCE, MemoryState
from recall.safekeeping import backups, follow_up_check, integrity
from recall.safekeeping.integrity import CheckReport
from recall.scheduling import Schedulers
from recall.storage import Database


@dataclass(frozen=True)
class Repaired:
    """What a repair did.

    Attributes:
        backup: The copy of the database as it was before.
        changes: Each rebuilt schedule, in words.
        after: The check run after the repair.
    """

    backup: Path
    changes: list[str]
    after: CheckReport


def can_repair(report: CheckReport) -> bool:
    """Whether ``repair`` can rebuild something ``report`` found (schedules, their decks, the
    follow-ups' kept summary)."""
    return bool(report.stale or report.misplaced or report.future or report.follow_ups)


def repair(
    database: Database, schedulers: Schedulers, report: CheckReport, now: datetime
) -> Repaired:
    """Back the database up, rebuild every schedule ``report`` found stale, check again.

    Only derived state is rewritten; the history is never changed.

    Raises:
        RecallError: The backup or the repair could not be written; nothing was changed.
    """
    saved = backups.make_backup(database, now, "before-repair")
    changes = _rebuild(database, report, schedulers)
    return Repaired(backup=saved, changes=changes, after=integrity.check(database, schedulers, now))


def _rebuild(database: Database, report: CheckReport, schedulers: Schedulers) -> list[str]:
    """Store the replayed schedule of every stale card, and its deck, in one transaction.

    Only derived state is rewritten, and reviews dated in the future are moved to
    ``set_aside_review`` (kept whole, never deleted) before their cards are replayed
    without them. ``repair`` makes a backup first.

    Each stale card is replayed again from its history as it is now, inside the
    transaction: the learner may have studied while the check ran (the window allows it),
    and a schedule replayed then would lack the newer answers. A card answered back into
    agreement with its history, or deleted since, is left alone.

    Returns:
        What was changed, one line per card.
    """
    changes: list[str] = []
    with database.transaction() as transaction:
        if report.misplaced:
            placed = transaction.checks.place_schedules()
            changes.append(
                trn(
                    "gave {count} schedule row their card's deck and position",
                    "gave {count} schedule rows their card's deck and position",
                    placed,
                ).format(count=wording.number(placed))
            )
        decks = transaction.decks.keys()
        presets = transaction.options.deck_presets()
        stale: dict[int, MemoryState] = {}
        for card_id in report.stale:
            try:
                card = transaction.cards.get(card_id)
            except LookupError:
                continue  # deleted since the check
            scheduler = schedulers.for_deck(presets, card.deck_id)
            memory = integrity.replay(scheduler, card, transaction.history.of_card(card_id))
            if memory != card.memory:
                stale[card_id] = memory
        if report.future and report.checked_at is not None:
            cutoff = report.checked_at + FUTURE_TOLERANCE
            touched = transaction.checks.set_aside_after(
                cutoff, report.checked_at, "dated in the future when checked"
            )
            changes.append(
                trn(
                    "set aside {count} review dated after {cutoff} (kept in the table "
                    "set_aside_review); its card is rescheduled without it",
                    "set aside {count} reviews dated after {cutoff} (kept in the table "
                    "set_aside_review); their cards are rescheduled without them",
                    report.future,
                ).format(count=wording.number(report.future), cutoff=_when(cutoff))
            )
            for card_id in touched:
                card = transaction.cards.get(card_id)
                scheduler = schedulers.for_deck(presets, card.deck_id)
                stale[card_id] = integrity.replay(
                    scheduler, card, transaction.history.of_card(card_id)
                )
        if report.follow_ups:
            follow_up_check.rewrite(transaction, presets, report.follow_ups)
            changes.append(
                f"rewrote the kept follow-ups of {wording.count(len(report.follow_ups), 'card')} "
                "from their histories"
            )
        for card_id, memory in stale.items():
            card = transaction.cards.get(card_id)
            transaction.cards.set_memory(card_id, memory)
            changes.append(
                tr("rebuilt card {card}: due {before} -> {after}").format(
                    card=f"{decks.get(card.deck_id, '?')}/{card.key}",
                    before=_when(card.memory.due),
                    after=_when(memory.due),
                )
            )
    return changes


def _when(moment: datetime | None) -> str:
    return tr("never (new)") if moment is None else moment.strftime("%Y-%m-%d %H:%M UTC")
