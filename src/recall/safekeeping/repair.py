"""Looking after the database: repair what ``recall check`` found, with a backup first.

The command line and the window both call this, so "back up, then rebuild" is one step
that cannot be half done by either.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from recall import backups, integrity
from recall.integrity import CheckReport
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
    """Whether ``repair`` can rebuild something ``report`` found (schedules, their decks)."""
    return bool(report.stale or report.misplaced or report.future)


def repair(
    database: Database, schedulers: Schedulers, report: CheckReport, now: datetime
) -> Repaired:
    """Back the database up, rebuild every schedule ``report`` found stale, check again.

    Only derived state is rewritten; the history is never changed.

    Raises:
        RecallError: The backup or the repair could not be written; nothing was changed.
    """
    saved = backups.make_backup(database, now, "before-repair")
    changes = integrity.repair(database, report, schedulers)
    return Repaired(backup=saved, changes=changes, after=integrity.check(database, schedulers, now))
