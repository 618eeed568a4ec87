"""Writing cards of every kind in Add Cards: cloze, reversed, type-in, formatting, media, Escape."""

from __future__ import annotations

import hashlib
import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt, QUrl
from PySide6.QtGui import QColor, QImage, QTextCursor, QTextDocument
from PySide6.QtWidgets import QApplication, QPlainTextEdit
from pytestqt.qtbot import QtBot

from recall.changes.cards import Changes
from recall.changes.editing import check_card
from recall.content.deck_format import BasicCard
from recall.core.preferences import Preferences
from recall.host import paths
from recall.scheduling import Schedulers
from recall.storage import Database
from recall.study.values import QueueCounts
from recall.ui.browser.add_card_dialog import AddCardDialog
from recall.ui.collection_actions import EditCardDialog
from recall.ui.main_window import MainWindow
from recall.ui.review.card_panel import CardPanel
from tests.conftest import ZONE, Clock
from tests.ui.conftest import FakePrompts

pytestmark = pytest.mark.qt_log_ignore("^This plugin does not support")

CTRL = Qt.KeyboardModifier.ControlModifier
CTRL_SHIFT = Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier


@pytest.fixture
def dialog(
    qtbot: QtBot,
    bundled: Database,
    schedulers: Schedulers,
    clock: Clock,
    prompts: FakePrompts,
) -> AddCardDialog:
    with bundled.reading() as transaction:
        decks = transaction.browsing.decks()
    changes = Changes(bundled, schedulers, Preferences(), ZONE)
    opened = AddCardDialog(bundled, changes, decks, clock, decks[0].id, prompts=prompts)
    # Whatever a test leaves typed is dropped first, so closing at the end asks nothing.
    qtbot.addWidget(opened, before_close_func=lambda _dialog: opened.editor.clear())
    opened.show()
    qtbot.waitExposed(opened)
    return opened


def added(database: Database, count: int) -> list[dict[str, Any]]:
    connection = sqlite3.connect(database.path)
    try:
        rows = connection.execute(
            "SELECT content FROM card ORDER BY id DESC LIMIT ?", (count,)
        ).fetchall()
    finally:
        connection.close()
    return [json.loads(row[0]) for row in reversed(rows)]


def card_count(database: Database) -> int:
    connection = sqlite3.connect(database.path)
    try:
        (count,) = connection.execute("SELECT count(*) FROM card").fetchone()
    finally:
        connection.close()
    assert isinstance(count, int)
    return count


def choose_kind(dialog: AddCardDialog, kind: str) -> None:
    dialog.kind_box.setCurrentIndex(dialog.kind_box.findData(kind))
    assert dialog.editor.kind == kind


def select(box: QPlainTextEdit, start: int, end: int) -> None:
    cursor = box.textCursor()
    cursor.setPosition(start)
    cursor.setPosition(end, QTextCursor.MoveMode.KeepAnchor)
    box.setTextCursor(cursor)


def test_a_reversed_note_adds_a_card_each_way_as_siblings(
    qtbot: QtBot, dialog: AddCardDialog, bundled: Database
) -> None:
    before = card_count(bundled)
    choose_kind(dialog, "reversed")
    dialog.editor.front.setPlainText("Capital of Peru?")
    dialog.editor.back.setPlainText("Lima")
    qtbot.keyClick(dialog.editor.front, Qt.Key.Key_Return, CTRL)
    assert dialog.status.text() == f"Added 2 cards to {dialog.deck().name}."
    assert card_count(bundled) == before + 2
    first, second = added(bundled, 2)
    assert (first["front"], first["back"]) == ("Capital of Peru?", "Lima")
    assert (second["front"], second["back"]) == ("Lima", "Capital of Peru?")
    assert first["note"] == second["note"] != ""
    assert dialog.editor.front.toPlainText() == ""
    assert dialog.kind_box.currentData() == "reversed"


