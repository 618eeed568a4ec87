"""Why a database could not be opened or written, in words a learner can act on.

Two kinds of failure must never be confused. "Cannot open or write it right now" (a full
disk, a read-only folder or mount, a file another program holds, missing permissions, an
I/O error) leaves a healthy file that works again once the cause is gone: it is reported
as a ``StorageError`` and nothing is ever set aside or replaced because of it. "This file
is damaged, or not a database at all" is a ``DamagedDatabaseError``: only then may a
backup take the file's place (and the file is kept beside it).

The kind is decided from SQLite's own error code (``sqlite3.Error.sqlite_errorcode``), and
where the code is vague (an I/O error, "unable to open") by looking at the file and its
folder: the free space, the mount's read-only flag, the permissions, and on Linux who holds
a lock on the file (``/proc/locks``).
"""

from __future__ import annotations

import errno
import os
import shutil
from pathlib import Path

from recall.core.errors import RecallError

# SQLite's primary result codes (the low byte of an extended code).
SQLITE_ERROR = 1
SQLITE_PERM = 3
SQLITE_BUSY = 5
SQLITE_LOCKED = 6
SQLITE_READONLY = 8
SQLITE_IOERR = 10
SQLITE_CORRUPT = 11
SQLITE_FULL = 13
SQLITE_CANTOPEN = 14
SQLITE_AUTH = 23
SQLITE_NOTADB = 26
SQLITE_READONLY_DBMOVED = SQLITE_READONLY | (4 << 8)

# Below this much free space, an I/O error is put down to a full disk.
LOW_SPACE_BYTES = 8 * 1024 * 1024
SQLITE_MAGIC = b"SQLite format 3\x00"


class StorageError(RecallError):
    """The database could not be read or written right now: a full disk, a read-only
    folder, another program holding it, missing permissions, an I/O error. The file itself
    is not known to be damaged and was not changed; the same step works once the cause
    is gone."""


class DatabaseError(RecallError):
    """The file cannot be used as Recall's database: damaged, another program's, from a
    newer Recall, or with tables that do not match its version stamp."""


class NewerDatabaseError(DatabaseError):
    """The file comes from a newer Recall; it is left untouched."""


class DamagedDatabaseError(DatabaseError):
    """The file is damaged: SQLite says so, it is not a database at all, or its tables,
    columns or triggers are not what its version stamp promises."""


class MissingDatabaseError(DatabaseError):
    """The database file is gone from a data folder where one existed: Recall will not
    start an empty one over the backups or the file it set aside."""


def is_unusable(error: BaseException) -> bool:
    """Whether ``error`` means the file itself is broken, foreign or gone, so a backup may
    take its place.

    A failure to open or write it right now (``StorageError``: a full disk, a lock, a
    read-only folder) is never unusable, and neither is a database from a newer Recall.
    """
    if isinstance(error, NewerDatabaseError):
        return False
    return isinstance(error, DatabaseError)


def is_statement_fault(error: BaseException) -> bool:
    """Whether SQLite refused a statement itself, whatever the file and the disk.

    ``SQLITE_ERROR`` on a statement Recall built (an expression nested too deep, too many
    parameters, a LIKE pattern too long, a misspelt column) says the statement is wrong:
    a bug to report with its traceback, never a disk to check.
    """
    code = getattr(error, "sqlite_errorcode", None)
    return isinstance(code, int) and code & 0xFF == SQLITE_ERROR


def explain(
    error: BaseException, path: Path, busy_timeout_ms: int | None = None
) -> StorageError | DamagedDatabaseError:
    """Turn a failure on ``path`` into a ``StorageError`` (or ``DamagedDatabaseError``) in words.

    Args:
        error: What SQLite or the operating system raised (or Python's sqlite3, as a bare
            ``ValueError``).
        path: The database file (or backup) that was being opened, read or written.
        busy_timeout_ms: How long SQLite waited for a lock, if it did.
    """
    code = getattr(error, "sqlite_errorcode", None)
    primary = code & 0xFF if isinstance(code, int) else None
    if primary in (SQLITE_CORRUPT, SQLITE_NOTADB):
        return DamagedDatabaseError(f"{path} is damaged or is not a database ({error})")
    if primary == SQLITE_FULL:
        return StorageError(_full(path))
    if primary in (SQLITE_BUSY, SQLITE_LOCKED):
        return StorageError(_in_use(path, busy_timeout_ms))
    if code == SQLITE_READONLY_DBMOVED:
        return StorageError(
            f"{path} was moved or replaced while Recall had it open; start Recall again"
        )
    if isinstance(error, OSError) and error.errno is not None:
        if error.errno == errno.ENOSPC:
            return StorageError(_full(path))
        if error.errno == errno.EROFS:
            return StorageError(_read_only(path, "it is on a read-only disk"))
        if error.errno in (errno.EACCES, errno.EPERM):
            return StorageError(_read_only(path, "you may not write there (its permissions)"))
        if error.errno != errno.EIO:
            return StorageError(f"{error.filename or path}: {error.strerror}")
    if isinstance(error, ValueError):
        # Python's sqlite3 refused a path (a NUL in it) or a value read back was not what
        # Recall stores; neither proves the file damaged, so it is never set aside for it.
        return StorageError(
            f"{str(path)!r} could not be opened ({error}); the file was not changed"
        )
    try:
        looked = _look(path)
    except ValueError:  # a path the system refuses (a NUL in it): there is nothing to look at
        looked = None
    if looked is not None:
        return StorageError(looked)
    if primary == SQLITE_READONLY:
        return StorageError(_read_only(path, f"SQLite says: {error}"))
    detail = error.strerror or str(error) if isinstance(error, OSError) else str(error)
    return StorageError(
        f"{path} could not be read or written ({detail}); the file was not changed. "
        "Check the disk and try again"
    )


