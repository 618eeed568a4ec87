"""Backups: made with SQLite's online backup API, thinned like Anki's, restored safely.

Backups live in the ``backups`` folder of the data directory, named by their UTC time
(``recall-20260115-093000-000000.sqlite3``). Thinning keeps the 10 newest backups whatever
their age, every backup from the last two days, then the newest of each calendar day for
12 more days, of each calendar week for 10 weeks, and of each calendar month for 9 months
(about 13 months in all); older ones are deleted. The periods are calendar periods (UTC),
not periods of age, so the backup kept for a week stays the one kept as days pass.

A backup's age is counted along the backups themselves, not only from the clock: walking
from the newest backup to the oldest, a gap between two neighbours counts as at most twice
what thinning itself leaves at that age (two days among the daily backups, two weeks among
the weekly ones, 62 days among the monthly ones). So a clock that jumps a year ahead (or
back), or months without using Recall, never makes the backups before it look old enough to
delete; they age only as new backups are made after them. The backup just made is never deleted.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

from recall.core import i18n
from recall.core.errors import RecallError
from recall.core.i18n import mark, tr
from recall.host import paths
from recall.safekeeping.integrity import CheckReport, check
from recall.scheduling import Schedulers
from recall.storage import (
    BUSY_TIMEOUT_MS,
    Database,
    StorageError,
    contents,
    copy_database,
    fingerprint,
    restoring,
)
from recall.storage.failures import is_unusable

_NAME = re.compile(r"^recall-(\d{8}-\d{6})(?:-(\d{6}))?(?:-[a-z0-9-]+)?\.sqlite3$")
KEEP_ALL_FOR = timedelta(days=2)
DAILY_FOR = timedelta(days=2 + 12)
WEEKLY_FOR = DAILY_FOR + timedelta(weeks=10)
MONTHLY_FOR = WEEKLY_FOR + timedelta(days=9 * 30)  # months of 30 days
AUTOMATIC_INTERVAL = timedelta(minutes=30)
KEEP_NEWEST = 10
LONGEST_GAP = KEEP_ALL_FOR  # between young backups, a longer gap counts as this long


class BackupError(RecallError):
    """A backup could not be made, listed or restored."""


@dataclass(frozen=True)
class Backup:
    """One backup file."""

    path: Path
    made_at: datetime
    size: int
    decks: int
    cards: int
    reviews: int

    @property
    def made_before(self) -> str:
        """Why it was made, from the note in its name: "Before restore", or "" for a
        backup made on schedule or by Back Up Now."""
        match = _NOTE.search(self.path.name)
        if match is None:
            return ""
        note = match.group(1)
        if note in _NOTES:
            return i18n.tr(_NOTES[note])
        words = note.removeprefix("before-").replace("-", " ")
        return tr("Before {what}").format(what=words)

    @property
    def size_text(self) -> str:
        """The file size as '812 B', '60.0 KB' or '3.4 MB'."""
        if self.size < 1024:
            return f"{self.size} B"
        if self.size < 1024 * 1024:
            return f"{self.size / 1024:.1f} KB"
        return f"{self.size / 1024 / 1024:.1f} MB"


# The note ``make_backup`` adds after the time: "recall-20260115-090000-000000-before-restore".
_NOTE = re.compile(r"^recall-\d{8}-\d{6}-\d{6}-(before-[a-z-]+)\.sqlite3$")
# The notes Recall writes, as the backups list says them.
_NOTES = {
    "before-delete": mark("Before delete"),
    "before-new-options": mark("Before new options"),
    "before-repair": mark("Before repair"),
    "before-replay": mark("Before replay"),
    "before-restore": mark("Before restore"),
    "before-sync-delete": mark("Before sync delete"),
}


@dataclass(frozen=True)
class RestoreReport:
    """What a restore did: where the replaced database was saved, and its check."""

    safety_copy: Path
    restored: Backup
    check: CheckReport


def backup_folder(database: Database) -> Path:
    """The backups folder beside a database."""
    return paths.backup_dir(database.path.parent)


def make_backup(database: Database, now: datetime, note: str = "") -> Path:
    """Snapshot the database into the backups folder, then thin the folder.

    Args:
        database: The open database; it stays usable throughout.
        now: The backup's time, aware UTC; it names the file.
        note: Added to the name, like ``before-restore``.

    Raises:
        BackupError: The backup could not be written; no partial file is left.
    """
    target = _snapshot(database, now, note)
    thin(target.parent, now, made=target)
    return target


def _snapshot(database: Database, now: datetime, note: str) -> Path:
    """``make_backup`` without the thinning: the new backup's file."""
    folder = backup_folder(database)
    name = f"recall-{now.astimezone(UTC):%Y%m%d-%H%M%S-%f}{'-' + note if note else ''}.sqlite3"
    target = folder / name
    try:
        copy_database(database.path, target)
    except RecallError as error:
        raise BackupError(
            tr("cannot write a backup into {folder}: {error}").format(folder=folder, error=error)
        ) from None
    return target


