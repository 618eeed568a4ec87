"""Sync in the window: Preferences chooses the folder, Ctrl+Y syncs, the deck list follows."""

from __future__ import annotations

from functools import partial
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QProgressBar, QPushButton
from pytestqt.qtbot import QtBot

from recall.changes.cards import Changes
from recall.collection import importing, opening
from recall.content.deck_format import parse_deck
from recall.core.preferences import Preferences
from recall.scheduling import Schedulers
from recall.storage import Database
from recall.sync import settings
from recall.sync.rounds import sync
from recall.ui.application import configure, window_state
from recall.ui.main_window import MainWindow
from recall.ui.options.preferences_dialog import PreferencesDialog
from tests.conftest import DATA, ZONE, Clock
from tests.helpers.sync_devices import large_history, read_only
from tests.sync.test_sync_progress import dump
from tests.ui.conftest import FakePrompts, WindowFactory, tooltip_text


def _other_device_with_tiny(tmp_path: Path, shared: Path, clock: Clock) -> None:
    other = Database(tmp_path / "laptop" / "recall.sqlite3")
    try:
        tiny = parse_deck((DATA / "decks" / "tiny.json").read_text(), "tiny.json")
        importing.import_deck(other, tiny, clock())
        sync(other, clock(), shared, "laptop")
    finally:
        other.close()


def test_without_a_folder_sync_now_says_where_to_choose_one(
    qtbot: QtBot, window: MainWindow
) -> None:
    assert window.sync.label.text() == "Sync off"
    assert "Edit > Preferences > Sync folder" in tooltip_text(window.sync.label.toolTip())
    qtbot.keyClick(window, Qt.Key.Key_Y, Qt.KeyboardModifier.ControlModifier)
    assert "Preferences" in window.statusBar().currentMessage()


def test_a_folder_chosen_in_preferences_then_sync_now_brings_the_other_devices_deck(
    qtbot: QtBot,
    make_window: WindowFactory,
    bundled: Database,
    tmp_path: Path,
    clock: Clock,
    prompts: FakePrompts,
) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    _other_device_with_tiny(tmp_path, shared, clock)
    window = make_window()
    dialog = PreferencesDialog(bundled, prompts, window)
    qtbot.addWidget(dialog)
    dialog.sync.folder.setText(str(shared))
    dialog.sync.name.setText("desktop")
    dialog.buttons.button(dialog.buttons.StandardButton.Save).click()
    assert prompts.told == []
    assert window.deck_list.model.row_of("tiny") is None
    window.sync.sync_action.trigger()  # File > Sync Now
    assert window.operations.busy
    assert not window.sync.sync_action.isEnabled()  # one round at a time
    qtbot.waitUntil(lambda: not window.operations.busy, timeout=20_000)
    # The deck list's counts are read on the task runner's thread, then shown.
    qtbot.waitUntil(lambda: window.deck_list.model.row_of("tiny") is not None, timeout=10_000)
    assert window.sync.label.text().startswith("Synced ")
    assert window.sync.label.text().endswith("· 2 devices")
    assert window.sync.sync_action.isEnabled()
    assert "laptop" in tooltip_text(window.sync.label.toolTip())
    assert "received" in window.statusBar().currentMessage()


def test_a_folder_that_does_not_exist_is_refused_with_words(
    qtbot: QtBot, window: MainWindow, bundled: Database, tmp_path: Path, prompts: FakePrompts
) -> None:
    dialog = PreferencesDialog(bundled, prompts, window)
    qtbot.addWidget(dialog)
    dialog.sync.folder.setText(str(tmp_path / "nowhere"))
    dialog.buttons.button(dialog.buttons.StandardButton.Save).click()
    assert prompts.told
    assert "does not exist" in prompts.told[0][1]
    assert window.sync.label.text() == "Sync off"


def test_saving_preferences_with_a_new_folder_syncs_at_once(
    qtbot: QtBot, window: MainWindow, bundled: Database, tmp_path: Path, clock: Clock
) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    _other_device_with_tiny(tmp_path, shared, clock)
    settings.choose(bundled, shared, "desktop", clock())
    window.options.preferences_saved.emit(window.preferences)  # as Preferences' Save does
    qtbot.waitUntil(lambda: window.deck_list.model.row_of("tiny") is not None, timeout=20_000)
    qtbot.waitUntil(lambda: not window.operations.busy, timeout=20_000)
    assert window.sync.label.text().startswith("Synced ")


def test_the_keys_work_on_the_deck_list_after_the_sync_at_launch(
    qtbot: QtBot, make_window: WindowFactory, bundled: Database, tmp_path: Path, clock: Clock
) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    settings.choose(bundled, shared, "desktop", clock())
    window = make_window()
    # The round at launch (seen by its end, however quickly it ran), then the keyboard back.
    qtbot.waitUntil(lambda: settings.status(bundled).last_sync is not None, timeout=20_000)
    qtbot.waitUntil(lambda: not window.operations.busy, timeout=20_000)
    qtbot.waitUntil(lambda: QApplication.focusWidget() is window.deck_list.table, timeout=5_000)
    qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_Return)
    assert window.review is not None
    assert window.pages.currentWidget() is window.review


def test_choosing_another_folder_syncs_at_once_too(
    qtbot: QtBot, window: MainWindow, bundled: Database, tmp_path: Path, clock: Clock
) -> None:
    first = tmp_path / "first"
    first.mkdir()
    settings.choose(bundled, first, "desktop", clock())
    window.options.preferences_saved.emit(window.preferences)
    qtbot.waitUntil(lambda: not window.operations.busy, timeout=20_000)
    assert settings.status(bundled).last_sync is not None
    shared = tmp_path / "shared"
    shared.mkdir()
    _other_device_with_tiny(tmp_path, shared, clock)
    settings.choose(bundled, shared, "desktop", clock())
    window.options.preferences_saved.emit(window.preferences)  # as Preferences' Save does
    qtbot.waitUntil(lambda: window.deck_list.model.row_of("tiny") is not None, timeout=20_000)
    qtbot.waitUntil(lambda: not window.operations.busy, timeout=20_000)


