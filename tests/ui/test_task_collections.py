"""A job on the task runner runs without full garbage collections; they come back after."""

from __future__ import annotations

import gc

from pytestqt.qtbot import QtBot

from recall.ui.tasks import TaskRunner, full_collections_postponed


def test_full_collections_wait_while_a_job_runs_and_come_back_after(qtbot: QtBot) -> None:
    before = gc.get_threshold()
    runner = TaskRunner()
    seen: list[tuple[int, int, int]] = []
    runner.run(gc.get_threshold, seen.append)
    qtbot.waitUntil(lambda: bool(seen), timeout=10_000)
    young, middle, full = seen[0]
    assert (young, middle) == before[:2]  # the young collections go on
    assert full > 1_000_000 > before[2]
    assert gc.get_threshold() == before


def test_overlapping_blocks_restore_the_thresholds_when_the_last_ends() -> None:
    before = gc.get_threshold()
    with full_collections_postponed():
        with full_collections_postponed():
            assert gc.get_threshold()[2] > before[2]
        assert gc.get_threshold()[2] > before[2]
    assert gc.get_threshold() == before