def changed_since_last_backup(database: Database) -> bool:
    """Whether the database holds anything the newest backup does not."""
    newest = next(iter(list_backups(backup_folder(database))), None)
    if newest is None:
        return True
    try:
        return fingerprint(database.path) != fingerprint(newest.path)
    except RecallError:  # an unreadable backup: make a fresh one
        return True


def list_backups(folder: Path) -> list[Backup]:
    """Every readable backup in ``folder``, newest first."""
    found = []
    for path in folder.glob("recall-*.sqlite3") if folder.is_dir() else []:
        made_at = _time_of(path.name)
        if made_at is None:
            continue
        try:
            counted = contents(path)
        except RecallError:  # a damaged or unreadable file is not offered
            continue
        found.append(
            Backup(
                path=path,
                made_at=made_at,
                size=path.stat().st_size,
                decks=counted.decks,
                cards=counted.cards,
                reviews=counted.reviews,
            )
        )
    return sorted(found, key=lambda backup: backup.made_at, reverse=True)


def to_keep(times: Iterable[datetime], now: datetime) -> set[datetime]:
    """Which backup times the thinning rules keep (see the module docstring).

    Ages are counted from ``now`` to the newest backup and then from each backup to the
    next older one, each gap counting as at most ``LONGEST_GAP`` (and never below zero):
    a clock that is wrong, now or when a backup was named, cannot age the others at once.
    """
    ordered = sorted(set(times), reverse=True)
    kept: set[datetime] = set(ordered[:KEEP_NEWEST])
    buckets: set[tuple[str, int, int]] = set()
    age = timedelta(0)
    later = now
    for moment in ordered:
        age += min(max(later - moment, timedelta(0)), _longest_gap(age))
        later = moment
        if age < KEEP_ALL_FOR:
            kept.add(moment)
            continue
        # Calendar periods (UTC), not periods of age: a backup kept as the newest of its
        # week stays the newest of that week however many days pass.
        day = moment.astimezone(UTC).date()
        if age < DAILY_FOR:
            bucket = ("day", day.toordinal(), 0)
        elif age < WEEKLY_FOR:
            year, week, _ = day.isocalendar()
            bucket = ("week", year, week)
        elif age < MONTHLY_FOR:
            bucket = ("month", day.year, day.month)
        else:
            continue
        if bucket not in buckets:
            buckets.add(bucket)
            kept.add(moment)
    return kept


def _longest_gap(age: timedelta) -> timedelta:
    """The longest gap thinning itself leaves between two backups of this age, doubled:
    a longer one (a clock jump, months away) counts as only this long."""
    if age < DAILY_FOR:
        return LONGEST_GAP
    if age < WEEKLY_FOR:
        return timedelta(weeks=2)
    return timedelta(days=62)


def thin(folder: Path, now: datetime, made: Path | None = None) -> list[Path]:
    """Delete the backups the thinning rules do not keep; returns what was deleted.

    Args:
        folder: The backups folder.
        now: The current time, aware UTC.
        made: The backup just made: it is kept whatever its name says.
    """
    dated = {
        path: made_at
        for path in (folder.glob("recall-*.sqlite3") if folder.is_dir() else [])
        if (made_at := _time_of(path.name)) is not None
    }
    keep = to_keep(dated.values(), now)
    removed = [path for path, made_at in dated.items() if made_at not in keep and path != made]
    for path in removed:
        path.unlink(missing_ok=True)
    return removed


