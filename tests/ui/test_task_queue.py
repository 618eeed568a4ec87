"""Jobs queued on the task runner and no longer wanted are dropped before they start."""

from __future__ import annotations

import threading
from collections.abc import Callable

import pytest
from pytestqt.qtbot import QtBot

from recall.ui.main_window import MainWindow
from recall.ui.statistics import window as statistics_window
from recall.ui.statistics.window import StatisticsWindow
from recall.ui.tasks import TaskRunner
from tests.ui.test_statistics_window import open_statistics

pytestmark = pytest.mark.qt_log_ignore("^This plugin does not support (propagateSizeHints|raise)")


def hold(runner: TaskRunner) -> threading.Event:
    """Occupy the runner's worker until the returned event is set."""
    release = threading.Event()
    started = threading.Event()

    def held() -> None:
        started.set()
        release.wait(30)

    runner.run(held)
    assert started.wait(10)
    return release


def recorded(
    name: str, ran: list[str], called: list[str]
) -> tuple[Callable[[], None], Callable[[object], None], Callable[[Exception], None]]:
    """A job that notes that it ran, and callbacks that note which of them came."""
    return (
        lambda: ran.append(name),
        lambda _: called.append(name),
        lambda _: called.append(f"{name} failed"),
    )


def test_queued_jobs_dropped_never_run_and_the_running_one_finishes(qtbot: QtBot) -> None:
    runner = TaskRunner()
    ran: list[str] = []
    called: list[str] = []
    release = hold(runner)
    runner.run(lambda: None, lambda _: called.append("held"))
    for name in ("second", "third"):
        runner.run(*recorded(name, ran, called))
    assert runner.drop_queued() == 3
    assert runner.busy  # the held job is still running
    release.set()
    qtbot.waitUntil(lambda: not runner.busy, timeout=10_000)
    assert runner.wait(10_000)
    assert ran == []
    assert called == []
    runner.run(lambda: ran.append("after"), lambda _: called.append("after"))
    qtbot.waitUntil(lambda: called == ["after"], timeout=10_000)  # the runner goes on
    assert ran == ["after"]


def test_nothing_queued_nothing_dropped(qtbot: QtBot) -> None:
    runner = TaskRunner()
    assert runner.drop_queued() == 0
    done: list[int] = []
    runner.run(lambda: 7, done.append)
    qtbot.waitUntil(lambda: done == [7], timeout=10_000)
    assert runner.drop_queued() == 0
    assert not runner.busy


def counting(monkeypatch: pytest.MonkeyPatch, name: str, calls: list[str]) -> None:
    """Count the calls of one of the statistics window's figure functions."""
    real: Callable[..., object] = getattr(statistics_window, name)

    def counted(*args: object) -> object:
        calls.append(name)
        return real(*args)

    monkeypatch.setattr(statistics_window, name, counted)


def held_statistics(
    qtbot: QtBot, window: MainWindow, monkeypatch: pytest.MonkeyPatch, calls: list[str]
) -> tuple[StatisticsWindow, threading.Event]:
    """The statistics window once its first figures are in, its two schedules' figure
    functions counted in ``calls`` from now, and its runner held until the event is set."""
    statistics = open_statistics(qtbot, window)
    qtbot.waitUntil(lambda: not statistics.tasks.busy, timeout=10_000)
    counting(monkeypatch, "collect_forecast", calls)
    counting(monkeypatch, "collect_schedules", calls)
    return statistics, hold(statistics.tasks)


def test_switching_twice_computes_the_figures_once_for_the_last_choice(
    qtbot: QtBot, window: MainWindow, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[str] = []
    statistics, release = held_statistics(qtbot, window, monkeypatch, calls)
    statistics.set_period(91)
    statistics.set_period(365)
    with qtbot.waitSignal(statistics.loaded, timeout=10_000):
        release.set()
    qtbot.waitUntil(lambda: not statistics.tasks.busy, timeout=10_000)
    assert calls == ["collect_forecast", "collect_schedules"]  # for the year only
    shown = statistics.statistics
    assert shown is not None
    assert shown.period_days == 365


def test_closing_the_window_drops_the_figures_not_started(
    qtbot: QtBot, window: MainWindow, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[str] = []
    statistics, release = held_statistics(qtbot, window, monkeypatch, calls)
    statistics.refresh()
    statistics.close()
    assert statistics.tasks.busy  # the held job is still running
    release.set()
    qtbot.waitUntil(lambda: not statistics.tasks.busy, timeout=10_000)
    assert statistics.tasks.wait(10_000)
    assert calls == []
    with qtbot.waitSignal(statistics.forecast_shown, timeout=10_000):
        window.show_statistics()  # opened again: computed afresh
    assert calls[0] == "collect_forecast"
