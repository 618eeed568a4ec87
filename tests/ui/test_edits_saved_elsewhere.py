"""An edit never silently replaces a version of the card saved elsewhere meanwhile.

While a card is open in the browser's editor or the review screen's Edit Card dialog, the
same card is changed through a connection of its own, as a sync, an import, another Recall
window or the command line writes the file. Saving then asks; No keeps the other version and
shows it, Yes saves over it and Undo brings it back. The browser's watcher reads such changes
in, but never over unsaved edits.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from recall.changes import editing
from recall.content.deck_format import ChoiceCard
from recall.core import i18n
from recall.storage import Database
from recall.ui.browser.window import CHANGED_WHILE_EDITING, BrowserWindow
from recall.ui.collection_actions import EditCardDialog
from recall.ui.edit_saving import CHANGED_QUESTION, CHANGED_TITLE, KEPT
from recall.ui.main_window import MainWindow
from tests.conftest import Clock
from tests.ui.conftest import FakePrompts
from tests.ui.test_review_window import start_studying

# The offscreen platform cannot raise or resize a second top-level window; it says so.
pytestmark = pytest.mark.qt_log_ignore("^This plugin does not support")

MINE = "Which wording did I choose here?"
THEIRS = "Which wording came from the other computer?"


@pytest.fixture
def browser(window: MainWindow) -> Iterator[BrowserWindow]:
    opened = window.collection.browse()
    opened.wait()
    # The tests look for changes themselves, as the watcher's timer does every two seconds.
    opened.database_watcher.timer.stop()
    yield opened
    opened.close()


def change_elsewhere(path: Path, card_id: int, clock: Clock, question: str) -> None:
    """Change a card's question through a database connection of its own."""
    other = Database(path)
    try:
        with other.reading() as transaction:
            data = editing.card_data(transaction.cards.get(card_id).content)
        editing.edit_card(other, card_id, {**data, "question": question}, clock())
    finally:
        other.close()


def stored(path: Path, card_id: int) -> dict[str, Any]:
    """The card's content as the file holds it, read without Recall."""
    connection = sqlite3.connect(path)
    try:
        (content,) = connection.execute("SELECT content FROM card WHERE id = ?", (card_id,))
    finally:
        connection.close()
    data: dict[str, Any] = json.loads(content[0])
    return data


def type_question(qtbot: QtBot, browser: BrowserWindow, text: str) -> None:
    browser.editor.question.selectAll()
    qtbot.keyClicks(browser.editor.question, text)
    assert browser.save_button.isEnabled()


def save(qtbot: QtBot, browser: BrowserWindow) -> None:
    qtbot.keyClick(browser.table, Qt.Key.Key_S, Qt.KeyboardModifier.ControlModifier)


def test_no_keeps_the_version_saved_elsewhere_and_the_editor_shows_it(
    qtbot: QtBot,
    window: MainWindow,
    browser: BrowserWindow,
    bundled: Database,
    clock: Clock,
    prompts: FakePrompts,
) -> None:
    (card_id,) = browser.selected_ids()
    type_question(qtbot, browser, MINE)
    change_elsewhere(bundled.path, card_id, clock, THEIRS)
    undo = window.collection.changes.undo_label
    prompts.answers = [False]
    save(qtbot, browser)
    assert prompts.asked == [(i18n.tr(CHANGED_TITLE), i18n.tr(CHANGED_QUESTION))]
    assert "Undo" in prompts.asked[0][1]
    assert stored(bundled.path, card_id)["question"] == THEIRS
    assert browser.editor.question.toPlainText() == THEIRS
    assert browser.model.data(browser.model.index(0, 0)) == THEIRS  # its row too
    assert browser.status.text() == i18n.tr(KEPT)
    assert not browser.save_button.isEnabled()
    assert window.collection.changes.undo_label == undo  # nothing to undo was added
    # The editor now holds the version kept: an edit of it saves without a question.
    type_question(qtbot, browser, MINE)
    save(qtbot, browser)
    assert len(prompts.asked) == 1
    assert stored(bundled.path, card_id)["question"] == MINE