def restore(
    database: Database, backup_file: Path, schedulers: Schedulers, now: datetime
) -> RestoreReport:
    """Replace the database's contents with a backup's: check, back up first, restore, check.

    A backup of today's schema has its schema checked, then the database as it is is backed
    up (``before-restore``), then the backup is written into the live file from one read
    snapshot of it while SQLite's quick check and foreign-key check of that snapshot run
    beside the copy, which commits only once they found nothing; an older one is copied
    beside the database, upgraded and checked there first, then backed up before. Either
    way the live file is written in one transaction, and when the restore fails the
    before-restore backup is deleted again and the database is exactly as it was; only a
    restore that succeeded thins the backups folder.

    Raises:
        BackupError: The file is not a healthy Recall database, the copy or the
            before-restore backup could not be written, or the database is held by another
            program; the database and its backups folder are exactly as they were.
    """
    if restoring.is_current(backup_file):
        # Today's schema: checked and copied in from one snapshot, with no copy beside.
        made: list[Path] = []
        try:
            restoring.overwrite_checked(
                backup_file,
                database.path,
                before=lambda: made.append(_before_restore(database, now)),
                busy_timeout_ms=database.busy_timeout_ms,
            )
        except RecallError as error:
            for path in made:
                path.unlink(missing_ok=True)
            if isinstance(error, BackupError):
                raise
            raise BackupError(_nothing_changed(_cannot_restore(error))) from None
        safety = made[0]
        chosen = _describe(backup_file)
    else:
        staged = _stage(backup_file, database.path)
        chosen = _describe(backup_file)
        try:
            safety = _before_restore(database, now)
        except BackupError:
            restoring.discard(staged)
            raise
        try:
            restoring.overwrite(staged, database.path, database.busy_timeout_ms)
        except StorageError as error:
            safety.unlink(missing_ok=True)
            raise BackupError(_nothing_changed(_cannot_restore(error))) from None
    thin(safety.parent, now, made=safety)
    database.bring_up_to_date()
    # The file's integrity, foreign keys and schema were checked on the snapshot that went
    # in; its schedules were checked when the backup was made. What remains are the
    # checks that read the restored contents (schedule rows, orphans, future reviews);
    # replaying every history is left to `recall check`.
    quick = check(database, schedulers, now, replay_schedules=False, file_checked=True)
    return RestoreReport(safety_copy=safety, restored=chosen, check=quick)


def _before_restore(database: Database, now: datetime) -> Path:
    try:
        return _snapshot(database, now, "before-restore")
    except BackupError as error:
        message = tr("{error}; the restore needs that backup first").format(error=error)
        raise BackupError(_nothing_changed(message)) from None


def replace_damaged(
    database_path: Path,
    backup_file: Path,
    now: datetime,
    busy_timeout_ms: int = BUSY_TIMEOUT_MS,
) -> Path | None:
    """Put a backup in place of a database that is damaged, foreign or missing.

    The backup is copied beside the database and checked first. Only then is the damaged
    file renamed aside, never deleted (``recall.sqlite3.damaged-<time>``, with its -wal and
    -shm files), and the checked copy renamed into its place. A database that cannot be
    opened for a passing reason (a full disk, a lock, a read-only folder) is never touched.

    Args:
        database_path: The database file.
        backup_file: The backup to put in its place.
        now: The time, aware UTC, that names the file set aside.
        busy_timeout_ms: How long to wait for another program holding the database.

    Returns:
        Where the damaged file now is, or None when there was no file.

    Raises:
        BackupError: The database is not damaged (it opens, or cannot be read right now),
            or the backup is not healthy, or a copy could not be written; nothing changed.
    """
    if not backup_file.is_file():
        raise BackupError(_no_such_file(backup_file))
    problem = restoring.diagnose(database_path, busy_timeout_ms)
    if problem is None:
        raise BackupError(
            tr(
                "{path} opens normally, so it is not set aside; `recall restore` (or File > "
                "Backups) restores into it after backing it up"
            ).format(path=database_path)
        )
    if not is_unusable(problem):
        raise BackupError(_nothing_changed(str(problem)))
    staged = _stage(backup_file, database_path)
    aside = database_path.with_name(f"{database_path.name}.damaged-{now:%Y%m%d-%H%M%S}")
    try:
        return restoring.put_in_place(staged, database_path, aside)
    except StorageError as error:
        raise BackupError(_nothing_changed(str(error))) from None


def _stage(backup_file: Path, database_path: Path) -> Path:
    if not backup_file.is_file():
        raise BackupError(_no_such_file(backup_file))
    try:
        return restoring.stage(backup_file, database_path)
    except RecallError as error:
        raise BackupError(_nothing_changed(_cannot_restore(error))) from None


def _nothing_changed(message: str) -> str:
    message = message.rstrip(". ")
    if message.lower().endswith(tr("nothing was changed").lower()):
        return message
    return tr("{problem}; nothing was changed").format(problem=message)


def _cannot_restore(error: RecallError) -> str:
    return tr("cannot restore: {error}").format(error=error)


def _no_such_file(path: Path) -> str:
    return tr("{path}: no such file; nothing was changed").format(path=path)


def _describe(path: Path) -> Backup:
    try:
        counted = contents(path)
    except RecallError as error:
        raise BackupError(
            _nothing_changed(
                tr("{path} cannot be restored: {error}").format(path=path, error=error)
            )
        ) from None
    made_at = _time_of(path.name) or datetime.fromtimestamp(path.stat().st_mtime, UTC)
    return Backup(path, made_at, path.stat().st_size, counted.decks, counted.cards, counted.reviews)


def _time_of(name: str) -> datetime | None:
    match = _NAME.match(name)
    if match is None:
        return None
    moment = datetime.strptime(match.group(1), "%Y%m%d-%H%M%S").replace(tzinfo=UTC)
    if match.group(2):
        moment = moment.replace(microsecond=int(match.group(2)))
    return moment
