"""The card editor edits a card imported from Anki as its note: one named box per field,
and saving shows the new field on every card of the note."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt
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
from tests.ui.test_review_window import start_studying

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


def test_the_review_screen_shows_the_card_rendered_from_its_note(
    qtbot: QtBot, window: MainWindow, bundled: Database, clock: Clock, tmp_path: Path
) -> None:
    importing.import_files(bundled, Schedulers(fuzz=False), [make_note_package(tmp_path)], clock())
    # The note's field changed, the stored sides left as they were: the screen shows the
    # note as its template and CSS render it now.
    with bundled.transaction() as transaction:
        (deck,) = [d for d in transaction.browsing.decks() if d.key.startswith("anki-deck-")]
        for row in transaction.cards.of_deck(deck.id):
            card = CARD_ADAPTER.validate_json(row.content)
            assert isinstance(card, BasicCard)
            if card.anki is not None and "Word" in card.anki.fields:
                fields = {**card.anki.fields, "Word": "loup"}
                origin = card.anki.model_copy(update={"fields": fields})
                content = card.model_copy(update={"anki": origin})
                transaction.browsing.set_content(
                    [(row.id, content.model_dump_json(exclude_defaults=True))], clock()
                )
    window.refresh_decks(select=deck.key)
    review = start_studying(qtbot, window)
    shown = review.shown
    assert shown is not None
    assert isinstance(shown.card, BasicCard)
    assert shown.card.anki is not None
    # The deck's first new card is the styled note's first card: "loup" asked, "dog" behind.
    assert shown.card.anki.ord == 0
    assert "Word" in shown.card.anki.fields
    assert review._card.question_text() == "loup"
    assert plain(shown.card.front) == "loup"
    qtbot.keyClick(review, Qt.Key.Key_Space)
    assert review._card.back_text() == "dog \ufffc"  # the picture, an image in the text