def test_a_timed_sync_that_fails_says_so_in_the_status_bar_not_in_a_box(
    qtbot: QtBot,
    window: MainWindow,
    bundled: Database,
    tmp_path: Path,
    clock: Clock,
    prompts: FakePrompts,
) -> None:
    shared = tmp_path / "usb-stick"
    shared.mkdir()
    settings.choose(bundled, shared, "desktop", clock())
    shared.rename(tmp_path / "unplugged")
    window.sync.timer.timeout.emit()
    qtbot.waitUntil(lambda: not window.operations.busy, timeout=20_000)
    assert prompts.told == []
    assert "Sync failed" in window.statusBar().currentMessage()
    assert "does not exist" in window.statusBar().currentMessage()


def test_cancel_during_a_large_first_sync_stops_it_and_changes_nothing(
    qtbot: QtBot, window: MainWindow, bundled: Database, tmp_path: Path, clock: Clock
) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    settings.choose(bundled, shared, "desktop", clock())
    sync(bundled, clock())  # this computer's own first round, before the others' files came
    large_history(shared, 3_000, clock())
    before = dump(bundled)
    texts: list[str] = []
    values: list[int] = []

    def on_described(text: str) -> None:
        texts.append(text)
        dialog = window.operations.dialog
        assert dialog is not None
        assert dialog.labelText() == text  # the dialog says what the round does now
        if text.startswith("Rescheduling"):
            cancel = dialog.findChild(QPushButton)
            assert cancel is not None
            assert cancel.text() == "Cancel"
            cancel.click()

    window.operations.described.connect(on_described)
    window.sync.sync_action.trigger()
    dialog = window.operations.dialog
    assert dialog is not None
    bar = dialog.findChild(QProgressBar)
    assert bar is not None
    bar.valueChanged.connect(values.append)
    qtbot.waitUntil(lambda: not window.operations.busy, timeout=60_000)
    assert any(text.startswith("Reading laptop's changes") for text in texts)
    assert "Rescheduling 3,000 cards from their history..." in texts
    assert len(set(values)) > 3  # progress moved by work done, not in three coarse steps
    assert dump(bundled) == before
    assert window.deck_list.model.row_of("large") is None


def test_a_folder_this_computer_cannot_write_is_said_in_the_status_line(
    qtbot: QtBot, window: MainWindow, bundled: Database, tmp_path: Path, clock: Clock
) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    _other_device_with_tiny(tmp_path, shared, clock)
    settings.choose(bundled, shared, "desktop", clock())
    own = shared / "Recall" / sync(bundled, clock()).device[0]
    with bundled.transaction() as transaction:
        card = transaction.cards.of_deck(transaction.browsing.decks()[0].id)[0]
    Changes(bundled, Schedulers(), Preferences()).flag([card.id], 2)
    with read_only(own):
        window.sync.sync_action.trigger()
        qtbot.waitUntil(lambda: not window.operations.busy, timeout=20_000)
    label = window.sync.label
    assert label.text().startswith("Synced ")
    assert label.text().endswith("· your changes not sent")
    assert tooltip_text(label.toolTip()).startswith(
        "Sending failed: the sync folder is read-only here ("
    )
    assert "your changes are kept (1 change) and sent when it can be written" in tooltip_text(
        label.toolTip()
    )
    message = window.statusBar().currentMessage()
    assert message == (
        "Sending failed: the sync folder is read-only here. "
        "Your 1 change is kept and sent when it can be written."
    )
    window.sync.sync_action.trigger()  # writable again: sent, and the line says so no more
    qtbot.waitUntil(lambda: not window.operations.busy, timeout=20_000)
    assert "not sent" not in label.text()
    assert "Sending failed" not in tooltip_text(label.toolTip())


def _settled(window: MainWindow) -> bool:
    return not window.operations.busy and not window.tasks.busy


@pytest.mark.qt_log_ignore("^This plugin does not support propagateSizeHints")  # offscreen
def test_preferences_saved_with_a_newly_typed_folder_again_and_again(
    qtbot: QtBot,
    qapp: QApplication,
    tmp_path: Path,
    clock: Clock,
    schedulers: Schedulers,
    prompts: FakePrompts,
) -> None:
    """The step a crash was once seen after: a first folder typed in Preferences and saved,
    the first round made at once, each time on a fresh collection."""
    configure(qapp)
    for attempt in range(4):
        here = tmp_path / f"device{attempt}"
        shared = tmp_path / f"shared{attempt}"
        shared.mkdir()
        database = Database(here / "recall.sqlite3")
        opening.install_bundled_decks(database, clock())
        window = MainWindow(
            database, window_state(here), clock, zone=ZONE, prompts=prompts, schedulers=schedulers
        )
        qtbot.addWidget(window)
        window.show()
        qtbot.waitExposed(window)
        window.options.preferences_action.trigger()
        dialog = window.options.preferences_dialog
        assert dialog is not None
        qtbot.waitExposed(dialog)
        qtbot.keyClicks(dialog.sync.folder, str(shared))
        qtbot.keyClick(dialog.sync.folder, Qt.Key.Key_Return)  # Save is the default button
        assert not dialog.isVisible()
        qtbot.waitUntil(partial(_settled, window))
        assert window.sync.label.text().startswith("Synced "), attempt
        assert prompts.told == []
        window.close()
        database.close()
