"""A card's image synced from another computer shows in the open window, with no restart."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from PySide6.QtCore import Qt, QUrl
from PySide6.QtGui import QImage, QTextDocument
from pytestqt.qtbot import QtBot

from recall.collection import importing
from recall.content.deck_format import parse_deck
from recall.host import paths
from recall.storage import Database
from recall.sync.rounds import sync
from recall.ui.main_window import MainWindow
from recall.ui.review.card_text_view import CardTextView
from tests.conftest import Clock
from tests.ui.conftest import WindowFactory

WIDTH = 37


def _picture(folder: Path) -> bytes:
    image = QImage(WIDTH, 9, QImage.Format.Format_RGB32)
    image.fill(Qt.GlobalColor.darkGreen)
    path = folder / "picture.png"
    assert image.save(str(path))
    return path.read_bytes()


def _laptop_with_a_picture(tmp_path: Path, shared: Path, clock: Clock) -> str:
    """Another computer imports a card showing an image and syncs; returns the image's name."""
    data = _picture(tmp_path)
    name = f"{hashlib.sha256(data).hexdigest()}.png"
    media = paths.media_dir(tmp_path / "laptop")
    media.mkdir(parents=True)
    (media / name).write_bytes(data)
    card = {"id": "c1", "type": "basic", "markup": "html", "front": f'<img src="{name}">'}
    deck = {"format": "recall-deck", "version": 1, "id": "pics", "name": "Pictures"}
    laptop = Database(tmp_path / "laptop" / "recall.sqlite3")
    try:
        importing.import_deck(
            laptop, parse_deck(json.dumps({**deck, "cards": [{**card, "back": "b"}]}), "p"), clock()
        )
        sync(laptop, clock(), shared, "laptop")
    finally:
        laptop.close()
    return name


def test_an_image_received_by_sync_now_shows_when_the_card_is_studied(
    qtbot: QtBot, make_window: WindowFactory, bundled: Database, tmp_path: Path, clock: Clock
) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    sync(bundled, clock(), shared, "desktop")  # the folder is chosen; nothing to receive yet
    window: MainWindow = make_window()
    name = _laptop_with_a_picture(tmp_path, shared, clock)
    assert not (paths.media_dir(bundled.path.parent) / name).exists()

    window.sync.sync_action.trigger()  # File > Sync Now, in the open window
    qtbot.waitUntil(lambda: not window.operations.busy, timeout=20_000)
    qtbot.waitUntil(lambda: window.deck_list.model.row_of("pics") is not None, timeout=10_000)
    message = window.statusBar().currentMessage()
    assert message.startswith("Synced: ")
    # The picture is named apart from the card and deck it came with, not counted with them.
    assert message.endswith(" received, with 1 image or sound"), message
    window.study("pics")
    question = window.findChild(CardTextView, "question")
    assert question is not None
    qtbot.waitUntil(question.isVisible, timeout=5_000)
    loaded = question.document().resource(
        QTextDocument.ResourceType.ImageResource.value, QUrl(name)
    )
    assert isinstance(loaded, QImage)
    assert loaded.width() == WIDTH  # the synced file, not the empty placeholder
