"""Writing a named file: all or nothing for a regular file, straight through for a pipe."""

from __future__ import annotations

import os
import stat
import threading
from pathlib import Path
from typing import IO

import pytest

from recall.core.errors import RecallError
from recall.host.files import write_text


def _lines(out: IO[str]) -> int:
    out.write("a,b\n1,2\n")
    return 2


def test_a_new_file_is_written_whole_with_the_umask_permissions(tmp_path: Path) -> None:
    target = tmp_path / "log.csv"
    old = os.umask(0o022)
    try:
        assert write_text(target, _lines) == 2
    finally:
        os.umask(old)
    assert target.read_text() == "a,b\n1,2\n"
    assert stat.S_IMODE(target.stat().st_mode) == 0o644
    assert sorted(path.name for path in tmp_path.iterdir()) == ["log.csv"]


def test_a_replaced_file_keeps_its_permissions(tmp_path: Path) -> None:
    target = tmp_path / "log.csv"
    target.write_text("old")
    target.chmod(0o640)
    write_text(target, _lines)
    assert target.read_text() == "a,b\n1,2\n"
    assert stat.S_IMODE(target.stat().st_mode) == 0o640


def test_a_failure_leaves_the_old_file_and_no_partial_one(tmp_path: Path) -> None:
    target = tmp_path / "log.csv"
    target.write_text("old")

    def half(out: IO[str]) -> int:
        out.write("a,b\n")
        raise RecallError("the history could not be read")

    with pytest.raises(RecallError, match="could not be read"):
        write_text(target, half)
    assert target.read_text() == "old"
    assert sorted(path.name for path in tmp_path.iterdir()) == ["log.csv"]


def test_a_link_to_a_fifo_is_written_through_not_replaced(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    link = tmp_path / "stdout"
    link.symlink_to(fifo)
    received: list[str] = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_text()))
    reader.start()
    assert write_text(link, _lines) == 2
    reader.join(10)
    assert received == ["a,b\n1,2\n"]
    assert link.is_symlink()
    assert stat.S_ISFIFO(fifo.stat().st_mode)


def test_a_folder_is_not_replaced(tmp_path: Path) -> None:
    with pytest.raises(RecallError, match="it is a folder; name a file in it"):
        write_text(tmp_path, _lines)
    assert tmp_path.is_dir()
    assert list(tmp_path.iterdir()) == []


def test_a_missing_folder_is_named_in_the_message(tmp_path: Path) -> None:
    with pytest.raises(RecallError, match=r"cannot write .*nowhere/log\.csv"):
        write_text(tmp_path / "nowhere" / "log.csv", _lines)