def explain_header(path: Path) -> DamagedDatabaseError | StorageError | None:
    """Look at a file's first bytes without SQLite; None when they are an SQLite header.

    Returns a ``DamagedDatabaseError`` for a file that is plainly not an SQLite database
    (too short, or another format), and a ``StorageError`` when it cannot be read.
    """
    try:
        with path.open("rb") as handle:
            head = handle.read(100)
    except OSError as error:
        return explain(error, path)
    if len(head) < 100 or not head.startswith(SQLITE_MAGIC):
        return DamagedDatabaseError(
            f"{path} is not a Recall database: its first bytes are not SQLite's header "
            "(the file is damaged, or another program's)"
        )
    return None


def lock_holder(path: Path) -> tuple[int, str] | None:
    """The process (pid, name) holding a lock on the database or its -wal/-shm files.

    Read from ``/proc/locks`` (Linux), so nothing is opened that could drop one of this
    process's own locks; None elsewhere, or when no other process holds one.
    """
    inodes = set()
    for suffix in ("", "-wal", "-shm"):
        try:
            status = Path(f"{path}{suffix}").stat()
        except OSError:
            continue
        inodes.add((os.major(status.st_dev), os.minor(status.st_dev), status.st_ino))
    try:
        lines = Path("/proc/locks").read_text(encoding="ascii", errors="replace").splitlines()
    except OSError:
        return None
    for line in lines:
        fields = line.split()
        if "->" in fields:  # a process waiting for the lock, not holding it
            continue
        try:
            pid = int(fields[4])
            major, minor, inode = fields[5].split(":")
            key = (int(major, 16), int(minor, 16), int(inode))
        except (IndexError, ValueError):
            continue
        if key in inodes and pid > 0 and pid != os.getpid():
            return pid, _process_name(pid)
    return None


def _look(path: Path) -> str | None:
    """What the folder and file show about a vague failure, in words; None if nothing."""
    folder = _existing_folder(path)
    free = _free_bytes(folder)
    if free is not None and free < LOW_SPACE_BYTES:
        return _full(path, free)
    if _read_only_mount(folder):
        return _read_only(path, "it is on a read-only disk")
    if not os.access(folder, os.W_OK | os.X_OK):
        return _read_only(path, "you may not write to its folder (its permissions)")
    if path.exists() and not os.access(path, os.R_OK | os.W_OK):
        return _read_only(path, "you may not write to it (its permissions)")
    if lock_holder(path) is not None:
        return _in_use(path, None)
    return None


def _full(path: Path, free: int | None = None) -> str:
    folder = _existing_folder(path)
    if free is None:
        free = _free_bytes(folder)
    amount = "" if free is None else f" ({free / 1024 / 1024:.1f} MB free)"
    if free is not None and free >= LOW_SPACE_BYTES:
        return (
            f"{path} could not grow: the disk holding it has {free / 1024 / 1024:.1f} MB free, "
            "not enough for this, or a quota or size limit stopped it; free some space and "
            "try again. Nothing was changed"
        )
    # A write that did not fit is undone, so the space it took may be free again.
    state = "is full" if free is None or free < 1024 * 1024 else "has too little free space"
    return (
        f"the disk holding {folder} {state}{amount}; free some space and try again. "
        "Nothing was changed"
    )


def _in_use(path: Path, busy_timeout_ms: int | None) -> str:
    holder = lock_holder(path)
    who = "another program" if holder is None else f"another program ({holder[1]}, pid {holder[0]})"
    waited = "" if busy_timeout_ms is None else f" (waited {busy_timeout_ms / 1000:g} s)"
    return (
        f"{path} is in use by {who}{waited}; close it (another Recall, or a program that "
        "opened the file) and try again. Nothing was changed"
    )


def _read_only(path: Path, why: str) -> str:
    return f"{path} is read-only: {why}. Recall needs to write there; nothing was changed"


def _existing_folder(path: Path) -> Path:
    folder = path.parent
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    return folder


def _free_bytes(folder: Path) -> int | None:
    try:
        return shutil.disk_usage(folder).free
    except OSError:
        return None


def _read_only_mount(folder: Path) -> bool:
    statvfs = getattr(os, "statvfs", None)
    if statvfs is None:  # Windows
        return False
    try:
        return bool(statvfs(folder).f_flag & os.ST_RDONLY)
    except OSError:
        return False


def _process_name(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/comm").read_text(encoding="utf-8", errors="replace").strip()
    except OSError:
        return "unknown"
