"""Hostile disks for tests: a full one, a read-only one, a database locked by another process.

A full disk is a small tmpfs when the test may mount one (root on Linux). Where it cannot,
``fill`` falls back to SQLite's own limit (``PRAGMA max_page_count``), which gives a real
SQLITE_FULL. A read-only folder is a read-only bind mount where that works, and otherwise
``chmod``, which holds for every user but root (root bypasses permission bits).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest


def _mount(*args: str) -> bool:
    if shutil.which("mount") is None or sys.platform != "linux":
        return False
    result = subprocess.run(["mount", *args], capture_output=True, check=False)
    return result.returncode == 0


def _unmount(target: Path) -> None:
    subprocess.run(["umount", "-l", str(target)], capture_output=True, check=False)


@contextmanager
def small_disk(folder: Path, size: str = "4m") -> Iterator[bool]:
    """Mount a tmpfs of ``size`` on ``folder``; yields False when mounting is not allowed."""
    folder.mkdir(parents=True, exist_ok=True)
    mounted = _mount("-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(folder))
    try:
        yield mounted
    finally:
        if mounted:
            _unmount(folder)


def fill(folder: Path) -> Path:
    """Fill the disk holding ``folder`` to the last byte; returns the filler file."""
    filler = folder / f"filler-{uuid.uuid4().hex}"
    descriptor = os.open(filler, os.O_WRONLY | os.O_CREAT, 0o600)
    try:
        for size in (65536, 512, 1):  # smaller writes take the last partial blocks too
            try:
                while os.write(descriptor, b"\0" * size):
                    pass
            except OSError:
                continue
    finally:
        os.close(descriptor)
    return filler


@contextmanager
def read_only(folder: Path) -> Iterator[str]:
    """Make ``folder`` read-only: a read-only bind mount, else ``chmod`` (not for root).

    Yields how: "mount" or "chmod".
    """
    if _mount("--bind", str(folder), str(folder)):
        if _mount("-o", "remount,ro,bind", str(folder)):
            try:
                yield "mount"
            finally:
                _unmount(folder)
            return
        _unmount(folder)
    if os.geteuid() == 0:
        pytest.skip("root without mount: permission bits do not stop root")
    mode = folder.stat().st_mode
    folder.chmod(0o555)
    for child in folder.iterdir():
        child.chmod(0o444)
    try:
        yield "chmod"
    finally:
        folder.chmod(mode)
        for child in folder.iterdir():
            child.chmod(0o644)


HOLDER = """
import sqlite3, sys, time
connection = sqlite3.connect(sys.argv[1], isolation_level=None)
for statement in sys.argv[2:]:
    connection.execute(statement)
print("holding", flush=True)
sys.stdin.read()
"""


@contextmanager
def held(path: Path, *statements: str) -> Iterator[subprocess.Popen[str]]:
    """Another process runs ``statements`` on the database and holds it until the block ends."""
    process = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(path), *statements],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None
    assert process.stdout.readline() == "holding\n"
    try:
        yield process
    finally:
        assert process.stdin is not None
        process.stdin.close()
        process.wait(timeout=30)
        process.stdout.close()
