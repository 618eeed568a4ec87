"""Save screenshots of an Anki image occlusion card as Recall shows it, for the README.

Run with ``.venv/bin/python scripts/occlusion_screenshots.py [OUT_DIR] [light|dark]``: it draws
a small diagram, makes a note of Anki's own Image Occlusion note type with Anki's library
(hide all, guess one), exports it as an ``.apkg``, imports that into a temporary data folder
as File > Import does, studies it and saves the question as ``occlusion-<scheme>.png`` and
the answer as ``occlusion-<scheme>-answer.png``. The user's own data is never touched.
"""

from __future__ import annotations

import random
import sys
import tempfile
from datetime import UTC, datetime
from pathlib import Path

from anki.collection import Collection, DeckIdLimit, ExportAnkiPackageOptions

# isort: split
from anki.decks import DeckId
from PySide6.QtCore import QPointF, QRectF, QSize, Qt
from PySide6.QtGui import QColor, QFont, QImage, QPainter, QPen
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

from recall.collection import importing
from recall.scheduling import Schedulers
from recall.storage import Database
from recall.ui.application import configure, window_state
from recall.ui.main_window import MainWindow

sys.path.insert(0, str(Path(__file__).resolve().parent))
from screenshots import _dark_palette

# Four parts of a flower, each behind a mask; the title is a label shown on every card.
OCCLUSIONS = (
    "{{c1::image-occlusion:ellipse:left=.40:top=.16:rx=.10:ry=.14:oi=1}}<br>"
    "{{c2::image-occlusion:rect:left=.08:top=.30:width=.22:height=.12:oi=1}}<br>"
    "{{c3::image-occlusion:rect:left=.70:top=.52:width=.24:height=.12:oi=1}}<br>"
    "{{c4::image-occlusion:polygon:points=.36,.74 .64,.74 .56,.96 .44,.96:oi=1}}<br>"
    "{{c0::image-occlusion:text:left=.03:top=.86:text=Flower:scale=1:fs=.07}}<br>"
)


def _diagram(path: Path) -> None:
    """A labelled flower, drawn so the masks have something to hide."""
    image = QImage(640, 400, QImage.Format.Format_RGB32)
    image.fill(QColor("#f4f7ee"))
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setPen(QPen(QColor("#3b7d2a"), 8))
    painter.drawLine(QPointF(320, 150), QPointF(320, 330))
    painter.setBrush(QColor("#7cc36b"))
    painter.setPen(Qt.PenStyle.NoPen)
    painter.drawEllipse(QRectF(330, 230, 110, 40))
    painter.setBrush(QColor("#e86aa6"))
    for dx, dy in ((-55, 0), (55, 0), (0, -55), (0, 55)):
        painter.drawEllipse(QPointF(320 + dx, 120 + dy), 42, 42)
    painter.setBrush(QColor("#f5c518"))
    painter.drawEllipse(QPointF(320, 120), 30, 30)
    painter.setBrush(QColor("#9b6b43"))
    painter.drawRect(QRectF(240, 300, 160, 80))
    painter.setPen(QPen(QColor("#333333"), 2))
    font = QFont("DejaVu Sans")
    font.setPixelSize(22)
    painter.setFont(font)
    for text, x, y in (("petal", 70, 150), ("leaf", 470, 240), ("pot", 300, 370)):
        painter.drawText(QPointF(x, y), text)
    painter.end()
    image.save(str(path))


def _package(folder: Path) -> Path:
    home = folder / "anki-profile"
    home.mkdir()
    collection = Collection(str(home / "collection.anki2"))
    try:
        image = folder / "flower.png"
        _diagram(image)
        collection.add_image_occlusion_notetype()
        note_type = collection.models.by_name("Image Occlusion")
        assert note_type is not None
        collection.add_image_occlusion_note(
            note_type["id"], str(image), OCCLUSIONS, "Name the hidden part", "", []
        )
        card_id = collection.find_cards("")[0]
        deck_id = collection.get_card(card_id).did
        path = folder / "flower.apkg"
        options = ExportAnkiPackageOptions(
            with_scheduling=False, with_deck_configs=False, with_media=True, legacy=False
        )
        collection.export_anki_package(
            out_path=str(path), options=options, limit=DeckIdLimit(DeckId(deck_id))
        )
    finally:
        collection.close()
    return path


def main() -> None:
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else Path("docs")
    scheme_name = sys.argv[2] if len(sys.argv) > 2 else "light"
    out.mkdir(parents=True, exist_ok=True)
    app = QApplication(sys.argv[:1])
    scheme = {"light": Qt.ColorScheme.Light, "dark": Qt.ColorScheme.Dark}[scheme_name]
    app.styleHints().setColorScheme(scheme)
    if scheme is Qt.ColorScheme.Dark and app.styleHints().colorScheme() != scheme:
        app.setPalette(_dark_palette())  # a display without a desktop theme ignores it
    configure(app)
    now = datetime.now(UTC)
    with tempfile.TemporaryDirectory() as folder:
        data = Path(folder)
        database = Database(data / "recall.sqlite3")
        (report,) = importing.import_files(database, Schedulers(fuzz=False), [_package(data)], now)
        window = MainWindow(database, window_state(data), lambda: now, random.Random(4))
        window.resize(QSize(900, 800))
        window.show()
        QTest.qWaitForWindowExposed(window)
        window.study(report.decks[0].deck_key)
        QTest.qWait(100)
        review = window.review
        assert review is not None
        window.grab().save(str(out / f"occlusion-{scheme_name}.png"))
        QTest.keyClick(review, Qt.Key.Key_Space)
        QTest.qWait(100)
        window.grab().save(str(out / f"occlusion-{scheme_name}-answer.png"))
        window.close()
        database.close()


if __name__ == "__main__":
    main()