def test_a_type_in_card_expects_its_back(
    qtbot: QtBot, dialog: AddCardDialog, bundled: Database
) -> None:
    choose_kind(dialog, "type")
    dialog.editor.front.setPlainText("Capital of Peru?")
    dialog.editor.back.setPlainText(" Lima ")
    assert dialog.add_card() is not None
    (card,) = added(bundled, 1)
    assert card["type"] == "basic"
    assert card["type_answer"] == "Lima"


def test_a_cloze_note_adds_a_card_per_number_and_ctrl_shift_c_numbers_them(
    qtbot: QtBot, dialog: AddCardDialog, bundled: Database
) -> None:
    before = card_count(bundled)
    choose_kind(dialog, "cloze")
    box = dialog.editor.cloze
    assert box.hasFocus()
    qtbot.keyClicks(box, "Paris is in France")
    select(box, 0, 5)
    qtbot.keyClick(box, Qt.Key.Key_C, CTRL_SHIFT)
    assert box.toPlainText() == "{{c1::Paris}} is in France"
    text = box.toPlainText()
    select(box, text.index("France"), len(text))
    qtbot.keyClick(box, Qt.Key.Key_C, CTRL_SHIFT)
    assert box.toPlainText() == "{{c1::Paris}} is in {{c2::France}}"
    box.moveCursor(QTextCursor.MoveOperation.End)
    qtbot.keyClicks(box, " and ")
    qtbot.keyClick(box, Qt.Key.Key_C, CTRL_SHIFT)  # nothing selected: the cursor goes inside
    qtbot.keyClicks(box, "Europe")
    assert box.toPlainText() == "{{c1::Paris}} is in {{c2::France}} and {{c3::Europe}}"
    dialog.editor.explanation.setPlainText("Since 508.")
    assert dialog.add_card() is not None
    assert dialog.status.text() == f"Added 3 cards to {dialog.deck().name}."
    assert card_count(bundled) == before + 3
    cards = added(bundled, 3)
    assert [card["front"] for card in cards] == [
        "[...] is in France and Europe",
        "Paris is in [...] and Europe",
        "Paris is in France and [...]",
    ]
    assert cards[1]["back"] == "Paris is in **France** and Europe"
    assert len({card["note"] for card in cards}) == 1
    assert all(card["explanation"] == "Since 508." for card in cards)


def test_a_cloze_text_without_a_deletion_is_not_added(
    dialog: AddCardDialog, bundled: Database
) -> None:
    before = card_count(bundled)
    choose_kind(dialog, "cloze")
    dialog.editor.cloze.setPlainText("Paris is in France")
    assert "no cloze deletion" in dialog.editor.problems.text()
    assert dialog.add_card() is None
    assert card_count(bundled) == before


def test_ctrl_b_and_the_buttons_wrap_the_selection_in_markdown(
    qtbot: QtBot, dialog: AddCardDialog
) -> None:
    choose_kind(dialog, "basic")
    front = dialog.editor.front
    qtbot.keyClicks(front, "a big word")
    select(front, 2, 5)
    qtbot.keyClick(front, Qt.Key.Key_B, CTRL)
    assert front.toPlainText() == "a **big** word"
    select(front, 0, 1)
    qtbot.keyClick(front, Qt.Key.Key_I, CTRL)
    assert front.toPlainText() == "*a* **big** word"
    back = dialog.editor.back
    back.setFocus()
    back.setPlainText("one\ntwo")
    select(back, 0, len("one\ntwo"))
    qtbot.mouseClick(dialog.editor.format_bar.bullets, Qt.MouseButton.LeftButton)
    assert back.toPlainText() == "- one\n- two"
    back.setPlainText("x = 1")
    select(back, 0, 5)
    qtbot.mouseClick(dialog.editor.format_bar.code, Qt.MouseButton.LeftButton)
    assert back.toPlainText() == "`x = 1`"
    assert front.toPlainText() == "*a* **big** word"  # the button acted on the box in use


def test_the_explanation_box_shows_five_lines(dialog: AddCardDialog) -> None:
    box = dialog.editor.explanation
    assert box.height() >= 5 * box.fontMetrics().lineSpacing()


