"""The window stays usable while an operation runs: menus open, studying goes on beside
work that only reads, and only what would conflict is off until it ends."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QMenu
from pytestqt.qtbot import QtBot

from recall.core.progress import Cancelled, Progress
from recall.storage import Database
from recall.ui.main_window import MainWindow
from tests.ui.test_review_window import DIGITS, reviews_in, right_position


@pytest.fixture
def release() -> Iterator[threading.Event]:
    """Lets the waiting work end; set at the end of the test whatever happened."""
    event = threading.Event()
    yield event
    event.set()


def waiting_work(release: threading.Event) -> Callable[[Progress, Cancelled], str]:
    def work(progress: Progress, _cancelled: Cancelled) -> str:
        progress(1, 2)
        release.wait(30)
        return "done"

    return work


def menu_named(window: MainWindow, title: str) -> QMenu:
    for action in window.menuBar().actions():
        menu = action.menu()
        if isinstance(menu, QMenu) and action.text().replace("&", "") == title:
            return menu
    raise AssertionError(f"no menu {title}")


# The offscreen platform cannot raise a popup or grab the keyboard for it; it still shows.
@pytest.mark.qt_log_ignore("^This plugin does not support (raise|grabbing the keyboard)")
def test_while_a_check_runs_menus_open_and_the_learner_studies(
    qtbot: QtBot, window: MainWindow, bundled: Database, release: threading.Event
) -> None:
    finished: list[str] = []
    assert window.operations.run(
        "Checking the database...",
        waiting_work(release),
        finished.append,
        failure="Check failed",
        cancellable=True,
    )
    dialog = window.operations.dialog
    assert dialog is not None
    qtbot.waitUntil(dialog.isVisible, timeout=5_000)
    assert dialog.windowModality() == Qt.WindowModality.NonModal
    assert QApplication.activeModalWidget() is None  # input still reaches the window

    # What would start a second operation is off; the rest of the window is not.
    for action in (
        window.menus.import_action,
        window.menus.export_action,
        window.menus.export_reviews_action,
        window.safekeeping.check_action,
        window.safekeeping.backups_action,
        window.options.deck_options_action,
    ):
        assert not action.isEnabled(), action.text()
    assert window.pages.isEnabled()
    assert all(action.isEnabled() for action in window.collection.editing_actions)

    study_menu = menu_named(window, "Study")
    study_menu.popup(window.mapToGlobal(window.rect().center()))
    qtbot.waitUntil(study_menu.isVisible, timeout=5_000)
    study_menu.close()

    window.menus.study_action.trigger()  # Study > Study Selected Deck, from the menu
    review = window.review
    assert review is not None
    assert window.pages.currentWidget() is review
    qtbot.keyClick(review, DIGITS[right_position(review) + 1])
    qtbot.keyClick(review, Qt.Key.Key_Space)
    assert len(reviews_in(bundled)) == 1  # the answer is stored while the check runs
    assert not finished

    release.set()
    qtbot.waitUntil(lambda: finished == ["done"], timeout=10_000)
    assert window.operations.dialog is None
    for action in (
        window.menus.import_action,
        window.safekeeping.check_action,
        window.safekeeping.backups_action,
    ):
        assert action.isEnabled(), action.text()


def test_a_restore_keeps_the_window_waiting(
    qtbot: QtBot, window: MainWindow, release: threading.Event
) -> None:
    finished: list[str] = []
    assert window.operations.run(
        "Restoring the backup...",
        waiting_work(release),
        finished.append,
        failure="Backups",
        replaces_database=True,
    )
    dialog = window.operations.dialog
    assert dialog is not None
    qtbot.waitUntil(dialog.isVisible, timeout=5_000)
    assert dialog.windowModality() == Qt.WindowModality.WindowModal
    assert QApplication.activeModalWidget() is dialog
    assert not window.pages.isEnabled()
    assert not window.menus.study_action.isEnabled()
    release.set()
    qtbot.waitUntil(lambda: finished == ["done"], timeout=10_000)
    assert window.pages.isEnabled()
    assert window.menus.study_action.isEnabled()
