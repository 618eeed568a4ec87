"""A job on the task runner runs without automatic garbage collection; it comes back after."""

from __future__ import annotations

import gc

from pytestqt.qtbot import QtBot

from recall.ui.tasks import TaskRunner, collections_paused


def test_no_collection_starts_while_a_job_runs_and_they_come_back_after(qtbot: QtBot) -> None:
    assert gc.isenabled()
    runner = TaskRunner()
    seen: list[bool] = []
    runner.run(gc.isenabled, seen.append)
    qtbot.waitUntil(lambda: bool(seen), timeout=10_000)
    assert seen == [False]  # on the worker: none would start there
    assert gc.isenabled()


def test_overlapping_blocks_enable_the_collector_again_when_the_last_ends() -> None:
    assert gc.isenabled()
    with collections_paused():
        with collections_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()
    assert gc.isenabled()


def test_a_collector_off_before_stays_off() -> None:
    gc.disable()
    try:
        with collections_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()
    finally:
        gc.enable()
