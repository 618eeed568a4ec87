"""Formulas on cards: typeset and drawn in the card view, their source where they cannot be."""

from __future__ import annotations

import json
from pathlib import Path

from PySide6.QtCore import Qt, QUrl
from PySide6.QtGui import QImage, QTextDocument
from pytestqt.qtbot import QtBot

from recall.collection import importing
from recall.content.deck_format import parse_deck
from recall.storage import Database
from recall.ui.review.card_text_view import CardTextView
from recall.ui.review.view import ReviewView
from tests.conftest import Clock
from tests.ui.conftest import WindowFactory

IMAGE = QTextDocument.ResourceType.ImageResource.value


def _formula_images(view: CardTextView) -> list[QImage]:
    images = []
    for index in range(8):
        loaded = view.loadResource(IMAGE, QUrl(f"recall-math:{index}"))
        assert isinstance(loaded, QImage)
        if loaded.width() > 1:
            images.append(loaded)
    return images


def _inked(image: QImage) -> bool:
    """Whether anything was drawn: some pixel is not transparent."""
    return any(
        image.pixelColor(x, y).alpha() > 0
        for x in range(0, image.width(), 2)
        for y in range(0, image.height(), 2)
    )


def test_formulas_are_drawn_as_images_and_read_as_their_latex(qtbot: QtBot, tmp_path: Path) -> None:
    view = CardTextView(tmp_path, "Question")
    qtbot.addWidget(view)
    view.resize(500, 200)
    view.set_card_html(r"Roots of \(ax^2+bx+c\): \[x=\frac{-b\pm\sqrt{\Delta}}{2a}\] done")
    images = _formula_images(view)
    assert len(images) == 2
    assert all(_inked(image) for image in images)
    assert images[1].height() > images[0].height()  # the display formula holds a fraction
    assert "\\frac" not in view.toPlainText()  # drawn, not spelled out
    assert view.toPlainText().startswith("Roots of")
    assert "ax^2+bx+c" in view.accessibleName()  # a screen reader reads the source


def test_a_formula_that_cannot_be_typeset_shows_its_source_with_a_note(
    qtbot: QtBot, tmp_path: Path
) -> None:
    view = CardTextView(tmp_path)
    qtbot.addWidget(view)
    view.set_card_html(r"See \(\chemfig{H-O-H}\) here")
    assert view.toPlainText() == r"See \chemfig{H-O-H} (formula not typeset) here"
    assert _formula_images(view) == []


def test_a_name_outside_the_formulas_shown_gets_the_placeholder(
    qtbot: QtBot, tmp_path: Path
) -> None:
    view = CardTextView(tmp_path)
    qtbot.addWidget(view)
    view.set_card_html(r"\(x\)")
    for name in ("recall-math:1", "recall-math:-1", "recall-math:x", "recall-math:"):
        loaded = view.loadResource(IMAGE, QUrl(name))
        assert isinstance(loaded, QImage)
        assert loaded.width() == 1


def test_a_markdown_card_with_a_formula_is_shown_typeset(
    qtbot: QtBot, make_window: WindowFactory, bundled: Database, clock: Clock
) -> None:
    raw = {
        "format": "recall-deck",
        "version": 1,
        "id": "algebra",
        "name": "Algebra",
        "cards": [
            {
                "id": "square",
                "type": "basic",
                "front": r"What is \(x_1 * x_2\) when *both* are 3?",
                "back": r"\[x_1 x_2 = 9\]",
            }
        ],
    }
    importing.import_deck(bundled, parse_deck(json.dumps(raw), "algebra"), clock())
    window = make_window()
    window.study("algebra")
    review = window.review
    assert isinstance(review, ReviewView)
    question = review.findChild(CardTextView, "question")
    assert question is not None
    assert question.isVisibleTo(review)
    assert question.toPlainText().startswith("What is ")
    assert "x_1" not in question.toPlainText()
    assert len(_formula_images(question)) == 1
    assert "both" in question.toPlainText()
    qtbot.keyClick(review, Qt.Key.Key_Space)
    back = review.findChild(CardTextView, "backHtml")
    assert back is not None
    assert len(_formula_images(back)) == 1


def test_a_formula_in_a_label_keeps_its_backslashes(qtbot: QtBot) -> None:
    from recall.ui.text import markdown_to_html

    document = QTextDocument()
    document.setHtml(markdown_to_html(r"Because \(a_1 * b_1\) is *odd*"))
    assert document.toPlainText() == r"Because \(a_1 * b_1\) is odd"


def test_ruby_is_drawn_with_its_reading_above_and_read_as_base_and_reading(
    qtbot: QtBot, tmp_path: Path
) -> None:
    view = CardTextView(tmp_path, "Question")
    qtbot.addWidget(view)
    view.resize(500, 200)
    view.set_card_html("私は<ruby><rb>日本語</rb><rt>にほんご</rt></ruby>を話す")
    drawn = view.loadResource(IMAGE, QUrl("recall-ruby:0"))
    assert isinstance(drawn, QImage)
    assert _inked(drawn)
    line = view.fontMetrics().height() * drawn.devicePixelRatio()
    assert drawn.height() > line  # a line for the reading above the base's
    assert "にほんご" not in view.toPlainText()  # not run together with its base
    assert view.accessibleName() == "私は日本語(にほんご)を話す"
    missing = view.loadResource(IMAGE, QUrl("recall-ruby:1"))
    assert isinstance(missing, QImage)
    assert missing.width() == 1
