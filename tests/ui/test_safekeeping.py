"""The window keeps reviews safe: failed saves, automatic backups, restore, one instance."""

from __future__ import annotations

import os
import socket
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from pytestqt.modeltest import ModelTester
from pytestqt.qtbot import QtBot

from recall.content.deck_format import ChoiceCard
from recall.safekeeping import backups
from recall.scheduling import Schedulers
from recall.storage import Database, contents
from recall.ui.application import open_database
from recall.ui.data.backups_dialog import BackupsDialog
from recall.ui.main_window import MainWindow
from recall.ui.review.view import Phase, ReviewView
from recall.ui.single_instance import SingleInstance, server_name
from tests.conftest import Clock, review_count, sqlite_limit
from tests.ui.conftest import FakePrompts

DIGITS = [getattr(Qt.Key, f"Key_{digit}") for digit in range(10)]


def studying(qtbot: QtBot, window: MainWindow) -> ReviewView:
    qtbot.keyClick(window.deck_list.table, Qt.Key.Key_Return)
    review = window.review
    assert review is not None
    return review


def answer(qtbot: QtBot, review: ReviewView) -> None:
    shown = review.shown
    assert shown is not None
    assert isinstance(shown.card, ChoiceCard)
    qtbot.keyClick(review, DIGITS[1])


def test_an_answer_that_cannot_be_saved_is_kept_on_screen_and_retried(
    qtbot: QtBot, window: MainWindow, bundled: Database, prompts: FakePrompts
) -> None:
    review = studying(qtbot, window)
    answer(qtbot, review)
    lift = sqlite_limit(bundled, "PRAGMA query_only = ON")
    prompts.answers = [True, False]  # Retry once (still read-only), then Cancel
    qtbot.keyClick(review, Qt.Key.Key_Space)
    assert [title for title, _ in prompts.asked] == ["Answer not saved"] * 2
    assert "read-only" in prompts.asked[0][1]
    assert review.phase is Phase.FEEDBACK
    assert review.answer is not None
    assert review_count(bundled.path) == 0

    lift()
    qtbot.keyClick(review, Qt.Key.Key_Space)
    assert review_count(bundled.path) == 1
    assert review.answer is None
    assert review.shown is not None


def test_closing_backs_up_what_changed(qtbot: QtBot, window: MainWindow, bundled: Database) -> None:
    review = studying(qtbot, window)
    answer(qtbot, review)
    qtbot.keyClick(review, Qt.Key.Key_Space)
    window.close()
    (made,) = backups.list_backups(backups.backup_folder(bundled))
    assert made.reviews == 1


def test_automatic_backups_run_every_30_minutes_only_after_changes(
    qtbot: QtBot, window: MainWindow, bundled: Database
) -> None:
    assert window.safekeeping.backup_timer.isActive()
    assert window.safekeeping.backup_timer.interval() == 30 * 60 * 1000
    window.safekeeping.backup_timer.timeout.emit()
    qtbot.waitUntil(lambda: not window.tasks.busy)
    assert len(backups.list_backups(backups.backup_folder(bundled))) == 1
    window.safekeeping.backup_timer.timeout.emit()  # nothing changed since
    qtbot.waitUntil(lambda: not window.tasks.busy)
    assert len(backups.list_backups(backups.backup_folder(bundled))) == 1


def test_backups_dialog_restores_after_confirmation(
    qtbot: QtBot,
    qtmodeltester: ModelTester,
    bundled: Database,
    clock: Clock,
    prompts: FakePrompts,
) -> None:
    early = backups.make_backup(bundled, clock())
    window_clock = clock
    dialog = BackupsDialog(bundled, Schedulers(), window_clock, prompts)
    qtbot.addWidget(dialog)
    connection = sqlite3.connect(bundled.path)
    connection.execute("UPDATE deck SET name = 'Renamed'")
    connection.commit()
    connection.close()
    clock.advance(minutes=5)
    dialog.refresh()
    qtmodeltester.check(dialog.model)
    assert dialog.model.backup_at(0).path == early

    prompts.answers = [False]
    assert not dialog.restore_selected()
    with bundled.transaction() as tx:
        assert tx.decks.get(1).name == "Renamed"

    prompts.answers = [True]
    with qtbot.waitSignal(dialog.restored):
        assert dialog.restore_selected()
    with bundled.transaction() as tx:
        assert tx.decks.get(1).name == "Activation Recomputation Tradeoffs"
    assert "Restored. Check: healthy" in prompts.told[-1][1]
    assert dialog.model.rowCount() == 2  # the safety copy made before restoring
    # The two rows hold the same cards; the column saying why tells them apart.
    whys = {dialog.model.index(row, 1).data() for row in range(2)}
    assert whys == {"Before restore", "Backup"}


@pytest.mark.parametrize("damage", ["whole file", "inner pages"])
def test_a_damaged_database_offers_the_newest_backup(
    bundled: Database, clock: Clock, prompts: FakePrompts, damage: str
) -> None:
    backups.make_backup(bundled, clock())
    bundled.close()
    if damage == "whole file":
        bundled.path.write_bytes(b"\0garbage" * 512)
    else:
        with bundled.path.open("r+b") as handle:
            handle.seek(4096 * 2)
            handle.write(bytes(range(256)) * 32)
    for companion in ("-wal", "-shm"):
        Path(f"{bundled.path}{companion}").unlink(missing_ok=True)
    prompts.answers = [True]
    reopened = open_database(bundled.path.parent, prompts)
    assert reopened is not None
    assert "Restore the newest backup" in prompts.asked[0][1]
    assert contents(reopened.path).cards == 8
    assert list(bundled.path.parent.glob("recall.sqlite3.damaged-*"))
    reopened.close()


def test_second_instance_asks_the_first_to_come_forward(qtbot: QtBot, tmp_path: Path) -> None:
    name = server_name(tmp_path)
    first = SingleInstance(name)
    assert first.listen()
    second = SingleInstance(name)
    with qtbot.waitSignal(first.activation_requested, timeout=3000):
        assert second.notify_running()
    assert not SingleInstance(server_name(tmp_path / "other")).notify_running()
    first.close()
    qtbot.wait(50)  # let the closed connection's events run while both objects exist


def listening(data_dir: Path) -> bool:
    """Whether a Recall answers for ``data_dir``: its socket exists and accepts."""
    address = Path(tempfile.gettempdir()) / f"{server_name(data_dir)}.sock"
    probe = socket.socket(socket.AF_UNIX)
    try:
        probe.connect(str(address))
    except OSError:
        return False
    finally:
        probe.close()
    return True


def test_a_second_launch_exits_and_leaves_the_first_running(qtbot: QtBot, tmp_path: Path) -> None:
    environment = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    command = [sys.executable, "-m", "recall", "--data-dir", str(tmp_path)]
    first = subprocess.Popen(command, env=environment, stderr=subprocess.DEVNULL)
    try:
        qtbot.waitUntil(lambda: listening(tmp_path), timeout=30_000)
        second = subprocess.run(
            command, env=environment, capture_output=True, text=True, timeout=30
        )
        assert second.returncode == 0
        assert "already running" in second.stderr
        assert first.poll() is None
    finally:
        first.terminate()
        first.wait(timeout=30)
