"""Writing a file the learner named: a failure never leaves half of it behind.

A regular file (or a new path) is written beside the target under a hidden temporary name,
flushed to disk and renamed over it, so the target is either the old file or the whole new
one, and the temporary file is removed on every failure path. A target that is not a
regular file (a FIFO, a terminal, ``/dev/stdout``, or a symlink to one) is written straight
through: renaming over it would replace the symlink or device instead of writing into it.
A symlink to a regular file is followed, so the file it points at is replaced and the link
stays.

New files get the permissions the user's umask gives (they are created with 0666 and the
kernel applies the umask, with no process-wide umask juggling); a replaced file keeps its
permissions.
"""

from __future__ import annotations

import io
import os
import secrets
import stat
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import IO, BinaryIO, TypeVar

from recall.core.errors import RecallError
from recall.core.i18n import tr

Result = TypeVar("Result")


class OutputError(RecallError):
    """The named file cannot be written."""


def write_text(target: Path, write: Callable[[IO[str]], Result]) -> Result:
    """Call ``write`` with a UTF-8 text stream (no newline translation) that ends up as
    ``target``, as ``output_file`` writes it.

    Raises:
        OutputError: The file cannot be written; the message says why.
    """
    with output_file(target) as stream:
        text = io.TextIOWrapper(stream, encoding="utf-8", newline="")
        try:
            result = write(text)
            text.flush()
        finally:
            text.detach()
    return result


@contextmanager
def output_file(target: Path) -> Iterator[BinaryIO]:
    """A binary stream whose bytes end up in ``target`` once the block ends without error.

    Raises:
        OutputError: ``target`` names no file, is a folder, or cannot be written; a
            regular file is then left as it was and no temporary file remains.
    """
    if not str(target).strip():
        raise OutputError(tr("no file name was given"))
    try:
        status = target.stat()  # follows symlinks
    except FileNotFoundError:
        status = None
    except OSError as error:
        raise OutputError(_cannot_write(target, error.strerror)) from None
    if status is not None and stat.S_ISDIR(status.st_mode):
        raise OutputError(
            tr("cannot write {file}: it is a folder; name a file in it").format(file=target)
        )
    if status is not None and not stat.S_ISREG(status.st_mode):
        with _straight_through(target) as stream:
            yield stream
        return
    real = target.resolve() if target.is_symlink() else target
    mode = None if status is None else stat.S_IMODE(status.st_mode)
    with _atomic(target, real, mode) as stream:
        yield stream


@contextmanager
def _straight_through(target: Path) -> Iterator[BinaryIO]:
    try:
        stream = target.open("wb")
    except OSError as error:
        raise OutputError(_cannot_write(target, error.strerror)) from None
    with stream:
        try:
            yield stream
            stream.flush()
        except OSError as error:
            raise OutputError(_cannot_write(target, error.strerror)) from None


@contextmanager
def _atomic(target: Path, real: Path, mode: int | None) -> Iterator[BinaryIO]:
    folder = real.parent
    partial = folder / f".{real.name}.{secrets.token_hex(4)}.partial"
    try:
        descriptor = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    except OSError as error:
        where = folder if error.filename == str(partial) else target
        raise OutputError(
            tr("cannot write {file}: {reason} ({where})").format(
                file=target, reason=error.strerror, where=where
            )
        ) from None
    try:
        with os.fdopen(descriptor, "wb") as stream:
            yield stream
            stream.flush()
            os.fsync(stream.fileno())
        if mode is not None:
            partial.chmod(mode)
        partial.replace(real)
    except OSError as error:
        with suppress(OSError):
            partial.unlink()
        raise OutputError(_cannot_write(target, error.strerror)) from None
    except BaseException:
        with suppress(OSError):
            partial.unlink()
        raise
    fsync_folder(folder)


def fsync_folder(folder: Path) -> None:
    """Make a rename or a new file in ``folder`` durable (POSIX); folders cannot be opened
    this way on Windows, where the call does nothing."""
    with suppress(OSError):
        descriptor = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(descriptor)
        finally:
            os.close(descriptor)


def _cannot_write(target: Path, reason: str | None) -> str:
    return tr("cannot write {file}: {reason}").format(file=target, reason=reason)
