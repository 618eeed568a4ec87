"""The one-line plain text of lists says the words the review screen renders."""

from __future__ import annotations

import pytest
from pytestqt.qtbot import QtBot

from recall.collection import importing
from recall.content.deck_format import load_deck
from recall.content.plain_text import plain_text
from recall.storage import Database
from recall.ui.accessibility import plain_text as accessible_text
from recall.ui.main_window import MainWindow
from recall.ui.text import markdown_to_html
from tests.conftest import DATA, Clock
from tests.content.test_plain_text import CASES
from tests.ui.conftest import WindowFactory

pytestmark = pytest.mark.qt_log_ignore("^This plugin does not support")


@pytest.mark.parametrize(("markdown", "shown"), CASES)
def test_plain_text_matches_the_rendered_card(qtbot: QtBot, markdown: str, shown: str) -> None:
    del qtbot, shown  # a QApplication is all this needs
    assert plain_text(markdown) == accessible_text(markdown_to_html(markdown))


def test_the_browser_and_its_editor_keep_the_hash(
    bundled: Database, clock: Clock, make_window: WindowFactory
) -> None:
    importing.import_deck(bundled, load_deck(DATA / "decks" / "sharp.json"), clock())
    window: MainWindow = make_window()
    browser = window.collection.browse("deck:sharp")
    browser.wait()
    try:
        question = "What does C# compile to?"
        assert browser.model.rowCount() == 1
        texts = [
            str(browser.model.index(0, column).data())
            for column in range(browser.model.columnCount())
        ]
        assert any(text.startswith(question) for text in texts), texts
        assert browser.editor_title.text().endswith(question)
    finally:
        browser.close()