def test_an_image_file_lands_in_media_under_its_hash_once(
    qtbot: QtBot, dialog: AddCardDialog, bundled: Database, tmp_path: Path
) -> None:
    picture = tmp_path / "Holiday Photo.PNG"
    image = QImage(8, 8, QImage.Format.Format_RGB32)
    image.fill(QColor("red"))
    assert image.save(str(picture))
    name = hashlib.sha256(picture.read_bytes()).hexdigest() + ".png"
    choose_kind(dialog, "basic")
    dialog.editor.back.setFocus()
    dialog.editor.format_bar.choose_file = lambda _title, _kinds: str(picture)
    for _ in range(2):
        qtbot.mouseClick(dialog.editor.format_bar.add_image, Qt.MouseButton.LeftButton)
    media = paths.media_dir(bundled.path.parent)
    assert [path.name for path in media.iterdir()] == [name]
    assert (media / name).read_bytes() == picture.read_bytes()
    assert dialog.editor.back.toPlainText() == f"![]({name})![]({name})"


def test_a_sound_file_goes_in_as_a_sound_tag(
    qtbot: QtBot, dialog: AddCardDialog, bundled: Database, tmp_path: Path
) -> None:
    sound = tmp_path / "word.mp3"
    sound.write_bytes(b"ID3 not really a song")
    name = hashlib.sha256(sound.read_bytes()).hexdigest() + ".mp3"
    choose_kind(dialog, "basic")
    dialog.editor.front.setFocus()
    dialog.editor.format_bar.choose_file = lambda _title, _kinds: str(sound)
    qtbot.mouseClick(dialog.editor.format_bar.add_sound, Qt.MouseButton.LeftButton)
    assert dialog.editor.front.toPlainText() == f"[sound:{name}]"
    assert (paths.media_dir(bundled.path.parent) / name).is_file()


def test_a_file_that_is_no_image_is_refused_and_says_why(
    qtbot: QtBot, dialog: AddCardDialog, prompts: FakePrompts, tmp_path: Path
) -> None:
    script = tmp_path / "notes.txt"
    script.write_text("hello")
    choose_kind(dialog, "basic")
    dialog.editor.front.setFocus()
    dialog.editor.format_bar.choose_file = lambda _title, _kinds: str(script)
    qtbot.mouseClick(dialog.editor.format_bar.add_image, Qt.MouseButton.LeftButton)
    assert dialog.editor.front.toPlainText() == ""
    assert prompts.told
    assert prompts.told[-1][1].startswith("notes.txt: not an image or sound")


def test_a_pasted_image_lands_in_media_under_its_hash_once(
    dialog: AddCardDialog, bundled: Database
) -> None:
    image = QImage(6, 4, QImage.Format.Format_ARGB32)
    image.fill(QColor("blue"))
    clipboard = QApplication.clipboard()
    clipboard.setImage(image)
    choose_kind(dialog, "basic")
    back = dialog.editor.back
    back.setFocus()
    back.paste()
    back.paste()
    media = paths.media_dir(bundled.path.parent)
    (stored,) = media.iterdir()
    assert stored.name == hashlib.sha256(stored.read_bytes()).hexdigest() + ".png"
    assert QImage(str(stored)).size() == image.size()
    assert back.toPlainText() == f"![]({stored.name})" * 2
    clipboard.clear()


def test_escape_with_text_asks_and_no_keeps_the_dialog(
    qtbot: QtBot, dialog: AddCardDialog, prompts: FakePrompts
) -> None:
    choose_kind(dialog, "basic")
    qtbot.keyClicks(dialog.editor.front, "Half a thought")
    prompts.answers.append(False)
    qtbot.keyClick(dialog.editor.front, Qt.Key.Key_Escape)
    assert prompts.asked == [("Add Cards", "Discard what you typed?")]
    assert dialog.isVisible()
    assert dialog.editor.front.toPlainText() == "Half a thought"
    prompts.answers.append(False)
    dialog.close()  # the window's close button asks the same
    assert len(prompts.asked) == 2
    assert dialog.isVisible()
    prompts.answers.append(True)
    qtbot.keyClick(dialog.editor.front, Qt.Key.Key_Escape)
    assert not dialog.isVisible()


