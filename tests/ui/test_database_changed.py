"""The database changed under the window, or cannot be opened: never a wrong card, never a bug.

A restore from the command line is refused while the window has the folder open; if the
database changes anyway (another program), the answer on screen is not stored on whatever
card now has its id. At start, a database that cannot be opened right now is never offered
a backup, and a damaged one is replaced only after the learner agrees.
"""

from __future__ import annotations

import hashlib
import sqlite3
import threading
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from recall.cli.main import main
from recall.collection import opening
from recall.collection.importing import import_files
from recall.safekeeping import backups
from recall.scheduling import Schedulers
from recall.storage import Database
from recall.ui.application import open_database
from recall.ui.main_window import MainWindow
from recall.ui.review.view import Phase
from recall.ui.single_instance import SingleInstance, server_name
from tests.conftest import DATA, Clock, review_count
from tests.helpers.disks import held
from tests.ui.conftest import FakePrompts
from tests.ui.test_safekeeping import answer, studying

TINY = DATA / "decks" / "tiny.json"


def other_ids_backup(tmp_path: Path, clock: Clock) -> Path:
    """A backup where another deck came first, so every card id names another card."""
    other = Database(tmp_path / "other" / "recall.sqlite3")
    import_files(other, Schedulers(), [DATA / "decks" / "tiny.json"], clock())
    opening.install_bundled_decks(other, clock())
    path = backups.make_backup(other, clock())
    other.close()
    return path


def test_restore_from_the_command_line_is_refused_while_the_window_is_open(
    qtbot: QtBot,
    window: MainWindow,
    bundled: Database,
    clock: Clock,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    backup = other_ids_backup(tmp_path, clock)
    instance = SingleInstance(server_name(bundled.path.parent))
    assert instance.listen()
    try:
        before = hashlib.sha256(bundled.path.read_bytes()).hexdigest()
        status = main(["--data-dir", str(bundled.path.parent), "restore", str(backup)])
        err = capsys.readouterr().err
    finally:
        instance.close()
    assert status == 1
    assert "a Recall window has" in err
    assert "File > Backups" in err
    assert hashlib.sha256(bundled.path.read_bytes()).hexdigest() == before
    qtbot.wait(50)


@pytest.mark.parametrize("step", ["rate", "undo"])
def test_an_answer_is_never_stored_on_a_card_that_replaced_the_one_shown(
    qtbot: QtBot,
    window: MainWindow,
    bundled: Database,
    clock: Clock,
    tmp_path: Path,
    prompts: FakePrompts,
    step: str,
) -> None:
    review = studying(qtbot, window)
    if step == "undo":
        answer(qtbot, review)
        qtbot.keyClick(review, Qt.Key.Key_Space)
        assert review.can_undo
    answer(qtbot, review)
    assert review.phase is Phase.FEEDBACK
    # Another program replaces the database under the window.
    outside = Database(bundled.path)
    backups.restore(outside, other_ids_backup(tmp_path, clock), Schedulers(), clock())
    outside.close()
    stored = review_count(bundled.path)

    if step == "rate":
        qtbot.keyClick(review, Qt.Key.Key_Space)
    else:
        window.menus.undo_action.trigger()

    assert review_count(bundled.path) == stored  # nothing stored on another card
    assert prompts.told[-1][0] == "Deck changed"
    assert "nothing was recorded" in prompts.told[-1][1]
    assert window.pages.currentWidget() is window.deck_list
    assert window.review is None


def test_a_database_that_cannot_be_opened_right_now_is_not_offered_a_backup(
    bundled: Database, clock: Clock, prompts: FakePrompts
) -> None:
    backups.make_backup(bundled, clock())
    bundled.close()
    with held(bundled.path, "PRAGMA journal_mode = DELETE", "BEGIN EXCLUSIVE"):
        # A short wait for the lock: how long Recall waits is not what this checks.
        assert open_database(bundled.path.parent, prompts, busy_timeout_ms=200) is None
    assert prompts.asked == []  # no "Restore the newest backup?"
    title, text = prompts.told[-1]
    assert title == "Recall cannot start"
    assert "in use by another program" in text
    assert "was not changed" in text
    assert not list(bundled.path.parent.glob("*.damaged-*"))
    reopened = open_database(bundled.path.parent, prompts)
    assert reopened is not None
    reopened.close()


def test_a_missing_database_is_offered_its_backup_and_set_aside_files_are_named(
    bundled: Database, clock: Clock, prompts: FakePrompts
) -> None:
    backups.make_backup(bundled, clock())
    bundled.close()
    bundled.path.unlink()
    prompts.answers = [False]
    assert open_database(bundled.path.parent, prompts) is None
    assert "missing" in prompts.asked[-1][1]
    assert not bundled.path.exists()  # declining starts nothing empty

    bundled.path.write_bytes(b"\0garbage" * 512)
    prompts.answers = [True]
    reopened = open_database(bundled.path.parent, prompts)
    assert reopened is not None
    reopened.close()
    (aside,) = bundled.path.parent.glob("recall.sqlite3.damaged-*")
    assert f"kept as {aside}" in prompts.told[-1][1]
    again = open_database(bundled.path.parent, prompts)
    assert again is not None
    again.close()
    assert f"set aside, not deleted: {aside}" in prompts.told[-1][1]


def test_a_database_from_a_newer_recall_is_left_alone_at_start(
    bundled: Database, clock: Clock, prompts: FakePrompts
) -> None:
    backups.make_backup(bundled, clock())
    bundled.close()
    connection = sqlite3.connect(bundled.path)
    connection.execute("PRAGMA user_version = 99")
    connection.close()
    assert open_database(bundled.path.parent, prompts) is None
    assert prompts.asked == []  # no backup is offered for it
    assert "made by a newer Recall" in prompts.told[-1][1]
    assert "right now" not in prompts.told[-1][1]


def test_an_import_from_the_terminal_appears_in_the_open_deck_list(
    qtbot: QtBot, window: MainWindow, bundled: Database, capsys: pytest.CaptureFixture[str]
) -> None:
    assert window.deck_list.model.row_of("tiny") is None
    assert not window.database_watcher.check()  # nothing changed yet
    assert main(["--data-dir", str(bundled.path.parent), "import", str(TINY)]) == 0
    capsys.readouterr()
    assert window.database_watcher.check()  # what its timer does every two seconds
    qtbot.waitUntil(lambda: window.deck_list.model.row_of("tiny") is not None, timeout=10_000)


def test_the_watch_never_waits_on_the_window_for_a_connection_another_thread_holds(
    qtbot: QtBot, window: MainWindow, bundled: Database, capsys: pytest.CaptureFixture[str]
) -> None:
    watched = bundled.watched()
    holding, release = threading.Event(), threading.Event()

    def hold() -> None:  # a task reading through the connection, waiting on something
        with watched.reading():
            holding.set()
            release.wait(30)

    holder = threading.Thread(target=hold)
    holder.start()
    try:
        assert holding.wait(10)
        assert main(["--data-dir", str(bundled.path.parent), "import", str(TINY)]) == 0
        capsys.readouterr()
        # Not read now (waiting would have lasted until the holder let go, and then seen
        # the import): looked at again at the next tick.
        assert not window.database_watcher.check()
    finally:
        release.set()
        holder.join(10)
    assert window.database_watcher.check()  # the next look sees the import
    qtbot.waitUntil(lambda: window.deck_list.model.row_of("tiny") is not None, timeout=10_000)
