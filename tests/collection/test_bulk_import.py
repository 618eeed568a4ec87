"""A bulk import (triggers lifted, their work done per set) stores exactly the rows the
row-by-row import stores: cards, search text, tags, history, schedules, sync events, notes
for ``recall check`` and the study-day counts' state."""

from __future__ import annotations

import gc
import random
import shutil
import sqlite3
from datetime import UTC, datetime
from pathlib import Path

import pytest

from recall.collection import importing
from recall.core import collector
from recall.core.collector import collector_paused
from recall.core.errors import ImportCancelledError
from recall.safekeeping import integrity
from recall.scheduling import Schedulers
from recall.storage import Database, bulk_rows
from recall.storage import cards as card_storage
from tests.helpers.anki_collections import make_packages
from tests.helpers.anki_packages import build_package, edit_collection

NOW = datetime(2026, 3, 1, 12, tzinfo=UTC)
# What two runs give differently whatever the path: SQLite's clock, a random mark, the
# outbox's order (the bulk path writes each set's rows after the block's others).
LEFT_OUT = {"sync_outbox": {"seq", "at"}, "replay_change": {"mark"}}


class _Seeds:
    """Card seeds drawn from one fixed sequence, so both imports give cards the same seeds."""

    def __init__(self) -> None:
        self._random = random.Random(26)

    def randbelow(self, limit: int) -> int:
        return self._random.randrange(limit)

    def token_bytes(self, size: int) -> bytes:
        return self._random.randbytes(size)


def _dump(path: Path) -> dict[str, list[tuple[object, ...]]]:
    """Every table's rows, sorted, less the columns in ``LEFT_OUT``."""
    connection = sqlite3.connect(path)
    try:
        tables = [
            name
            for (name,) in connection.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
            )
        ]
        dumped = {}
        for table in tables:
            columns = [
                row[1]
                for row in connection.execute(f"PRAGMA table_info({table})")
                if row[1] not in LEFT_OUT.get(table, set())
            ]
            rows = connection.execute(f"SELECT {', '.join(columns)} FROM {table}").fetchall()
            dumped[table] = sorted(rows, key=repr)
        triggers = connection.execute(
            "SELECT name, sql FROM sqlite_master WHERE type = 'trigger' ORDER BY name"
        ).fetchall()
        dumped["(triggers)"] = triggers
        dumped["(indexes)"] = connection.execute(
            "SELECT name, tbl_name, sql FROM sqlite_master WHERE type = 'index' ORDER BY name"
        ).fetchall()
        dumped["(integrity)"] = connection.execute("PRAGMA integrity_check").fetchall()
        return dumped
    finally:
        connection.close()


def _imported(
    folder: Path,
    files: list[Path],
    bulk: bool,
    monkeypatch: pytest.MonkeyPatch,
    first: Path | None = None,
) -> dict[str, list[tuple[object, ...]]]:
    """The database after importing each of ``files`` in turn (twice, the second time
    updating what the first added), ``bulk`` or row by row; after ``first``, if given,
    imported and checked beforehand (so check's notes are only the later imports')."""
    monkeypatch.setattr(card_storage, "secrets", _Seeds())
    folder.mkdir()
    database = Database(folder / "recall.sqlite3")
    try:
        if first is not None:
            importing.import_files(database, Schedulers(), [first], NOW, bulk=bulk)
            assert integrity.check(database, Schedulers(), NOW).healthy
        for file in [*files, *files]:
            importing.import_files(database, Schedulers(), [file], NOW, bulk=bulk)
        dumped = _dump(folder / "recall.sqlite3")  # before check forgets its notes
        report = integrity.check(database, Schedulers(), NOW)
        assert report.healthy, report.problems
    finally:
        database.close()
    return dumped