def test_yes_saves_over_the_version_saved_elsewhere_and_undo_brings_it_back(
    qtbot: QtBot, browser: BrowserWindow, bundled: Database, clock: Clock, prompts: FakePrompts
) -> None:
    (card_id,) = browser.selected_ids()
    type_question(qtbot, browser, MINE)
    change_elsewhere(bundled.path, card_id, clock, THEIRS)
    prompts.answers = [True]
    save(qtbot, browser)
    assert len(prompts.asked) == 1
    assert stored(bundled.path, card_id)["question"] == MINE
    assert browser.status.text() == "Saved."
    assert not browser.save_button.isEnabled()
    browser.table.setFocus()
    qtbot.keyClick(browser.table, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    browser.wait()
    assert stored(bundled.path, card_id)["question"] == THEIRS
    assert browser.editor.question.toPlainText() == THEIRS


def test_a_change_elsewhere_is_read_in_but_never_over_unsaved_edits(
    qtbot: QtBot, browser: BrowserWindow, bundled: Database, clock: Clock, prompts: FakePrompts
) -> None:
    (card_id,) = browser.selected_ids()
    assert not browser.database_watcher.check()  # nothing changed yet
    # Nothing typed: the editor shows the other version as soon as it is seen.
    change_elsewhere(bundled.path, card_id, clock, THEIRS)
    assert browser.database_watcher.check()
    assert browser.editor.question.toPlainText() == THEIRS
    assert browser.model.data(browser.model.index(0, 0)) == THEIRS
    assert not browser.save_button.isEnabled()
    # Typed but not saved: the edit stays, and the status says saving will ask.
    type_question(qtbot, browser, MINE)
    change_elsewhere(bundled.path, card_id, clock, "A third wording?")
    assert browser.database_watcher.check()
    assert browser.editor.question.toPlainText() == MINE
    assert browser.save_button.isEnabled()
    assert browser.status.text() == i18n.tr(CHANGED_WHILE_EDITING)
    assert browser.model.data(browser.model.index(0, 0)) == "A third wording?"
    assert prompts.asked == []
    prompts.answers = [True]
    save(qtbot, browser)
    assert len(prompts.asked) == 1  # the version read in is still one saving asks about
    assert stored(bundled.path, card_id)["question"] == MINE


def test_no_question_when_nothing_changed_elsewhere(
    qtbot: QtBot, browser: BrowserWindow, bundled: Database, clock: Clock, prompts: FakePrompts
) -> None:
    first, second = browser.model.card_id(0), browser.model.card_id(1)
    type_question(qtbot, browser, MINE)
    change_elsewhere(bundled.path, second, clock, THEIRS)  # another card
    save(qtbot, browser)
    assert stored(bundled.path, first)["question"] == MINE
    assert browser.status.text() == "Saved."
    # The editor's own save moves the watcher's stamp too; the editor is left as it is.
    assert browser.database_watcher.check()
    assert browser.editor.question.toPlainText() == MINE
    type_question(qtbot, browser, "And once more?")
    save(qtbot, browser)
    assert stored(bundled.path, first)["question"] == "And once more?"
    # Elsewhere the very text typed here was saved: that is no conflict either.
    type_question(qtbot, browser, MINE)
    change_elsewhere(bundled.path, first, clock, MINE)
    save(qtbot, browser)
    assert prompts.asked == []
    assert stored(bundled.path, first)["question"] == MINE


def test_a_card_opens_in_the_editor_as_stored_now_not_as_the_search_found_it(
    qtbot: QtBot, browser: BrowserWindow, bundled: Database, clock: Clock, prompts: FakePrompts
) -> None:
    second = browser.model.card_id(1)
    change_elsewhere(bundled.path, second, clock, THEIRS)  # not seen by the watcher yet
    browser.table.setFocus()
    qtbot.keyClick(browser.table, Qt.Key.Key_Down)
    assert browser.selected_ids() == [second]
    assert browser.editor.question.toPlainText() == THEIRS
    type_question(qtbot, browser, MINE)
    save(qtbot, browser)
    assert prompts.asked == []  # the edit began from what is stored
    assert stored(bundled.path, second)["question"] == MINE


@pytest.mark.parametrize("replace", [False, True])
def test_the_review_screens_edit_asks_before_replacing_a_version_saved_elsewhere(
    qtbot: QtBot,
    window: MainWindow,
    bundled: Database,
    clock: Clock,
    prompts: FakePrompts,
    replace: bool,
) -> None:
    review = start_studying(qtbot, window)
    assert review.shown is not None
    card_id = review.shown.card_id
    before = window.collection.changes.undo_label

    def edit() -> None:
        dialog = QApplication.activeModalWidget()
        assert isinstance(dialog, EditCardDialog)
        dialog.editor.question.setPlainText(MINE)
        change_elsewhere(bundled.path, card_id, clock, THEIRS)  # while the dialog is open
        dialog._on_save()

    prompts.answers = [replace]
    QTimer.singleShot(0, edit)
    qtbot.keyClick(review, Qt.Key.Key_E)
    assert prompts.asked == [(i18n.tr(CHANGED_TITLE), i18n.tr(CHANGED_QUESTION))]
    assert prompts.told == []  # no refusal: the question was the answer
    shown = review.shown
    assert shown is not None
    assert shown.card_id == card_id
    assert isinstance(shown.card, ChoiceCard)
    if not replace:
        assert stored(bundled.path, card_id)["question"] == THEIRS
        assert shown.card.question == THEIRS
        assert window.statusBar().currentMessage() == i18n.tr(KEPT)
        assert window.collection.changes.undo_label == before
        return
    assert stored(bundled.path, card_id)["question"] == MINE
    assert shown.card.question == MINE
    assert window.statusBar().currentMessage() == "Card saved."
    assert window.collection.undo()
    assert stored(bundled.path, card_id)["question"] == THEIRS
