"""The card view and Markdown labels: bounded text, and images only from the media folder."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from PySide6.QtCore import Qt, QUrl
from PySide6.QtGui import QImage, QPixmap, QTextDocument
from PySide6.QtWidgets import QLabel
from pytestqt.qtbot import QtBot

from recall.collection import importing
from recall.content.card_limits import MAX_FIELD_CHARS, MAX_MARKDOWN_NESTING, MAX_NESTING
from recall.content.deck_format import parse_deck
from recall.storage import Database
from recall.ui.review.card_text_view import CardTextView
from recall.ui.review.view import ReviewView
from recall.ui.text import MAX_PLAIN_SHOWN, markdown_to_html
from tests.conftest import Clock
from tests.ui.conftest import WindowFactory

MEDIA_NAME = "c" * 64 + ".png"


def _image(path: Path, width: int) -> None:
    image = QImage(width, 7, QImage.Format.Format_RGB32)
    image.fill(Qt.GlobalColor.red)
    assert image.save(str(path))


def test_a_missing_image_never_loads_a_same_named_file_from_the_current_folder(
    qtbot: QtBot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    media = tmp_path / "media"
    media.mkdir()
    elsewhere = tmp_path / "cwd"
    elsewhere.mkdir()
    _image(elsewhere / MEDIA_NAME, 33)  # the same name, outside the media folder
    monkeypatch.chdir(elsewhere)
    view = CardTextView(media)
    qtbot.addWidget(view)
    view.resize(400, 300)
    view.set_card_html(f'Look: <img src="{MEDIA_NAME}">')
    view.show()
    qtbot.waitExposed(view)
    loaded = view.document().resource(
        QTextDocument.ResourceType.ImageResource.value, QUrl(MEDIA_NAME)
    )
    assert isinstance(loaded, QImage | QPixmap)
    assert loaded.width() != 33  # the placeholder, not the file in the current folder
    # Once the image is in the media folder, it is the one shown.
    _image(media / MEDIA_NAME, 21)
    other = CardTextView(media)
    qtbot.addWidget(other)
    other.set_card_html(f'<img src="{MEDIA_NAME}">')
    shown = other.loadResource(QTextDocument.ResourceType.ImageResource.value, QUrl(MEDIA_NAME))
    assert isinstance(shown, QImage)
    assert shown.width() == 21


def _shown(qtbot: QtBot, fragment: str) -> str:
    view = CardTextView(Path("/nonexistent-media"))
    qtbot.addWidget(view)
    view.set_card_html(fragment)
    return view.toPlainText()


def test_a_huge_field_is_shown_as_plain_text_under_a_note(qtbot: QtBot) -> None:
    text = _shown(qtbot, "<b>word</b> " * 5_000_000)  # 60 MB
    assert text.startswith("[Shown as plain text: this card's text is 60,000,000 characters")
    assert "first 20,000 characters follow" in text
    assert len(text) < MAX_PLAIN_SHOWN + 300
    assert "word word" in text


def test_deep_nesting_and_nested_tables_are_shown_as_plain_text(qtbot: QtBot) -> None:
    deep = _shown(qtbot, "<div>" * 200_000 + "deep text" + "</div>" * 200_000)
    assert deep.startswith("[Shown as plain text:")
    assert "deep text" in deep
    medium = _shown(qtbot, "<div>" * (MAX_NESTING + 1) + "x" + "</div>" * (MAX_NESTING + 1))
    assert "nests its formatting 101 levels deep (cards show at most 100)" in medium
    tables = _shown(qtbot, "<table><tr><td>" * 4 + "cell" + "</td></tr></table>" * 4)
    assert "has tables nested 4 deep" in tables
    assert tables.strip().endswith("cell")


def test_ordinary_html_is_shown_formatted(qtbot: QtBot) -> None:
    view = CardTextView(Path("/nonexistent-media"))
    qtbot.addWidget(view)
    depth = MAX_NESTING - 1
    nested = "<div>" * depth + "<b>fine</b>" + "</div>" * depth
    view.set_card_html(nested + "<table><tr><td>a</td></tr></table>")
    assert view.toPlainText().startswith("fine")
    assert "Shown as plain text" not in view.toPlainText()


@pytest.mark.usefixtures("qapp")
def test_markdown_over_the_bounds_becomes_escaped_plain_text() -> None:
    long = markdown_to_html("**x** " * (MAX_FIELD_CHARS // 5))
    assert long.startswith("[Shown as plain text: this card&#x27;s text is")
    assert "<b>" not in long
    deep = markdown_to_html("- " * 3000 + "x")
    assert "nests lists or quotes 3,000 levels deep" in deep
    fine = markdown_to_html("- " * MAX_MARKDOWN_NESTING + "**x**")
    assert "Shown as plain text" not in fine
    assert "font-weight" in fine


def test_a_card_stored_before_the_bounds_still_opens_and_is_shown_bounded(
    qtbot: QtBot, make_window: WindowFactory, bundled: Database, clock: Clock
) -> None:
    raw = {
        "format": "recall-deck",
        "version": 1,
        "id": "old",
        "name": "Old",
        "cards": [{"id": "c", "type": "basic", "markup": "html", "front": "Q", "back": "A"}],
    }
    importing.import_deck(bundled, parse_deck(json.dumps(raw), "old"), clock())
    # As an older Recall stored it: a 60 MB answer (imports now refuse one).
    huge = {"id": "c", "type": "basic", "markup": "html", "front": "Q", "back": "a " * 30_000_000}
    connection = sqlite3.connect(bundled.path)
    with connection:
        connection.execute("UPDATE card SET content = ? WHERE key = 'c'", (json.dumps(huge),))
    connection.close()
    window = make_window()
    window.study("old")
    review = window.review
    assert isinstance(review, ReviewView)
    qtbot.keyClick(review, Qt.Key.Key_Space)
    back = review.findChild(CardTextView, "backHtml")
    assert back is not None
    shown = back.toPlainText()
    assert shown.startswith("[Shown as plain text: this card's text is 59,999,999 characters")
    assert len(shown) < MAX_PLAIN_SHOWN + 300


def test_a_long_deck_description_is_shortened_in_the_deck_list(
    make_window: WindowFactory, bundled: Database, clock: Clock
) -> None:
    raw = {
        "format": "recall-deck",
        "version": 1,
        "id": "long",
        "name": "Long",
        "cards": [{"id": "c", "type": "basic", "front": "Q", "back": "A"}],
    }
    importing.import_deck(bundled, parse_deck(json.dumps(raw), "long"), clock())
    # As an older Recall could store it: a 60 MB description.
    connection = sqlite3.connect(bundled.path)
    with connection:
        connection.execute(
            "UPDATE deck SET description = ? WHERE key = 'long'", ("d" * 60_000_000,)
        )
    connection.close()
    window = make_window()
    index = window.deck_list.model.index_of("long")
    assert index is not None
    window.deck_list.table.setCurrentIndex(index)
    label = window.deck_list.findChild(QLabel, "deckDescription")
    assert label is not None
    assert label.text() == "d" * 2_000 + "... (59,998,000 more characters)"


def test_plain_text_shown_for_deep_html_keeps_no_run_of_empty_lines(qtbot: QtBot) -> None:
    text = _shown(qtbot, "<div>" * 300_000 + "the answer" + "</div>" * 300_000)
    assert "the answer" in text
    assert "\n\n\n" not in text
    assert "div>" not in text  # no tag cut in two where the text is read in chunks
