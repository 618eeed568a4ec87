"""The card editor edits a card imported from Anki as its note: one named box per field,
and saving shows the new field on every card of the note."""

from __future__ import annotations

from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from recall.collection import importing
from recall.content.deck_format import CARD_ADAPTER, BasicCard
from recall.scheduling import Schedulers
from recall.storage import Database
from recall.ui.browser.card_editor import ANKI_NOTE
from recall.ui.main_window import MainWindow
from tests.conftest import Clock
from tests.helpers.anki_notes import make_note_package
from tests.helpers.anki_templates import plain

pytestmark = pytest.mark.qt_log_ignore("^This plugin does not support")


def test_an_anki_card_is_edited_as_its_notes_fields(
    qtbot: QtBot, window: MainWindow, bundled: Database, clock: Clock, tmp_path: Path
) -> None:
    importing.import_files(bundled, Schedulers(fuzz=False), [make_note_package(tmp_path)], clock())
    browser = window.collection.browse("chien")
    browser.wait()
    try:
        editor = browser.editor
        assert editor.kind == ANKI_NOTE
        boxes = editor.note_fields.boxes
        assert list(boxes) == ["Word", "Meaning", "Picture"]
        assert boxes["Word"].accessibleName() == "Field Word (HTML)"
        assert boxes["Word"].toPlainText() == "chien"
        assert not editor.front.isVisibleTo(editor)
        boxes["Word"].selectAll()
        qtbot.keyClicks(boxes["Word"], "loup")
        assert browser.save_button.isEnabled()
        assert browser.save_card()
        assert window.collection.changes.undo_label == "Edit a note's 2 cards"
        with bundled.reading() as transaction:
            cards = [
                CARD_ADAPTER.validate_json(row.content)
                for deck in transaction.browsing.decks()
                for row in transaction.cards.of_deck(deck.id)
            ]
        sides = {
            (plain(card.front), plain(card.back))
            for card in cards
            if isinstance(card, BasicCard) and card.anki is not None and card.anki.ord < 2
        }
        assert {("loup", "dog"), ("dog", "loup")} <= sides
    finally:
        browser.close()
