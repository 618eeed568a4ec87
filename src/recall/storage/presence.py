"""What is known about a database file before it is opened, read without writing.

Its header says whether it is Recall's, and which schema it holds; the files beside it say
whether a database existed here (its marker ``.recall.sqlite3.created``, a set-aside damaged
copy, backups), so that a missing database is never silently replaced by an empty one.
"""

from __future__ import annotations

from contextlib import suppress
from pathlib import Path

from recall.storage import maintenance
from recall.storage.failures import (
    DamagedDatabaseError,
    DatabaseError,
    NewerDatabaseError,
    explain,
    explain_header,
)
from recall.storage.migrations import SCHEMA_VERSION

BUSY_TIMEOUT_MS = maintenance.BUSY_TIMEOUT_MS


def marker_path(path: Path) -> Path:
    """The file beside a database that records that the database exists."""
    return path.with_name(f".{path.name}.created")


def traces_of_database(path: Path) -> list[Path]:
    """What shows that a database existed at ``path``: its marker, set-aside damaged
    copies, backups. Empty for a folder where Recall never kept a database."""
    traces = [marker_path(path)] if marker_path(path).exists() else []
    traces += sorted(path.parent.glob(f"{path.name}.damaged-*"))
    backups = path.parent / maintenance.BACKUP_FOLDER
    if backups.is_dir():
        traces += sorted(backups.glob("recall-*.sqlite3"), reverse=True)
    return traces


def has_contents(path: Path) -> bool:
    """Whether a database file is there with something in it (or in its -wal file)."""
    try:
        return path.stat().st_size > 0 or Path(f"{path}-wal").exists()
    except FileNotFoundError:
        return False
    except OSError:
        return True  # it is there; check_file says why it cannot be read


def write_marker(path: Path) -> None:
    """Record beside the database that it exists (once; a failure is tried again next time)."""
    marker = marker_path(path)
    if marker.exists():
        return
    # The database works without it; if it cannot be written, the next start tries again.
    with suppress(OSError):
        marker.write_text(
            "Recall keeps its database here. This file records that it exists, so that Recall\n"
            "never starts an empty database in its place if it goes missing.\n",
            encoding="utf-8",
        )


def check_file(path: Path, busy_timeout_ms: int = BUSY_TIMEOUT_MS) -> int:
    """Refuse, without writing anything, a file that is not a Recall database we can open.

    Returns:
        The file's schema version (0 for a new or empty file).

    Raises:
        StorageError: The file cannot be read right now (a lock, permissions, the disk).
        DamagedDatabaseError: It is damaged or not a database.
        DatabaseError: It is another program's SQLite database.
        NewerDatabaseError: A newer Recall made it.
    """
    try:
        if path.stat().st_size == 0:
            return 0
    except FileNotFoundError:
        return 0
    except OSError as error:
        raise explain(error, path) from None
    problem = explain_header(path)
    if problem is not None:
        raise problem
    header = maintenance.read_header(path, busy_timeout_ms)
    if not header.is_recall:
        raise DatabaseError(f"{path} is an SQLite database, but not one of Recall's")
    if header.schema_version > SCHEMA_VERSION:
        raise NewerDatabaseError(
            f"{path} was made by a newer Recall (schema {header.schema_version}; this Recall "
            f"knows schema {SCHEMA_VERSION}). Update Recall to open it; nothing was changed."
        )
    if header.schema_version == 0 and header.tables:
        raise DamagedDatabaseError(
            f"{path} carries Recall's stamp but no schema version, and holds tables: "
            "another program may have changed it"
        )
    return header.schema_version
