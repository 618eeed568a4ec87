"""Writing a file the learner named, so that a failure never leaves half of it behind."""

from __future__ import annotations

import os
import stat
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import IO, TypeVar

from recall.errors import RecallError

Result = TypeVar("Result")


def write_text(target: Path, write: Callable[[IO[str]], Result]) -> Result:
    """Call ``write`` with a text stream that ends up as ``target``.

    A regular file (or a new one) is written beside the target under a temporary name,
    flushed to disk and renamed over it: the target is either the old file or the whole
    new one, and a failure removes the partial file. It gets the permissions a new file
    gets (the user's umask), or the ones the file it replaces had. Anything else (a
    device such as ``/dev/stdout``, a FIFO, a link to one) is written straight through:
    renaming over it would replace the link, not reach what it points to.

    Raises:
        RecallError: The file cannot be written; the message says why.
    """
    try:
        existing = target.stat()
    except FileNotFoundError:
        existing = None
    except OSError as error:
        raise RecallError(f"cannot write {target}: {error.strerror}") from None
    if existing is not None and stat.S_ISDIR(existing.st_mode):
        raise RecallError(f"cannot write {target}: it is a folder; name a file in it")
    try:
        if existing is not None and not stat.S_ISREG(existing.st_mode):
            with target.open("w", encoding="utf-8", newline="") as stream:
                return write(stream)
        return _write_replacing(target, write, existing)
    except OSError as error:
        raise RecallError(f"cannot write {target}: {error.strerror or error}") from None


def _write_replacing(
    target: Path, write: Callable[[IO[str]], Result], existing: os.stat_result | None
) -> Result:
    folder = target.parent
    with tempfile.NamedTemporaryFile(
        "w",
        encoding="utf-8",
        newline="",
        dir=folder,
        prefix=f".{target.name}.",
        suffix=".partial",
        delete=False,
    ) as handle:
        partial = Path(handle.name)
        try:
            result = write(handle)
            handle.flush()
            os.fsync(handle.fileno())
            mode = stat.S_IMODE(existing.st_mode) if existing is not None else _new_file_mode()
            partial.chmod(mode)
        except BaseException:
            handle.close()
            partial.unlink(missing_ok=True)
            raise
    try:
        partial.replace(target)
    except BaseException:
        partial.unlink(missing_ok=True)
        raise
    return result


def _new_file_mode() -> int:
    """The permissions ``open()`` gives a new file under the current umask."""
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask
