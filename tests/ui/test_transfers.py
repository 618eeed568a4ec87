"""Import and export from the window: drag and drop, the report, and HTML cards on screen."""

from __future__ import annotations

import json
from pathlib import Path

from PySide6.QtCore import QMimeData, QPointF, Qt, QUrl
from PySide6.QtGui import QDragEnterEvent, QDragLeaveEvent, QDropEvent, QImage, QTextDocument
from pytestqt.qtbot import QtBot

from recall.collection import importing
from recall.content import card_html
from recall.content.deck_format import parse_deck
from recall.host import paths
from recall.storage import Database
from recall.ui.main_window import MainWindow
from recall.ui.review.card_text_view import CardTextView
from recall.ui.review.view import ReviewView
from tests.conftest import DATA, Clock
from tests.helpers.anki_collections import make_packages
from tests.helpers.anki_packages import FRENCH_ID, build_package
from tests.ui.conftest import FakePrompts, WindowFactory


def drop(window: MainWindow, files: list[Path]) -> None:
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(file)) for file in files])
    event = QDropEvent(
        QPointF(10, 10),
        Qt.DropAction.CopyAction,
        mime,
        Qt.MouseButton.LeftButton,
        Qt.KeyboardModifier.NoModifier,
    )
    window.dropEvent(event)


def test_dropping_a_deck_file_imports_it_and_reports(
    qtbot: QtBot, window: MainWindow, prompts: FakePrompts
) -> None:
    drop(window, [DATA / "decks" / "tiny.json"])
    qtbot.waitUntil(lambda: not window.transfers.busy, timeout=10_000)
    # The deck list's counts are read on the task runner's thread, then the deck selected.
    qtbot.waitUntil(lambda: window.deck_list.selected_key() == "tiny", timeout=10_000)
    title, text = prompts.told[-1]
    assert title == "Import finished"
    assert "added deck 'Tiny deck': 2 added" in text  # the deck's name, not its id
    assert window.pages.isEnabled()


def test_a_bad_dropped_file_imports_nothing_and_says_why(
    qtbot: QtBot, window: MainWindow, prompts: FakePrompts
) -> None:
    bad = DATA / "decks" / "bad" / "missing-back.json"
    drop(window, [DATA / "decks" / "tiny.json", bad])
    qtbot.waitUntil(lambda: not window.transfers.busy, timeout=10_000)
    assert window.deck_list.model.row_of("tiny") is None
    title, text = prompts.told[-1]
    assert title == "Import failed"
    assert f"{bad}: cards[1] (id 'b1'): back: missing" in text


def test_cancel_stops_a_package_import_and_gives_the_window_back(
    qtbot: QtBot, window: MainWindow, prompts: FakePrompts, tmp_path: Path
) -> None:
    package = build_package(tmp_path)
    window.transfers.import_files([package])
    window.operations.cancel()
    qtbot.waitUntil(lambda: not window.transfers.busy, timeout=10_000)
    assert prompts.told[-1][0] == "Import cancelled"
    assert window.pages.isEnabled()
    assert window.deck_list.model.row_of(f"anki-deck-{FRENCH_ID}") is None


def test_quitting_during_an_import_cancels_it(
    qtbot: QtBot, window: MainWindow, prompts: FakePrompts, tmp_path: Path
) -> None:
    window.transfers.import_files([build_package(tmp_path)])
    window.close()
    assert not window.tasks.busy or window.tasks.wait(10_000)
    qtbot.waitUntil(lambda: not window.transfers.busy, timeout=10_000)
    assert prompts.told[-1][0] == "Import cancelled"


def test_dropping_anki_packages_of_todays_format_and_a_colpkg_imports_them(
    qtbot: QtBot, window: MainWindow, prompts: FakePrompts, tmp_path: Path
) -> None:
    made, packages = make_packages(tmp_path)
    for kind in ("latest", "colpkg"):
        drop(window, [packages[kind]])
        qtbot.waitUntil(lambda: not window.transfers.busy, timeout=30_000)
        title, text = prompts.told[-1]
        assert title == "Import finished"
        assert packages[kind].name in text
        assert "became choice cards" in text
        assert window.pages.isEnabled()
    # The deck list is a tree: the deck may sit under its parent ("A::B" names).
    index = window.deck_list.model.index_of(f"anki-deck-{made.deck_id}")
    assert index is not None
    assert window.deck_list.model.deck_of(index).description.startswith("Bones of the arm")


def test_files_recall_cannot_import_are_not_accepted(window: MainWindow, tmp_path: Path) -> None:
    picture = tmp_path / "holiday.pdf"
    picture.write_bytes(b"%PDF")
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(picture))])
    assert window._dropped_files(mime) == []


def test_html_cards_load_images_only_from_the_media_folder(
    qtbot: QtBot, bundled: Database, tmp_path: Path
) -> None:
    media = paths.media_dir(bundled.path.parent)
    media.mkdir()
    image = QImage(40, 20, QImage.Format.Format_RGB32)
    image.fill(Qt.GlobalColor.darkGreen)
    stored = media / ("a" * 64 + ".png")
    image.save(str(stored))
    outside = tmp_path / "secret.png"
    image.save(str(outside))
    view = CardTextView(media)
    qtbot.addWidget(view)
    kind = QTextDocument.ResourceType.ImageResource.value
    loaded = view.loadResource(kind, QUrl(stored.name))
    assert isinstance(loaded, QImage)
    assert loaded.width() == 40
    for elsewhere in (str(outside), outside.as_uri(), "../secret.png", "http://example.com/a.png"):
        refused = view.loadResource(kind, QUrl(elsewhere))
        assert isinstance(refused, QImage)
        assert (refused.width(), refused.height()) == (1, 1)  # the placeholder, not the file
    view.set_card_html(
        f'<b>Cat</b> <img src="{stored.name}"> <img src="{outside}"> <script>x()</script>'
    )
    html = view.toHtml()
    assert stored.name in html
    assert str(outside) not in html
    assert "x()" not in html
    assert view.height() > 20


def test_svg_images_are_drawn_and_fitted_to_the_view(qtbot: QtBot, bundled: Database) -> None:
    media = paths.media_dir(bundled.path.parent)
    media.mkdir()
    svg = (
        b'<svg xmlns="http://www.w3.org/2000/svg" width="4000" height="2000">'
        b'<rect width="4000" height="2000" fill="#3366cc"/></svg>'
    )
    stored = media / card_html.media_name(svg, "wide.svg")
    stored.write_bytes(svg)
    view = CardTextView(media)
    qtbot.addWidget(view)
    loaded = view.loadResource(QTextDocument.ResourceType.ImageResource.value, QUrl(stored.name))
    assert isinstance(loaded, QImage)
    assert loaded.width() == max(64, view.viewport().width()) < 4000
    assert loaded.width() == 2 * loaded.height()
    assert loaded.pixelColor(loaded.width() // 2, loaded.height() // 2).name() == "#3366cc"
    view.set_card_html(f'<img src="{stored.name}">')
    assert stored.name in view.toHtml()


def test_html_basic_card_on_the_review_screen(
    qtbot: QtBot, make_window: WindowFactory, bundled: Database, clock: Clock
) -> None:
    image = QImage(30, 30, QImage.Format.Format_RGB32)
    image.fill(Qt.GlobalColor.blue)
    media = paths.media_dir(bundled.path.parent)
    media.mkdir()
    name = "b" * 64 + ".png"
    image.save(str(media / name))
    raw = {
        "format": "recall-deck",
        "version": 1,
        "id": "html",
        "name": "HTML",
        "cards": [
            {
                "id": "c",
                "type": "basic",
                "markup": "html",
                "front": f'<i>Colour?</i><br><img src="{name}">',
                "back": "<b>Blue</b>",
            }
        ],
    }
    importing.import_deck(bundled, parse_deck(json.dumps(raw), "html"), clock())
    window = make_window()
    window.study("html")
    review = window.review
    assert isinstance(review, ReviewView)
    question = review.findChild(CardTextView, "question")
    assert question is not None
    assert question.isVisible()
    assert "Colour?" in question.toPlainText()
    assert card_html.is_media_name(name)
    qtbot.keyClick(review, Qt.Key.Key_Space)
    back = review.findChild(CardTextView, "backHtml")
    assert back is not None
    assert back.toPlainText() == "Blue"


def test_dragging_files_in_shows_where_to_drop_them(window: MainWindow) -> None:
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(DATA / "decks" / "tiny.json"))])
    enter = QDragEnterEvent(
        QPointF(10, 10),
        Qt.DropAction.CopyAction,
        mime,
        Qt.MouseButton.LeftButton,
        Qt.KeyboardModifier.NoModifier,
    )
    window.dragEnterEvent(enter)
    assert enter.isAccepted()
    overlay = window.drop_overlay
    assert overlay.isVisible()
    assert overlay.text() == "Drop to import this file"
    assert overlay.geometry() == window.pages.rect()
    window.dragLeaveEvent(QDragLeaveEvent())
    assert not overlay.isVisible()
    # A file that cannot be imported gets no invitation.
    other = QMimeData()
    other.setUrls([QUrl.fromLocalFile(str(DATA / "decks" / "missing.pdf"))])
    refused = QDragEnterEvent(
        QPointF(10, 10),
        Qt.DropAction.CopyAction,
        other,
        Qt.MouseButton.LeftButton,
        Qt.KeyboardModifier.NoModifier,
    )
    window.dragEnterEvent(refused)
    assert not overlay.isVisible()
