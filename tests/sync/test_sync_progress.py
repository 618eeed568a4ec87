"""A long sync round says what it does, moves its progress by work done, and stops on
Cancel inside its long loops, leaving the database as it was."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from recall.core.errors import CancelledError
from recall.storage import Database
from recall.sync.rounds import sync
from tests.helpers.sync_devices import Device, large_history

START = datetime(2026, 11, 2, 8, 0, tzinfo=UTC)


def dump(database: Database) -> list[str]:
    """Every row of every table, as SQL."""
    with database.reading() as transaction:
        return list(transaction.sql.connection.iterdump())


def test_a_large_first_sync_says_what_it_does_and_moves_by_work_done(tmp_path: Path) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    reviews = large_history(shared, 3_000, START)
    desktop = Device(tmp_path, "desktop", shared)
    try:
        steps: list[tuple[int, int]] = []
        texts: list[str] = []
        report = sync(
            desktop.database,
            START,
            shared,
            "desktop",
            desktop.schedulers,
            progress=lambda done, total: steps.append((done, total)),
            describe=texts.append,
        )
        assert report.received["review"] == reviews
        assert any(text.startswith("Reading laptop's changes (") for text in texts)
        assert any(text.startswith("Reading importer's changes (") for text in texts)
        assert "Rescheduling 3,000 cards from their history..." in texts
        replay = [done for done, total in steps if total == 3_000]
        assert replay == sorted(replay)
        assert len(set(replay)) > 3
        assert replay[-1] == 3_000
        reading = [done for done, total in steps if total > 100_000]  # bytes
        assert len(set(reading)) > 3
        assert desktop.healthy(START) == []
    finally:
        desktop.close()


@pytest.mark.parametrize("stop_at", ["Reading laptop", "Rescheduling"])
def test_cancel_inside_a_step_leaves_the_database_as_it_was(tmp_path: Path, stop_at: str) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    desktop = Device(tmp_path, "desktop", shared)
    try:
        desktop.sync(START)  # the folder chosen, this computer's first round made
        large_history(shared, 3_000, START)
        before = dump(desktop.database)
        stopping = False

        def describe(text: str) -> None:
            nonlocal stopping
            stopping = stopping or text.startswith(stop_at)

        with pytest.raises(CancelledError):
            sync(
                desktop.database,
                START,
                shared,
                "desktop",
                desktop.schedulers,
                cancelled=lambda: stopping,
                describe=describe,
            )
        assert dump(desktop.database) == before
        assert desktop.sync(START).received["review"] == 9_000  # the next round does it all
    finally:
        desktop.close()
