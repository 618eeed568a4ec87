"""A job on the task runner runs without automatic garbage collection; it comes back after."""

from __future__ import annotations

import gc
import threading
from functools import partial

import shiboken6
from PySide6.QtCore import QObject
from pytestqt.qtbot import QtBot

from recall.ui.tasks import TaskRunner


def test_no_collection_starts_while_a_job_runs_and_they_come_back_after(qtbot: QtBot) -> None:
    assert gc.isenabled()
    runner = TaskRunner()
    seen: list[bool] = []
    runner.run(gc.isenabled, seen.append)
    qtbot.waitUntil(lambda: bool(seen), timeout=10_000)
    assert seen == [False]  # on the worker: none would start there
    assert gc.isenabled()


def test_overlapping_runners_enable_the_collector_again_when_the_last_job_ends(
    qtbot: QtBot,
) -> None:
    first, second = TaskRunner(), TaskRunner()
    seen: list[str] = []
    first.run(lambda: "first", seen.append)
    second.run(lambda: "second", seen.append)
    assert not gc.isenabled()
    qtbot.waitUntil(lambda: len(seen) == 2, timeout=10_000)
    assert gc.isenabled()


def test_a_collector_off_before_stays_off(qtbot: QtBot) -> None:
    gc.disable()
    try:
        runner = TaskRunner()
        seen: list[int] = []
        runner.run(lambda: 1, seen.append)
        qtbot.waitUntil(lambda: seen == [1], timeout=10_000)
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_no_collection_runs_on_a_worker_thread_even_as_its_job_ends(qtbot: QtBot) -> None:
    """The collector comes back on the window's thread: a collection on a worker could
    free the window's Qt objects there. With the threshold at its lowest, any allocation
    a worker made after the collector was enabled again would start one there."""
    window_thread = threading.get_ident()
    threads: list[int] = []

    def record(phase: str, _info: dict[str, int]) -> None:
        if phase == "start":
            threads.append(threading.get_ident())

    def work(index: int) -> list[object]:
        garbage: list[object] = []
        for _ in range(200):
            cycle: list[object] = []
            cycle.append(cycle)
            garbage.append({"index": index, "cycle": cycle})
        return garbage

    runner = TaskRunner()
    results: list[object] = []
    thresholds = gc.get_threshold()
    gc.callbacks.append(record)
    gc.set_threshold(1, 1, 1)
    try:
        for index in range(20):
            runner.run(partial(work, index), results.append)
        qtbot.waitUntil(lambda: len(results) == 20, timeout=20_000)
        runner.wait()
        gc.collect()
    finally:
        gc.set_threshold(*thresholds)
        gc.callbacks.remove(record)
    assert threads, "the window's thread collected as usual"
    assert set(threads) == {window_thread}
    assert gc.isenabled()


def test_a_wait_that_saw_every_job_end_lets_the_collector_run_before_their_callbacks(
    qtbot: QtBot,
) -> None:
    """As a closing window does: it waits for its jobs, and their callbacks never come."""
    runner = TaskRunner()
    seen: list[object] = []
    runner.run(lambda: 1, seen.append)
    assert not gc.isenabled()  # queued: the collector waits
    assert runner.wait(10_000)
    assert gc.isenabled()
    assert seen == []
    qtbot.waitUntil(lambda: seen == [1], timeout=10_000)  # the callback still comes, once
    assert gc.isenabled()


def test_a_runner_gone_with_callbacks_undelivered_lets_the_collector_run(qtbot: QtBot) -> None:
    owner = QObject()
    runner = TaskRunner(owner)
    runner.run(lambda: None)
    # The pool itself, not the runner's wait (which would let go of the collector): the
    # job has ended on the worker, its callback is still to come.
    assert runner._pool.waitForDone(10_000)
    assert not gc.isenabled()
    shiboken6.delete(owner)  # the window goes, its runner with it, before the event loop ran
    assert gc.isenabled()
