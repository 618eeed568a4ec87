"""Scratch folders under the data folder's ``tmp/``, and removing what a killed run left.

An import unpacks a package's collection and images into ``tmp/import-XXXX``; an Anki
export builds its collection in ``tmp/export-XXXX``. Each is removed when the work ends,
on every path. A process killed mid-work (``kill -9``, a power cut) cannot remove its
folder, so the next import or export removes every folder left in ``tmp/``, but only when
no other import or export is running, in this process or another: every user of ``tmp/``
holds a shared lock on the ``tmp`` folder itself while it works, and cleaning needs the
exclusive lock (taken without waiting; if it is not free, cleaning is left for a later
run). Locking the folder rather than a file in it leaves ``tmp/`` empty between runs. No clock is
involved, so a wrong clock cannot make a running import's files look stale.

The locks are ``flock`` locks (Linux, macOS). Where there are none (Windows), leftovers are
not removed.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

try:
    import fcntl
except ImportError:  # Windows
    fcntl = None  # type: ignore[assignment]

TMP_FOLDER = "tmp"


def tmp_dir(data_dir: Path) -> Path:
    """The scratch folder of a data folder."""
    return data_dir / TMP_FOLDER


@contextmanager
def work_folder(data_dir: Path, prefix: str) -> Iterator[Path]:
    """A new private folder in ``tmp/``, removed when the block ends, whatever happens.

    Leftovers of killed runs are removed first, when nobody else is working in ``tmp/``.
    """
    root = tmp_dir(data_dir)
    root.mkdir(parents=True, exist_ok=True)
    with _shared_lock(root):
        folder = Path(tempfile.mkdtemp(prefix=f"{prefix}-", dir=root))
        try:
            yield folder
        finally:
            shutil.rmtree(folder, ignore_errors=True)


def remove_leftovers(data_dir: Path) -> list[Path]:
    """Remove what killed runs left in ``tmp/`` if no import or export is running now.

    Returns:
        What was removed (nothing while another run holds ``tmp/``).
    """
    root = tmp_dir(data_dir)
    if fcntl is None or not root.is_dir():
        return []
    lock = os.open(root, os.O_RDONLY)
    try:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            return []  # someone is working in tmp/: their files are not leftovers
        return _remove_children(root)
    finally:
        os.close(lock)  # closing releases the lock


@contextmanager
def _shared_lock(root: Path) -> Iterator[None]:
    if fcntl is None:
        yield
        return
    lock = os.open(root, os.O_RDONLY)
    try:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            pass  # another run is working: leave tmp/ as it is
        else:
            _remove_children(root)
        fcntl.flock(lock, fcntl.LOCK_SH)  # converts the exclusive lock, or waits for it
        yield
    finally:
        os.close(lock)  # closing releases the lock


def _remove_children(root: Path) -> list[Path]:
    removed = []
    for child in root.iterdir():
        with suppress(OSError):
            if child.is_dir() and not child.is_symlink():
                shutil.rmtree(child)
            else:
                child.unlink()
            removed.append(child)
    return removed
