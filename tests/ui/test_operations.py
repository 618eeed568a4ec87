"""Long work from the window: off its thread, with progress, Cancel, and errors in words."""

from __future__ import annotations

import sqlite3
import threading

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QPushButton
from pytestqt.qtbot import QtBot

from recall.core.errors import CancelledError, RecallError
from recall.core.progress import Cancelled, Progress
from recall.storage import Database
from recall.ui.main_window import MainWindow
from tests.ui.conftest import FakePrompts


def test_work_runs_off_the_window_thread_and_its_result_comes_back_on_it(
    qtbot: QtBot, window: MainWindow
) -> None:
    window_thread = threading.get_ident()
    seen: dict[str, int] = {}

    def work(progress: Progress, _cancelled: Cancelled) -> int:
        seen["worker"] = threading.get_ident()
        progress(1, 2)
        return 42

    results: list[int] = []

    def done(value: int) -> None:
        seen["done"] = threading.get_ident()
        results.append(value)

    assert window.operations.run("Working...", work, done, failure="Failed")
    qtbot.waitUntil(lambda: bool(results), timeout=10_000)
    assert results == [42]
    assert seen["worker"] != window_thread
    assert seen["done"] == window_thread
    assert not window.operations.busy
    assert window.pages.isEnabled()


def test_studying_waits_while_work_writes_cards_and_a_second_one_is_refused(
    qtbot: QtBot, window: MainWindow
) -> None:
    release = threading.Event()

    def work(_progress: Progress, _cancelled: Cancelled) -> None:
        release.wait(10)

    finished: list[object] = []
    assert window.operations.run(
        "Waiting...", work, finished.append, failure="Failed", writes_cards=True
    )
    assert not window.pages.isEnabled()
    assert not window.menus.study_action.isEnabled()
    assert not any(action.isEnabled() for action in window.collection.editing_actions)
    assert not window.menus.import_action.isEnabled()
    assert not window.safekeeping.check_action.isEnabled()
    assert window.menus.statistics_action.isEnabled()  # reading goes on
    assert not window.operations.run("Again...", work, finished.append, failure="Failed")
    release.set()
    qtbot.waitUntil(lambda: len(finished) == 1, timeout=10_000)
    assert window.pages.isEnabled()
    assert window.menus.study_action.isEnabled()
    assert all(action.isEnabled() for action in window.collection.editing_actions)
    assert window.safekeeping.check_action.isEnabled()


def test_a_slow_operation_shows_progress_and_cancel_stops_it(
    qtbot: QtBot, window: MainWindow, prompts: FakePrompts
) -> None:
    started = threading.Event()

    def work(progress: Progress, cancelled: Cancelled) -> None:
        started.set()
        for done in range(10_000):
            if cancelled():
                raise CancelledError
            progress(done, 10_000)
            threading.Event().wait(0.001)

    stopped: list[RecallError] = []
    window.operations.run(
        "Counting...",
        work,
        lambda _result: None,
        failure="Failed",
        cancellable=True,
        on_error=stopped.append,
    )
    dialog = window.operations.dialog
    assert dialog is not None
    qtbot.waitUntil(dialog.isVisible, timeout=5_000)
    qtbot.waitUntil(lambda: dialog.value() > 0, timeout=5_000)
    assert dialog.maximum() == 10_000
    cancel = dialog.findChild(QPushButton)
    assert cancel is not None
    assert cancel.text() == "Cancel"
    qtbot.mouseClick(cancel, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: bool(stopped), timeout=10_000)
    assert isinstance(stopped[0], CancelledError)
    assert prompts.told == []  # a cancellation is not a failure
    assert window.operations.dialog is None
    assert window.pages.isEnabled()


def test_an_error_the_learner_can_act_on_is_shown_in_words(
    qtbot: QtBot, window: MainWindow, prompts: FakePrompts
) -> None:
    def work(_progress: Progress, _cancelled: Cancelled) -> None:
        raise RecallError("the disk holding /somewhere is full")

    window.operations.run("Writing...", work, lambda _result: None, failure="Export failed")
    qtbot.waitUntil(lambda: bool(prompts.told), timeout=10_000)
    assert prompts.told == [("Export failed", "the disk holding /somewhere is full")]
    assert window.pages.isEnabled()


def test_check_database_reports_a_healthy_database(
    qtbot: QtBot, window: MainWindow, prompts: FakePrompts
) -> None:
    window.safekeeping.check_action.trigger()
    qtbot.waitUntil(lambda: bool(prompts.told), timeout=20_000)
    title, text = prompts.told[-1]
    assert title == "Check Database"
    assert "The database is healthy" in text
    assert "8 cards" in text


def test_check_database_finds_a_wrong_schedule_and_repairs_it_after_a_backup(
    qtbot: QtBot, window: MainWindow, prompts: FakePrompts, bundled: Database
) -> None:
    connection = sqlite3.connect(bundled.path)
    with connection:
        connection.execute(
            "UPDATE card_memory SET state = 2, due = 1, stability = 3.0 "
            "WHERE card_id = (SELECT min(id) FROM card)"
        )
    connection.close()
    prompts.answers.append(True)
    window.safekeeping.check_action.trigger()
    qtbot.waitUntil(lambda: len(prompts.told) == 1, timeout=30_000)
    question = prompts.asked[-1][1]
    assert "1 problem found" in question
    assert "differs from its history" in question
    title, text = prompts.told[-1]
    assert title == "Check Database"
    assert "Rebuilt 1 schedule from" in text
    assert "before-repair" in text
    assert "The database is healthy now." in text
    (backup,) = (bundled.path.parent / "backups").glob("*before-repair*")
    assert backup.stat().st_size > 0


def test_declining_the_repair_changes_nothing(
    qtbot: QtBot, window: MainWindow, prompts: FakePrompts, bundled: Database
) -> None:
    connection = sqlite3.connect(bundled.path)
    with connection:
        connection.execute(
            "UPDATE card_memory SET state = 2, due = 1, stability = 3.0 "
            "WHERE card_id = (SELECT min(id) FROM card)"
        )
    before = connection.execute("SELECT * FROM card_memory ORDER BY card_id").fetchall()
    connection.close()
    prompts.answers.append(False)
    window.safekeeping.check_action.trigger()
    qtbot.waitUntil(lambda: bool(prompts.asked), timeout=30_000)
    qtbot.waitUntil(lambda: not window.operations.busy, timeout=10_000)
    connection = sqlite3.connect(bundled.path)
    after = connection.execute("SELECT * FROM card_memory ORDER BY card_id").fetchall()
    connection.close()
    assert after == before
    assert not list((bundled.path.parent / "backups").glob("*before-repair*"))