def test_escape_without_text_closes_at_once(
    qtbot: QtBot, dialog: AddCardDialog, prompts: FakePrompts
) -> None:
    qtbot.keyClick(dialog.editor.question, Qt.Key.Key_Escape)
    assert prompts.asked == []
    assert not dialog.isVisible()


def test_escape_in_the_edit_dialog_asks_only_when_the_text_changed(
    qtbot: QtBot, prompts: FakePrompts
) -> None:
    content = json.dumps(
        {"id": "x", "type": "basic", "front": "F", "back": "Lima", "type_answer": "Lima"}
    )
    dialog = EditCardDialog(content, prompts=prompts)
    qtbot.addWidget(dialog)
    dialog.show()
    assert dialog.editor.data()["type_answer"] == "Lima"
    dialog.editor.back.setPlainText("Cusco")
    assert dialog.editor.data()["type_answer"] == "Cusco"  # the typed answer follows the back
    prompts.answers.append(False)
    qtbot.keyClick(dialog.editor.back, Qt.Key.Key_Escape)
    assert prompts.asked == [("Edit Card", "Discard what you typed?")]
    assert dialog.isVisible()
    dialog.editor.back.setPlainText("Lima")
    qtbot.keyClick(dialog.editor.back, Qt.Key.Key_Escape)
    assert len(prompts.asked) == 1
    assert not dialog.isVisible()


def test_a_card_with_an_added_image_shows_it_on_the_review_screen(
    qtbot: QtBot, dialog: AddCardDialog, bundled: Database, tmp_path: Path
) -> None:
    picture = tmp_path / "map.png"
    image = QImage(21, 7, QImage.Format.Format_RGB32)
    image.fill(QColor("green"))
    assert image.save(str(picture))
    choose_kind(dialog, "basic")
    dialog.editor.front.setPlainText("Where is Lima? ")
    dialog.editor.front.setFocus()
    dialog.editor.format_bar.choose_file = lambda _title, _kinds: str(picture)
    qtbot.mouseClick(dialog.editor.format_bar.add_image, Qt.MouseButton.LeftButton)
    dialog.editor.back.setPlainText("On the coast: ")
    dialog.editor.back.setFocus()
    qtbot.mouseClick(dialog.editor.format_bar.add_image, Qt.MouseButton.LeftButton)
    assert dialog.add_card() is not None
    (stored,) = added(bundled, 1)
    card = check_card(stored)
    assert isinstance(card, BasicCard)
    media = paths.media_dir(bundled.path.parent)
    (name,) = (path.name for path in media.iterdir())
    panel = CardPanel(media)
    qtbot.addWidget(panel)
    panel.resize(600, 500)
    panel.show()
    panel.show_card("Geography", QueueCounts(1, 0, 0), card, ())
    panel.show_back(card)
    for view in (panel._question_html, panel._back_html):
        assert view.isVisibleTo(panel)
        shown = view.document().resource(QTextDocument.ResourceType.ImageResource.value, QUrl(name))
        assert isinstance(shown, QImage)
        assert shown.width() == 21  # the file itself, not the placeholder
        assert f'<img src="{name}"' in view.toHtml()
    assert "Where is Lima?" in panel._question_html.toPlainText()


def test_ctrl_shift_c_in_add_cards_opened_from_the_main_window_makes_a_deletion(
    qtbot: QtBot, window: MainWindow
) -> None:
    window.collection.add_cards()
    opened = window.collection.add_dialog
    qtbot.addWidget(opened, before_close_func=lambda _dialog: opened.editor.clear())
    opened.activateWindow()
    qtbot.waitUntil(opened.isActiveWindow)
    choose_kind(opened, "cloze")
    qtbot.keyClicks(opened.editor.cloze, "Lima")
    select(opened.editor.cloze, 0, 4)
    # The main window's Custom Study key (also Ctrl+Shift+C) stays in the main window.
    qtbot.keyClick(opened.editor.cloze, Qt.Key.Key_C, CTRL_SHIFT)
    assert opened.editor.cloze.toPlainText() == "{{c1::Lima}}"
    assert opened.isActiveWindow()
    opened.editor.clear()
