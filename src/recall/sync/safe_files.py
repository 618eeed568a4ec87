"""Opening what other programs and computers wrote in the sync folder, as untrusted files.

Below ``Recall/`` nothing is reached through a symbolic link: each folder on the way is
opened without following links (relative to the one before, where the system allows), and
the file itself with ``O_NOFOLLOW``. It is opened with ``O_NONBLOCK``, so a named pipe or
a device put there cannot make the open wait forever, and it is read only once ``fstat``
says it is a regular file of at most the size the caller allows.
"""

from __future__ import annotations

import contextlib
import errno
import io
import os
import stat
from pathlib import Path

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
_BINARY = getattr(os, "O_BINARY", 0)  # Windows: no newline translation
_FILE_FLAGS = os.O_RDONLY | _NOFOLLOW | _NONBLOCK | _CLOEXEC | _BINARY
_FOLDER_FLAGS = os.O_RDONLY | _NOFOLLOW | _CLOEXEC | _DIRECTORY


class NotAFileError(OSError):
    """What was to be read is a link, a named pipe, a device or a folder, not a file."""

    def __init__(self, path: Path) -> None:
        super().__init__(
            errno.EINVAL, "not a regular file (a link, a named pipe or a device): not read"
        )
        self.filename = str(path)


class TooLargeError(OSError):
    """The file is larger than the caller allows; nothing of it was read.

    Attributes:
        size: The file's size in bytes.
    """

    def __init__(self, path: Path, size: int, limit: int) -> None:
        super().__init__(errno.EFBIG, f"{size:,} bytes, more than the {limit:,} allowed")
        self.filename = str(path)
        self.size = size


def is_link(path: Path) -> bool:
    """Whether ``path`` is a symbolic link (False when it does not exist)."""
    try:
        return stat.S_ISLNK(os.lstat(path).st_mode)
    except OSError:
        return False


def open_file(base: Path, parts: tuple[str, ...], limit: int | None = None) -> int:
    """Open ``base/parts...`` for reading, following no link below ``base``.

    Args:
        base: A folder the caller trusts (``Recall/``, checked not to be a link).
        parts: The folders below it, then the file's name; none may be a link.
        limit: The most bytes the file may hold, or None for any size.

    Returns:
        An open descriptor of a regular file; the caller closes it.

    Raises:
        NotAFileError: A part is a link, or the file is not a regular file.
        TooLargeError: The file holds more than ``limit`` bytes.
        OSError: The file cannot be opened (missing, no permission).
    """
    path = base.joinpath(*parts)
    try:
        descriptor = _open_below(base, parts)
    except OSError as error:
        # A link where a folder or the file was expected: ELOOP, or ENOTDIR for a folder
        # opened with O_DIRECTORY | O_NOFOLLOW on some systems.
        if error.errno in {errno.ELOOP, errno.ENOTDIR, errno.EMLINK, errno.ENXIO}:
            raise NotAFileError(path) from None
        raise
    try:
        found = os.fstat(descriptor)
        if not stat.S_ISREG(found.st_mode):
            raise NotAFileError(path)
        if limit is not None and found.st_size > limit:
            raise TooLargeError(path, found.st_size, limit)
    except BaseException:
        os.close(descriptor)
        raise
    return descriptor


def _open_below(base: Path, parts: tuple[str, ...]) -> int:
    if os.open in os.supports_dir_fd and _DIRECTORY:
        # Each folder relative to the one opened before: none can be swapped for a link
        # between a check and the open.
        folder = os.open(base, os.O_RDONLY | _CLOEXEC | _DIRECTORY)
        try:
            for part in parts[:-1]:
                inner = os.open(part, _FOLDER_FLAGS, dir_fd=folder)
                os.close(folder)
                folder = inner
            return os.open(parts[-1], _FILE_FLAGS, dir_fd=folder)
        finally:
            os.close(folder)
    path = base
    for part in parts[:-1]:
        path = path / part
        if not stat.S_ISDIR(os.lstat(path).st_mode):
            raise NotAFileError(path)
    return os.open(path / parts[-1], _FILE_FLAGS)


def reading(base: Path, parts: tuple[str, ...], limit: int | None = None) -> io.BufferedReader:
    """``open_file`` as a buffered binary file (a context manager that closes it).

    Raises:
        NotAFileError, TooLargeError, OSError: As ``open_file``.
    """
    descriptor = open_file(base, parts, limit)
    try:
        return os.fdopen(descriptor, "rb")  # O_NONBLOCK changes nothing for a regular file
    except BaseException:
        with contextlib.suppress(OSError):
            os.close(descriptor)
        raise
