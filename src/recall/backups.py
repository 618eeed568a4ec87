"""Backups: made with SQLite's online backup API, thinned like Anki's, restored safely.

Backups live in the ``backups`` folder of the data directory, named by their UTC time
(``recall-20260115-093000-000000.sqlite3``). Thinning keeps every backup from the last two
days, then the newest of each day of age for 12 more days, of each week for 10 weeks, and
of each 30 days for 9 months (about 13 months in all); older ones are deleted.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

from recall import paths
from recall.errors import RecallError
from recall.integrity import CheckReport, check
from recall.scheduling import Schedulers
from recall.storage import (
    SCHEMA_VERSION,
    Database,
    contents,
    copy_database,
    fingerprint,
    integrity_problems,
    read_header,
    restore_into,
)

_NAME = re.compile(r"^recall-(\d{8}-\d{6})(?:-(\d{6}))?(?:-[a-z0-9-]+)?\.sqlite3$")
KEEP_ALL_FOR = timedelta(days=2)
DAILY_FOR = timedelta(days=2 + 12)
WEEKLY_FOR = DAILY_FOR + timedelta(weeks=10)
MONTHLY_FOR = WEEKLY_FOR + timedelta(days=9 * 30)  # months of 30 days
AUTOMATIC_INTERVAL = timedelta(minutes=30)


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
    def size_text(self) -> str:
        """The file size as '812 B', '60.0 KB' or '3.4 MB'."""
        if self.size < 1024:
            return f"{self.size} B"
        if self.size < 1024 * 1024:
            return f"{self.size / 1024:.1f} KB"
        return f"{self.size / 1024 / 1024:.1f} MB"


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
        BackupError: The backup could not be written.
    """
    folder = backup_folder(database)
    name = f"recall-{now.astimezone(UTC):%Y%m%d-%H%M%S-%f}{'-' + note if note else ''}.sqlite3"
    target = folder / name
    try:
        copy_database(database.path, target)
    except OSError as error:
        raise BackupError(f"cannot write a backup into {folder}: {error.strerror}") from None
    thin(folder, now)
    return target


def changed_since_last_backup(database: Database) -> bool:
    """Whether the database holds anything the newest backup does not."""
    newest = next(iter(list_backups(backup_folder(database))), None)
    if newest is None:
        return True
    try:
        return fingerprint(database.path) != fingerprint(newest.path)
    except (sqlite3.DatabaseError, OSError):  # an unreadable backup: make a fresh one
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
        except (sqlite3.DatabaseError, OSError):  # a damaged file is not offered
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
    """Which backup times the thinning rules keep (see the module docstring)."""
    kept: set[datetime] = set()
    buckets: set[tuple[str, int]] = set()
    for moment in sorted(times, reverse=True):
        age = now - moment
        if age < KEEP_ALL_FOR:
            kept.add(moment)
            continue
        if age < DAILY_FOR:
            bucket = ("day", age.days)
        elif age < WEEKLY_FOR:
            bucket = ("week", (age - DAILY_FOR).days // 7)
        elif age < MONTHLY_FOR:
            bucket = ("month", (age - WEEKLY_FOR).days // 30)
        else:
            continue
        if bucket not in buckets:
            buckets.add(bucket)
            kept.add(moment)
    return kept


def thin(folder: Path, now: datetime) -> list[Path]:
    """Delete the backups the thinning rules do not keep; returns what was deleted."""
    dated = {
        path: made_at
        for path in (folder.glob("recall-*.sqlite3") if folder.is_dir() else [])
        if (made_at := _time_of(path.name)) is not None
    }
    keep = to_keep(dated.values(), now)
    removed = [path for path, made_at in dated.items() if made_at not in keep]
    for path in removed:
        path.unlink(missing_ok=True)
    return removed


def restore(
    database: Database, backup_file: Path, schedulers: Schedulers, now: datetime
) -> RestoreReport:
    """Replace the database's contents with a backup's: back up first, restore, then check.

    Raises:
        BackupError: The file is not a healthy Recall database; nothing was changed.
    """
    if not backup_file.is_file():
        raise BackupError(f"{backup_file}: no such file")
    chosen = next(
        (b for b in list_backups(backup_file.parent) if b.path.resolve() == backup_file.resolve()),
        None,
    ) or _describe(backup_file)
    if read_header(backup_file).schema_version > SCHEMA_VERSION:
        raise BackupError(f"{backup_file} was made by a newer Recall; nothing was changed")
    safety = make_backup(database, now, "before-restore")
    try:
        restore_into(backup_file, database.path)
    except ValueError as error:
        raise BackupError(f"{error}; nothing was changed") from None
    database.bring_up_to_date()  # a backup from an older Recall gets today's schema
    return RestoreReport(
        safety_copy=safety, restored=chosen, check=check(database, schedulers, now)
    )


def replace_damaged(database_path: Path, backup_file: Path, now: datetime) -> Path:
    """Put a backup in place of a database that cannot be opened at all.

    The unreadable file is renamed, never deleted (``recall.sqlite3.damaged-<time>``),
    together with its -wal and -shm files, and the backup is copied in its place.

    Returns:
        Where the damaged file now is.

    Raises:
        BackupError: The backup is not a healthy Recall database; nothing was moved.
    """
    chosen = _describe(backup_file)
    if integrity_problems(chosen.path):
        raise BackupError(f"{backup_file} is damaged too; nothing was changed")
    aside = database_path.with_name(f"{database_path.name}.damaged-{now:%Y%m%d-%H%M%S}")
    for suffix in ("", "-wal", "-shm"):
        companion = Path(f"{database_path}{suffix}")
        if companion.exists():
            companion.replace(Path(f"{aside}{suffix}"))
    copy_database(chosen.path, database_path)
    return aside


def _describe(path: Path) -> Backup:
    try:
        counted = contents(path)
    except (sqlite3.DatabaseError, OSError) as error:
        raise BackupError(
            f"{path} is not a Recall database ({error}); nothing was changed"
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