@pytest.fixture(scope="module")
def anki_packages(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return make_packages(tmp_path_factory.mktemp("anki"))[1]


@pytest.mark.parametrize("kind", ["latest", "legacy"])
def test_bulk_import_with_history_stores_the_rows_row_by_row_stores(
    anki_packages: dict[str, Path], kind: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    files = [anki_packages[kind]]
    by_rows = _imported(tmp_path / "rows", files, False, monkeypatch)
    bulk = _imported(tmp_path / "bulk", files, True, monkeypatch)
    assert by_rows["review"], "the package brings its history"
    assert by_rows["sync_outbox"]
    assert by_rows["replay_change"]
    assert bulk == by_rows


@pytest.mark.parametrize("kind", ["latest", "legacy"])
def test_history_written_with_its_indexes_built_afterwards_stores_the_same_rows(
    anki_packages: dict[str, Path], kind: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    files = [anki_packages[kind]]
    monkeypatch.setattr(bulk_rows, "INDEXES_LIFTED_FROM", 10**9)
    by_rows = _imported(tmp_path / "rows", files, False, monkeypatch)
    monkeypatch.setattr(bulk_rows, "INDEXES_LIFTED_FROM", 1)
    lifted = _imported(tmp_path / "bulk", files, True, monkeypatch)
    assert by_rows["review"], "the package brings its history"
    assert lifted == by_rows


def test_bulk_import_without_history_stores_the_rows_row_by_row_stores(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "made").mkdir()
    files = [build_package(tmp_path / "made")]
    by_rows = _imported(tmp_path / "rows", files, False, monkeypatch)
    bulk = _imported(tmp_path / "bulk", files, True, monkeypatch)
    assert not by_rows["review"]
    assert by_rows["card"]
    assert by_rows["card_tag"]
    assert bulk == by_rows


def test_history_arriving_for_cards_already_there_stores_the_same_rows(
    anki_packages: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    without = tmp_path / "without-history.apkg"
    shutil.copyfile(anki_packages["legacy"], without)
    edit_collection(
        without,
        lambda connection: connection.execute("DELETE FROM revlog"),
        entry="collection.anki21",
    )
    files = [anki_packages["legacy"]]
    by_rows = _imported(tmp_path / "rows", files, False, monkeypatch, first=without)
    bulk = _imported(tmp_path / "bulk", files, True, monkeypatch, first=without)
    assert by_rows["review"]
    assert by_rows["replay_change"]
    assert bulk == by_rows


def test_a_bulk_import_stopped_halfway_leaves_the_database_as_it_was(
    anki_packages: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(card_storage, "secrets", _Seeds())
    (tmp_path / "made").mkdir()
    first = build_package(tmp_path / "made")
    database = Database(tmp_path / "recall.sqlite3")
    try:
        importing.import_files(database, Schedulers(), [first], NOW, bulk=True)
        before = _dump(tmp_path / "recall.sqlite3")
        asked: list[int] = []

        def counted() -> bool:
            asked.append(1)
            return False

        copy = tmp_path / "copy.sqlite3"
        counting = Database(copy)
        try:  # how often the import asks, so it can be stopped at its last question
            importing.import_files(
                counting,
                Schedulers(),
                [anki_packages["latest"]],
                NOW,
                bulk=True,
                cancelled=counted,
            )
        finally:
            counting.close()
        questions, asked = len(asked), []

        def cancelled() -> bool:
            asked.append(1)
            return len(asked) == questions  # every row written, the transaction not ended

        with pytest.raises(ImportCancelledError):
            importing.import_files(
                database,
                Schedulers(),
                [anki_packages["latest"]],
                NOW,
                cancelled=cancelled,
                bulk=True,
            )
        assert _dump(tmp_path / "recall.sqlite3") == before
        importing.import_files(database, Schedulers(), [anki_packages["latest"]], NOW, bulk=True)
        assert integrity.check(database, Schedulers(), NOW).healthy
    finally:
        database.close()


def test_the_collector_runs_again_once_the_last_import_ends() -> None:
    assert gc.isenabled()
    with collector_paused():
        with collector_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()
    assert gc.isenabled()
    gc.disable()
    try:
        with collector_paused():
            pass
        assert not gc.isenabled()  # paused by someone else before: left paused
    finally:
        gc.enable()


def test_an_import_ending_inside_a_task_leaves_the_collector_paused_for_the_task() -> None:
    """The task runner's pause and an import's share one count, whichever ends first."""
    assert gc.isenabled()
    with collector_paused():
        collector.pause()  # a job queued on the task runner meanwhile
    try:
        assert not gc.isenabled()  # the job still runs: no collection on its worker
    finally:
        collector.resume()
    assert gc.isenabled()
