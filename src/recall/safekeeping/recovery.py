"""Getting a data folder's database back: restore whatever state it is in, say what is kept.

One place for what the command line and the window both do when the database is damaged,
missing or being restored:

- ``restore_folder`` restores a backup into a database that opens (after a before-restore
  backup), or in place of one that is really damaged or missing (which is kept aside);
  a database that cannot be opened right now (full disk, lock, read-only) is never touched.
- ``set_aside_notice`` is what every start says while a set-aside file is kept.
- ``missing_advice`` is what to do when the database is gone from a folder where one was.
- ``start_empty`` is the one way to start an empty database where one existed.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from recall.core.errors import RecallError
from recall.core.i18n import tr
from recall.host import paths
from recall.safekeeping import backups, integrity
from recall.safekeeping.backups import Backup, RestoreReport
from recall.safekeeping.integrity import CheckReport
from recall.scheduling import Schedulers
from recall.storage import BUSY_TIMEOUT_MS, Database, MissingDatabaseError, is_unusable
from recall.storage.presence import has_contents


class WindowOpenError(RecallError):
    """A Recall window has the data folder open, so the command line does not restore."""


@dataclass(frozen=True)
class FolderRestore:
    """What ``restore_folder`` did.

    Attributes:
        report: The normal restore's report (safety copy and check), when the database
            opened.
        set_aside: Where the damaged file was renamed, when it was replaced.
        reason: Why the database could not be opened, when it was replaced.
        check: The check of the database after the restore.
    """

    restored: Path
    check: CheckReport
    report: RestoreReport | None = None
    set_aside: Path | None = None
    reason: str = ""


def restore_folder(
    data_dir: Path,
    backup_file: Path,
    schedulers: Schedulers,
    now: datetime,
    busy_timeout_ms: int = BUSY_TIMEOUT_MS,
) -> FolderRestore:
    """Restore ``backup_file`` as the database of ``data_dir``, whatever state it is in.

    Args:
        data_dir: The data folder.
        backup_file: The backup to restore.
        schedulers: The schedulers the check after the restore replays with.
        now: The time, aware UTC.
        busy_timeout_ms: How long to wait for another program holding the database.

    Raises:
        RecallError: Nothing was changed: the backup is not healthy, the database cannot be
            opened right now (full disk, lock, read-only folder), or a step failed.
    """
    from recall.host.instances import window_open

    if window_open(data_dir):
        raise WindowOpenError(
            tr(
                "a Recall window has {folder} open: restore from its File > Backups, or close "
                "the window and run this again. Nothing was changed"
            ).format(folder=data_dir)
        )
    path = paths.database_path(data_dir)
    try:
        database = Database(path, busy_timeout_ms=busy_timeout_ms)
    except RecallError as error:
        if not is_unusable(error):
            raise
        aside = backups.replace_damaged(path, backup_file, now, busy_timeout_ms)
        database = Database(path, busy_timeout_ms=busy_timeout_ms)
        try:
            report = integrity.check(database, schedulers, now)
        finally:
            database.close()
        return FolderRestore(backup_file, report, set_aside=aside, reason=str(error))
    try:
        restored = backups.restore(database, backup_file, schedulers, now)
    finally:
        database.close()
    return FolderRestore(backup_file, restored.check, report=restored)


def start_empty(data_dir: Path) -> Path:
    """Start an empty database where one is missing, on the learner's explicit request.

    Raises:
        RecallError: A database is there (restore a backup to go back instead).
    """
    path = paths.database_path(data_dir)
    if has_contents(path):
        raise RecallError(
            tr(
                "{path} is there, so no empty database is started; to go back to a backup, "
                "`recall restore FILE`. Nothing was changed"
            ).format(path=path)
        )
    Database(path, start_empty=True).close()
    return path


def set_aside_files(data_dir: Path) -> list[Path]:
    """Databases set aside as damaged in a data folder (``recall.sqlite3.damaged-*``)."""
    name = paths.database_path(data_dir).name
    return sorted(
        path
        for path in data_dir.glob(f"{name}.damaged-*")
        if not path.name.endswith(("-wal", "-shm"))
    )


def set_aside_notice(files: list[Path]) -> str:
    """What every start says while set-aside databases are kept in the data folder."""
    listed = ", ".join(str(path) for path in files)
    return tr(
        "A database Recall could not open was set aside, not deleted: {files}. If you need "
        "what it held, `recall restore {newest}` checks it and, if it is readable, puts it back "
        "(the current database is backed up first). Move the file out of the data folder to "
        "stop this note."
    ).format(files=listed, newest=files[-1])


def missing_advice(data_dir: Path, error: MissingDatabaseError) -> str:
    """What to do when the database is gone from a folder where one existed."""
    newest = newest_backup(data_dir)
    lines = [str(error) + "."]
    if newest is not None:
        lines.append(
            tr(
                "The newest backup was made {made} ({cards} cards, {reviews} reviews): `recall "
                "restore {path}` brings it back."
            ).format(
                made=f"{newest.made_at.astimezone():%Y-%m-%d %H:%M}",
                cards=newest.cards,
                reviews=newest.reviews,
                path=newest.path,
            )
        )
    for aside in set_aside_files(data_dir)[-1:]:
        lines.append(
            tr("`recall restore {path}` tries the file set aside as damaged.").format(path=aside)
        )
    lines.append(tr("To start with an empty database on purpose: `recall restore --empty`."))
    return " ".join(lines)


def newest_backup(data_dir: Path) -> Backup | None:
    """The newest readable backup of a data folder, if any."""
    return next(iter(backups.list_backups(paths.backup_dir(data_dir))), None)
