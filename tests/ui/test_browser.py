"""The browser, the editor, Add Cards, the deck tree and the review keys, driven by keyboard."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QApplication, QDialog, QLineEdit
from pytestqt.modeltest import ModelTester
from pytestqt.qtbot import QtBot

from recall.collection import importing
from recall.content.deck_format import load_deck
from recall.safekeeping import integrity
from recall.scheduling import Scheduler, Schedulers
from recall.storage import Database
from recall.ui.browser.model import COLUMNS
from recall.ui.browser.window import BrowserWindow
from recall.ui.collection_actions import EditCardDialog
from recall.ui.main_window import MainWindow
from tests.conftest import DATA, Clock
from tests.helpers.collection import generate
from tests.ui.conftest import FakePrompts, WindowFactory
from tests.ui.test_review_window import DIGITS, right_position, start_studying

# The offscreen platform cannot raise or resize a second top-level window; it says so.
pytestmark = pytest.mark.qt_log_ignore("^This plugin does not support")


def healthy(database: Database, clock: Clock) -> None:
    report = integrity.check(database, Schedulers(fuzz=True), clock())
    assert report.healthy, report.problems


@pytest.fixture
def browser(qtbot: QtBot, window: MainWindow) -> Iterator[BrowserWindow]:
    opened = window.collection.browse()
    opened.wait()
    yield opened
    opened.close()


def search(qtbot: QtBot, browser: BrowserWindow, text: str) -> None:
    browser.search_box.clear()
    qtbot.keyClicks(browser.search_box, text)
    qtbot.keyClick(browser.search_box, Qt.Key.Key_Return)
    browser.wait()


def test_browser_shows_every_card_and_searches_as_typed(
    qtbot: QtBot, browser: BrowserWindow, clock: Clock
) -> None:
    assert browser.model.rowCount() == 8
    assert browser.status.text() == "8 cards"
    assert browser.selected_ids() == [browser.model.card_id(0)]
    qtbot.keyClicks(browser.search_box, "optimizer")
    # Typing searches after a short pause, without Enter.
    qtbot.waitUntil(lambda: browser.status.text() != "8 cards" and not browser.tasks.busy)
    browser.wait()
    found = browser.model.rowCount()
    assert 0 < found < 8
    assert all("optimizer" in browser.model.row_value(row).content.lower() for row in range(found))
    search(qtbot, browser, "is:dew")
    assert browser.model.rowCount() == 0
    # The search's error, written to go inside other words, stands as a sentence here.
    assert browser.status.text().startswith("Unknown `is:` value 'dew' at column 4; expected")
    assert browser.status.text().endswith(", leech.")
    # No card is listed, so none is left in the editor.
    assert browser.editor_title.text() == "Select a card to edit it."
    assert not browser.editor.isEnabled()


def test_a_search_asked_for_while_one_runs_is_made_after_it(browser: BrowserWindow) -> None:
    browser.search("is:new")
    browser.search("optimizer")  # the first is still running: this one waits its turn
    browser.wait()
    assert browser.search_box.text() == "optimizer"
    found = browser.model.rowCount()
    assert 0 < found < 8
    assert browser.status.text() == f"{found} cards"
    card_id = browser.model.card_id(found - 1)
    browser.search("is:new")
    browser.show_card(card_id, "is:new")  # the card chosen, not the first row
    browser.wait()
    assert browser.selected_ids() == [card_id]


def test_sidebar_builds_the_query(qtbot: QtBot, browser: BrowserWindow) -> None:
    item = browser.sidebar.item_for("is:new")
    assert item is not None
    browser.sidebar.query_chosen.emit("is:new", "")
    browser.wait()
    assert browser.search_box.text() == "is:new"
    browser.sidebar.query_chosen.emit("flag:3", "and")
    browser.wait()
    assert browser.search_box.text() == "is:new flag:3"
    assert browser.model.rowCount() == 0
    browser.sidebar.query_chosen.emit("is:new", "or")
    browser.wait()
    assert browser.search_box.text() == "(is:new flag:3) or is:new"
    assert browser.model.rowCount() == 8


def test_sorting_by_a_column_sorts_in_sql(qtbot: QtBot, browser: BrowserWindow) -> None:
    column = [key for key, _ in COLUMNS].index("question")
    browser.table.sortByColumn(column, Qt.SortOrder.AscendingOrder)
    browser.wait()
    questions = [browser.model.data(browser.model.index(row, 0)) for row in range(8)]
    assert questions == sorted(questions, key=lambda text: str(text).casefold())
    browser.table.sortByColumn(column, Qt.SortOrder.DescendingOrder)
    browser.wait()
    descending = [browser.model.data(browser.model.index(row, 0)) for row in range(8)]
    assert descending == list(reversed(questions))


def test_the_model_pages_rows_and_passes_the_model_tester(
    qtbot: QtBot,
    qtmodeltester: ModelTester,
    make_window: WindowFactory,
    bundled: Database,
    clock: Clock,
) -> None:
    generate(bundled, Scheduler(fuzz=True), clock())
    window = make_window()
    browser = window.collection.browse()
    browser.wait()
    total = len(browser.model.card_ids)
    assert total > 240
    assert browser.model.rowCount() == 200
    assert browser.model.canFetchMore()
    browser.table.scrollToBottom()
    qtbot.waitUntil(lambda: browser.model.rowCount() > 200)
    while browser.model.canFetchMore():
        browser.model.fetchMore()
    assert browser.model.rowCount() == total
    qtmodeltester.check(browser.model)
    browser.close()


def test_bulk_actions_by_key_and_ctrl_z(
    qtbot: QtBot, browser: BrowserWindow, bundled: Database, clock: Clock, prompts: FakePrompts
) -> None:
    before = _dump(bundled)
    browser.table.selectAll()
    ids = browser.selected_ids()
    table = browser.table
    qtbot.keyClick(table, Qt.Key.Key_J, Qt.KeyboardModifier.ControlModifier)
    assert _suspended(bundled) == len(ids)
    assert "Suspend 8 cards" in browser.status.text()
    qtbot.keyClick(table, Qt.Key.Key_2, Qt.KeyboardModifier.ControlModifier)
    assert _column(bundled, "SELECT DISTINCT flag FROM card") == [2]
    prompts.texts = ["exam later"]
    qtbot.keyClick(
        table, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier
    )
    browser.wait()
    assert browser.model.row_value(0).tags[-2:] in (("exam", "later"), ("later", "exam")) or {
        "exam",
        "later",
    } <= set(browser.model.row_value(0).tags)
    prompts.texts = ["3-7"]
    qtbot.keyClick(
        table, Qt.Key.Key_D, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier
    )
    assert _column(bundled, "SELECT DISTINCT kind FROM review") == [2]
    healthy(bundled, clock)
    for _ in range(4):
        qtbot.keyClick(table, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
        browser.wait()
    assert _dump(bundled) == before
    healthy(bundled, clock)


def test_move_forget_and_delete_ask_and_undo(
    qtbot: QtBot, browser: BrowserWindow, bundled: Database, clock: Clock, prompts: FakePrompts
) -> None:
    importing.import_deck(bundled, load_deck(DATA / "decks" / "tiny.json"), clock())
    search(qtbot, browser, "deck:activation-recompute")
    before = _dump(bundled)
    browser.select_rows([0])
    card_id = browser.selected_ids()[0]
    prompts.texts = ["Tiny deck"]
    qtbot.keyClick(browser.table, Qt.Key.Key_D, Qt.KeyboardModifier.ControlModifier)
    assert _column(bundled, f"SELECT deck_id FROM card WHERE id = {card_id}") == [2]
    prompts.answers = [True]
    browser.select_rows([0])
    qtbot.keyClick(browser.table, Qt.Key.Key_Delete, Qt.KeyboardModifier.ControlModifier)
    assert "Delete 1 card" in prompts.asked[-1][1]
    assert _column(bundled, "SELECT count(*) FROM card") == [9]
    healthy(bundled, clock)
    qtbot.keyClick(browser.table, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    browser.wait()
    qtbot.keyClick(browser.table, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    browser.wait()
    after = _dump(bundled)
    assert {k: v for k, v in after.items() if k != "deck"} == {
        k: v for k, v in before.items() if k != "deck"
    }


def test_fixing_a_typo_in_a_choice_keeps_the_history(
    qtbot: QtBot, window: MainWindow, bundled: Database, clock: Clock
) -> None:
    review = start_studying(qtbot, window)
    qtbot.keyClick(review, DIGITS[right_position(review) + 1])
    qtbot.keyClick(review, Qt.Key.Key_Space)
    studied = _column(bundled, "SELECT card_id FROM review")[0]
    browser = window.collection.browse()
    browser.wait()
    assert browser.select_card(studied)
    editor = browser.editor
    editor._rows[1].text.setText(editor._rows[1].text.text() + " (typo fixed)")
    assert browser.save_button.isEnabled()
    qtbot.keyClick(browser.table, Qt.Key.Key_S, Qt.KeyboardModifier.ControlModifier)
    content = json.loads(_column(bundled, f"SELECT content FROM card WHERE id = {studied}")[0])
    assert content["choices"][1]["text"].endswith("(typo fixed)")
    assert _column(bundled, f"SELECT count(*) FROM review WHERE card_id = {studied}") == [1]
    healthy(bundled, clock)
    # In a text field Ctrl+Z undoes typing; on the table it undoes the saved change.
    browser.table.setFocus()
    qtbot.keyClick(browser.table, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    browser.wait()
    content = json.loads(_column(bundled, f"SELECT content FROM card WHERE id = {studied}")[0])
    assert not content["choices"][1]["text"].endswith("(typo fixed)")
    browser.close()


def test_a_card_with_a_problem_is_not_saved_and_says_why(
    qtbot: QtBot, browser: BrowserWindow
) -> None:
    browser.editor.question.setPlainText("   ")
    assert "Question: must not be empty" in browser.editor.problems.text()
    assert not browser.save_card()
    assert browser.status.text() == "Not saved: Question: must not be empty"


def test_add_cards_adds_clears_and_keeps_deck_and_type(
    qtbot: QtBot, window: MainWindow, bundled: Database, clock: Clock
) -> None:
    window.collection.add_cards()
    dialog = window.collection.add_dialog
    qtbot.addWidget(dialog)
    dialog.activateWindow()
    qtbot.waitUntil(dialog.isActiveWindow)
    editor = dialog.editor
    editor.question.setPlainText("What is **2 + 2**?")
    assert "<b>" in editor.preview.text() or "font-weight" in editor.preview.text()
    editor._rows[0].text.setText("4")
    editor._rows[0].correct.setChecked(True)
    editor._rows[1].text.setText("5")
    editor._rows[1].why.setText("One too many.")
    editor._rows[2].text.setText("3")
    # Valid now; the deck checker's tip asks for a note on the last wrong option.
    assert "why" in editor.problems.text().lower()
    editor._rows[2].why.setText("One too few.")
    qtbot.keyClick(editor.question, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    assert dialog.status.text() == "Added to Activation Recomputation Tradeoffs."
    assert editor.question.toPlainText() == ""
    assert dialog.kind_box.currentData() == "choice"
    added = json.loads(_column(bundled, "SELECT content FROM card ORDER BY id DESC LIMIT 1")[0])
    assert [choice.get("why") for choice in added["choices"]] == [
        None,
        "One too many.",
        "One too few.",
    ]
    # The same question again: a warning, and still addable.
    editor.question.setPlainText("What is **2 + 2**?")
    assert dialog.warning.isVisibleTo(dialog)
    dialog.kind_box.setCurrentIndex(1)
    editor.front.setPlainText("Capital of Peru?")
    editor.back.setPlainText("Lima")
    assert dialog.add_card() is not None
    assert dialog.kind_box.currentData() == "basic"
    assert _column(bundled, "SELECT count(*) FROM card") == [10]
    healthy(bundled, clock)
    dialog.close()


def test_rename_a_deck_into_a_subdeck_shows_the_tree(
    qtbot: QtBot, window: MainWindow, bundled: Database, clock: Clock, prompts: FakePrompts
) -> None:
    importing.import_deck(bundled, load_deck(DATA / "decks" / "tiny.json"), clock())
    window.refresh_decks(select="tiny")
    prompts.texts = ["Activation Recomputation Tradeoffs::Tiny"]
    qtbot.keyClick(window.deck_list.table, Qt.Key.Key_F2)
    model = window.deck_list.model
    assert model.rowCount() == 1
    parent = model.index(0, 0)
    assert model.rowCount(parent) == 1
    assert model.deck_at(0).total == 10  # summed up the tree
    assert model.deck_of(model.index(0, 0, parent)).total == 2
    assert window.deck_list.selected_key() == "tiny"
    qtbot.keyClick(window.deck_list.table, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert model.rowCount() == 2
    prompts.texts = ["Languages::Spanish"]
    qtbot.keyClick(
        window.deck_list.table,
        Qt.Key.Key_N,
        Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier,
    )
    assert [model.deck_at(row).name for row in range(model.rowCount())] == [
        "Activation Recomputation Tradeoffs",
        "Languages",
        "Tiny deck",
    ]


def test_review_keys_bury_suspend_flag_and_edit(
    qtbot: QtBot, window: MainWindow, bundled: Database, clock: Clock
) -> None:
    review = start_studying(qtbot, window)
    first = review.shown
    assert first is not None
    qtbot.keyClick(review, Qt.Key.Key_1, Qt.KeyboardModifier.ControlModifier)
    assert _column(bundled, f"SELECT flag FROM card WHERE id = {first.card_id}") == [1]
    qtbot.keyClick(review, Qt.Key.Key_Minus)
    second = review.shown
    assert second is not None
    assert second.card_id != first.card_id
    qtbot.keyClick(review, Qt.Key.Key_At, Qt.KeyboardModifier.ShiftModifier)
    third = review.shown
    assert third is not None
    assert third.card_id not in (first.card_id, second.card_id)
    assert _column(bundled, "SELECT card_id FROM card_memory WHERE suspended") == [second.card_id]

    def edit() -> None:
        dialog = QApplication.activeModalWidget()
        assert isinstance(dialog, EditCardDialog)
        dialog.editor.question.setPlainText("Edited while studying?")
        dialog._on_save()

    QTimer.singleShot(0, edit)
    qtbot.keyClick(review, Qt.Key.Key_E)
    assert review.shown is not None
    assert review.shown.card_id == third.card_id
    assert review.shown.card.question == "Edited while studying?"  # type: ignore[union-attr]
    healthy(bundled, clock)


def test_escape_in_the_edit_dialog_changes_nothing(qtbot: QtBot) -> None:
    content = json.dumps({"id": "x", "type": "basic", "front": "F", "back": "B"})
    dialog = EditCardDialog(content)
    qtbot.addWidget(dialog)
    dialog.editor.front.setPlainText("")
    dialog._on_save()
    assert dialog.result() != QDialog.DialogCode.Accepted
    assert "Front: must not be empty" in dialog.editor.problems.text()


def _dump(database: Database) -> dict[str, list[tuple[object, ...]]]:
    connection = sqlite3.connect(database.path)
    try:
        return {
            table: sorted(connection.execute(f"SELECT * FROM {table}").fetchall())
            for table in ("deck", "card", "card_memory", "review", "card_tag")
        }
    finally:
        connection.close()


def _column(database: Database, sql: str) -> list[Any]:
    connection = sqlite3.connect(database.path)
    try:
        return [row[0] for row in connection.execute(sql)]
    finally:
        connection.close()


def _suspended(database: Database) -> int:
    (count,) = _column(database, "SELECT count(*) FROM card_memory WHERE suspended")
    assert isinstance(count, int)
    return count


def test_one_undo_stack_takes_back_changes_newest_first(
    qtbot: QtBot, window: MainWindow, bundled: Database, clock: Clock, prompts: FakePrompts
) -> None:
    importing.import_deck(bundled, load_deck(DATA / "decks" / "tiny.json"), clock())
    browser = window.collection.browse("deck:tiny")
    browser.wait()
    browser.editor._rows[0].text.setText("Three")
    assert browser.save_card()
    browser.close()
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow)
    window.refresh_decks(select="tiny")
    prompts.texts = ["Activation Recomputation Tradeoffs::Tiny"]
    qtbot.keyClick(window.deck_list.table, Qt.Key.Key_F2)
    assert window.collection.changes.undo_label == (
        "Rename Tiny deck to Activation Recomputation Tradeoffs::Tiny"
    )
    qtbot.keyClick(window.deck_list.table, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert _column(bundled, "SELECT name FROM deck WHERE key = 'tiny'") == ["Tiny deck"]
    assert "Three" in _column(bundled, "SELECT content FROM card WHERE key = 'q1'")[0]
    assert window.collection.changes.undo_label == "Edit a card"


def test_selected_cards_export_as_a_deck_that_imports_back(
    qtbot: QtBot, browser: BrowserWindow, bundled: Database, clock: Clock, tmp_path: Path
) -> None:
    importing.import_deck(bundled, load_deck(DATA / "decks" / "tiny.json"), clock())
    search(qtbot, browser, "tag:math or tag:dropout")
    browser.table.selectAll()
    assert len(browser.selected_ids()) == 2
    target = tmp_path / "chosen.json"
    browser.card_actions.export_to(target)
    browser.wait()
    qtbot.waitUntil(lambda: "Wrote 2 cards" in browser.status.text())
    deck = load_deck(target)
    assert sorted(card.id for card in deck.cards) == ["dropout-rng-replay", "q1"]
    package = tmp_path / "chosen.apkg"
    browser.card_actions.export_to(package)
    browser.wait()
    qtbot.waitUntil(lambda: package.exists())


def test_ctrl_z_on_the_review_screen_brings_a_buried_card_back(
    qtbot: QtBot, window: MainWindow, bundled: Database
) -> None:
    review = start_studying(qtbot, window)
    first = review.shown
    assert first is not None
    qtbot.keyClick(review, Qt.Key.Key_Minus)
    assert review.shown is not None
    assert review.shown.card_id != first.card_id
    assert window.menus.undo_action.isEnabled()
    qtbot.keyClick(review, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert review.shown is not None
    assert review.shown.card_id == first.card_id
    assert _column(bundled, "SELECT count(*) FROM card_memory WHERE buried_until") == [0]
    # After a rating, Ctrl+Z takes back the rating, not an older change.
    qtbot.keyClick(review, DIGITS[right_position(review) + 1])
    qtbot.keyClick(review, Qt.Key.Key_Space)
    qtbot.keyClick(review, Qt.Key.Key_Minus)
    qtbot.keyClick(review, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    qtbot.keyClick(review, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert _column(bundled, "SELECT count(*) FROM review") == [0]
    assert _column(bundled, "SELECT count(*) FROM card_memory WHERE buried_until") == [0]


def test_tagging_one_card_of_an_anki_note_shows_on_every_card_of_it(
    qtbot: QtBot,
    bundled: Database,
    make_window: WindowFactory,
    prompts: FakePrompts,
    tmp_path: Path,
    clock: Clock,
) -> None:
    from tests.helpers.anki_notes import make_note_package

    importing.import_files(bundled, Schedulers(fuzz=False), [make_note_package(tmp_path)], clock())
    window = make_window()
    browser = window.collection.browse()
    browser.wait()
    try:
        search(qtbot, browser, "tag:animals")
        assert browser.model.rowCount() == 2  # the note's two cards
        browser.table.selectRow(0)
        assert len(browser.selected_ids()) == 1
        prompts.texts = ["french"]
        qtbot.keyClick(
            browser.table,
            Qt.Key.Key_A,
            Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier,
        )
        browser.wait()
        assert "Change the tags of 2 cards" in browser.status.text()
        rows = [browser.model.row_value(row) for row in range(browser.model.rowCount())]
        assert [row.tags for row in rows] == [("animals", "french")] * 2
        qtbot.keyClick(browser.table, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
        browser.wait()
        rows = [browser.model.row_value(row) for row in range(browser.model.rowCount())]
        assert [row.tags for row in rows] == [("animals",)] * 2
    finally:
        browser.close()


def test_the_editor_never_squeezes_a_field_below_its_height(
    qtbot: QtBot, browser: BrowserWindow
) -> None:
    # A card whose question wraps in the preview, in a browser of a laptop's height: the
    # editor scrolls rather than draw the choices' fields too low to read.
    browser.resize(1216, 810)
    lengths = [
        len(str(browser.model.index(row, 0).data())) for row in range(browser.model.rowCount())
    ]
    browser.select_rows([lengths.index(max(lengths))])
    qtbot.waitUntil(lambda: browser.editor.isVisible())
    QApplication.processEvents()
    assert browser.editor.preview.height() > browser.editor.preview.fontMetrics().height() * 2
    fields = [field for field in browser.editor.findChildren(QLineEdit) if field.isVisible()]
    assert len(fields) >= 8  # four choices, each with its text and its why
    squeezed = [
        (field.accessibleName(), field.height())
        for field in fields
        if field.height() < field.minimumSizeHint().height()
    ]
    assert squeezed == []
    # The long question wraps in the editor's title instead of widening the pane, which
    # squeezed the sidebar to a few letters.
    assert browser.editor_title.minimumSizeHint().width() < browser.width() // 3
    assert browser.sidebar.width() >= 150
