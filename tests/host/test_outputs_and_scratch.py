"""Writing named files: atomic for regular files, straight through for FIFOs and devices,
no leftovers on failure, the user's umask respected; scratch folders a killed run left."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from recall.collection import review_log
from recall.collection.exporting import ExportError, export_deck
from recall.collection.importing import import_files
from recall.core.errors import UnknownDeckError
from recall.host import workspace
from recall.host.files import OutputError, output_file
from recall.scheduling import Schedulers
from recall.storage import Database
from tests.conftest import DATA, Clock, answer_cards

ROOT = Path(__file__).resolve().parents[2]


def read_fifo(path: Path) -> tuple[threading.Thread, list[bytes]]:
    """A reader on a FIFO, as a shell pipe would be; its bytes land in the list."""
    received: list[bytes] = []

    def read() -> None:
        with path.open("rb") as reader:
            received.append(reader.read())

    thread = threading.Thread(target=read, daemon=True)
    thread.start()
    return thread, received


@pytest.mark.parametrize("suffix", [".csv", ".json", ".apkg"])
def test_a_symlink_to_a_fifo_is_written_through_not_replaced(
    bundled: Database, clock: Clock, tmp_path: Path, suffix: str
) -> None:
    answer_cards(bundled, clock, 2)
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    link = tmp_path / f"stdout{suffix}"  # like /dev/stdout -> /proc/self/fd/1 -> a pipe
    link.symlink_to(fifo)
    thread, received = read_fifo(fifo)
    if suffix == ".csv":
        assert review_log.write_review_log(bundled, link) == 2
    else:
        assert export_deck(bundled, "activation-recompute", link) == 8
    thread.join(timeout=30)
    assert link.is_symlink()
    assert stat.S_ISFIFO(fifo.stat().st_mode)
    (data,) = received
    if suffix == ".csv":
        assert data.decode().splitlines()[0].startswith("card_id,review_time")
        assert len(data.decode().splitlines()) == 3
    elif suffix == ".json":
        assert b'"activation-recompute"' in data
    else:
        assert data.startswith(b"PK")
    assert sorted(path.name for path in tmp_path.iterdir() if path.name.startswith(".")) == []


def test_a_regular_file_is_replaced_atomically_and_keeps_its_mode(
    bundled: Database, clock: Clock, tmp_path: Path
) -> None:
    answer_cards(bundled, clock, 1)
    target = tmp_path / "out" / "reviews.csv"
    target.parent.mkdir()
    target.write_text("old\n")
    target.chmod(0o600)
    link = tmp_path / "link.csv"
    link.symlink_to(target)
    assert review_log.write_review_log(bundled, link) == 1
    assert link.is_symlink()  # the link stays; the file it names is replaced
    assert target.read_text().startswith("card_id,")
    assert stat.S_IMODE(target.stat().st_mode) == 0o600
    assert sorted(p.name for p in target.parent.iterdir()) == ["reviews.csv"]


def test_new_files_follow_the_umask(bundled: Database, tmp_path: Path) -> None:
    old = os.umask(0o027)
    try:
        review_log.write_review_log(bundled, tmp_path / "reviews.csv")
        export_deck(bundled, "activation-recompute", tmp_path / "deck.json")
        export_deck(bundled, "activation-recompute", tmp_path / "deck.apkg")
    finally:
        os.umask(old)
    for name in ("reviews.csv", "deck.json", "deck.apkg"):
        assert stat.S_IMODE((tmp_path / name).stat().st_mode) == 0o640, name


def test_a_failed_export_leaves_nothing_behind(bundled: Database, tmp_path: Path) -> None:
    target = tmp_path / "out" / "reviews.csv"
    target.parent.mkdir()
    target.write_text("kept\n")
    with pytest.raises(UnknownDeckError):
        review_log.write_review_log(bundled, target, "no-such-deck")
    assert target.read_text() == "kept\n"
    assert sorted(p.name for p in target.parent.iterdir()) == ["reviews.csv"]
    # A folder as the target (as `recall export-reviews /tmp` names one): refused, and no
    # temporary file appears in its parent.
    before = sorted(p.name for p in tmp_path.iterdir())
    with pytest.raises(OutputError, match="is a folder"):
        review_log.write_review_log(bundled, target.parent)
    (tmp_path / "folder.json").mkdir()
    with pytest.raises(ExportError, match="is a folder"):
        export_deck(bundled, "activation-recompute", tmp_path / "folder.json")
    with pytest.raises(ExportError, match="is a folder"):
        export_deck(bundled, "activation-recompute", tmp_path / "folder.json")
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([*before, "folder.json"])
    assert list((tmp_path / "folder.json").iterdir()) == []
    with pytest.raises(OutputError, match="no file name"), output_file(Path(" ")):
        pass


def test_a_write_that_fails_part_way_removes_its_temporary_file(tmp_path: Path) -> None:
    target = tmp_path / "file.bin"

    def write_half() -> None:
        with output_file(target) as stream:
            stream.write(b"half")
            raise RuntimeError("stopped")

    with pytest.raises(RuntimeError):
        write_half()
    assert list(tmp_path.iterdir()) == []


def test_leftovers_of_a_killed_import_are_removed_by_the_next(
    database: Database, clock: Clock
) -> None:
    data_dir = database.path.parent
    leftover = workspace.tmp_dir(data_dir) / "import-killed"
    leftover.mkdir(parents=True)
    (leftover / ".collection-x.anki2").write_bytes(b"\0" * 1000)
    import_files(database, Schedulers(), [DATA / "decks" / "tiny.json"], clock())
    assert not list(workspace.tmp_dir(data_dir).iterdir())


HOLDER = """
import sys, time
from pathlib import Path
from recall.host import workspace
with workspace.work_folder(Path(sys.argv[1]), "import") as folder:
    (folder / "collection.anki2").write_bytes(b"x")
    print(folder, flush=True)
    sys.stdin.read()
"""


def test_a_running_import_keeps_its_files_and_a_killed_ones_are_removed(tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    process = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(data_dir)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    )
    assert process.stdout is not None
    assert process.stdin is not None
    running = Path(process.stdout.readline().strip())
    try:
        assert workspace.remove_leftovers(data_dir) == []
        with workspace.work_folder(data_dir, "import") as mine:
            assert mine.is_dir()
        assert (running / "collection.anki2").exists()
    finally:
        process.kill()  # kill -9: it cannot clean up after itself
        process.wait(timeout=30)
        process.stdin.close()
        process.stdout.close()
    assert running.exists()
    with workspace.work_folder(data_dir, "import"):
        assert not running.exists()  # the next run removed what the killed one left
