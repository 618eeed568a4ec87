"""Save screenshots of Anki cards as Recall shows them, for the README's "Coming from Anki".

Run with ``.venv/bin/python scripts/anki_card_screenshots.py [OUT_DIR] [light|dark]``: it builds
an Anki package with genanki (a note with MathJax and Anki's LaTeX forms), imports it into a
temporary data folder as File > Import does, studies it and saves the question and the
answer as ``anki-math-<scheme>.png``. The user's own data is never touched.
"""

from __future__ import annotations

import random
import sys
import tempfile
from datetime import UTC, datetime
from pathlib import Path

import genanki
from PySide6.QtCore import QSize, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

from recall.collection import importing
from recall.importers.apkg import read_apkg
from recall.storage import Database
from recall.ui.application import configure, window_state
from recall.ui.main_window import MainWindow

sys.path.insert(0, str(Path(__file__).resolve().parent))
from screenshots import _dark_palette

FRONT = r"Solve \(ax^2 + bx + c = 0\) for \(x\), with Anki's own notation [$]a \neq 0[/$]:"
BACK = (
    r"\[x = \frac{-b \pm \sqrt{b^2 - 4ac}}{2a}\]"
    r"Its discriminant [$]\Delta = b^2 - 4ac[/$] says how many real roots there are;"
    r" a sum for comparison: [$$]\sum_{k=1}^{n} k = \frac{n(n+1)}{2}[/$$]"
)


def _package(folder: Path) -> Path:
    deck = genanki.Deck(2_059_400_300, "Algebra")
    deck.add_note(genanki.Note(model=genanki.BASIC_MODEL, fields=[FRONT, BACK]))
    path = folder / "algebra.apkg"
    genanki.Package(deck).write_to_file(path)
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
        staging = data / "staging"
        staging.mkdir()
        database = Database(data / "recall.sqlite3")
        package = read_apkg(_package(data), staging)
        for deck in package.decks:
            importing.import_deck(database, deck, now)
        window = MainWindow(database, window_state(data), lambda: now, random.Random(4))
        window.resize(QSize(900, 560))
        window.show()
        QTest.qWaitForWindowExposed(window)
        window.study(package.decks[0].id)
        QTest.qWait(100)
        review = window.review
        assert review is not None
        QTest.keyClick(review, Qt.Key.Key_Space)
        QTest.qWait(100)
        window.grab().save(str(out / f"anki-math-{scheme_name}.png"))
        window.close()
        database.close()


if __name__ == "__main__":
    main()
