"""Save screenshots of Anki cards as Recall shows them, for the README's "Coming from Anki".

Run with ``.venv/bin/python scripts/anki_card_screenshots.py [OUT_DIR] [light|dark]``: it builds
an Anki package with genanki (a deck for each kind of card: formulas, a styled note type with
furigana, a cloze, a type-in card), imports it into a temporary data folder as File > Import
does, answers each card and saves the screen as ``anki-<kind>-<scheme>.png``. The user's own
data is never touched.
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

STYLED = genanki.Model(
    1_607_392_400,
    "Vocabulary (styled)",
    fields=[{"name": "Word"}, {"name": "Reading"}, {"name": "Meaning"}],
    templates=[
        {
            "name": "Recognition",
            "qfmt": '<div class="word">{{Word}}</div><div class="hint">What does it mean?</div>',
            "afmt": '{{FrontSide}}<hr id=answer><div class="reading">{{furigana:Reading}}</div>'
            '<div class="meaning">{{Meaning}}</div>',
        }
    ],
    css=(
        ".card { font-family: serif; text-align: center; }"
        " .word { font-size: 40px; color: #b03a2e; }"
        " .hint { font-style: italic; color: #7f8c8d; }"
        " .meaning { font-weight: bold; background-color: #fdebd0; color: #784212; }"
    ),
)
TYPED = genanki.Model(
    1_607_392_401,
    "Capitals (type in)",
    fields=[{"name": "Country"}, {"name": "Capital"}],
    templates=[
        {
            "name": "Card 1",
            "qfmt": "What is the capital of {{Country}}?<br>{{type:Capital}}",
            "afmt": "{{FrontSide}}<hr id=answer>{{Capital}}",
        }
    ],
)
# Each kind of card shown: (deck, note type, fields, what to type on the front, if anything).
KINDS = {
    "math": (
        "Algebra",
        genanki.BASIC_MODEL,
        [
            r"Solve \(ax^2 + bx + c = 0\) for \(x\), with Anki's own notation [$]a \neq 0[/$]:",
            r"\[x = \frac{-b \pm \sqrt{b^2 - 4ac}}{2a}\]"
            r"Its discriminant [$]\Delta = b^2 - 4ac[/$] says how many real roots there are;"
            r" a sum for comparison: [$$]\sum_{k=1}^{n} k = \frac{n(n+1)}{2}[/$$]",
        ],
        "",
    ),
    "styled": ("Japanese", STYLED, ["日本語", "日本語[にほんご]", "the Japanese language"], ""),
    "cloze": (
        "Geography",
        genanki.CLOZE_MODEL,
        ["The {{c1::Danube}} flows through {{c2::ten}} countries.", "Europe's second longest"],
        "",
    ),
    "type-in": ("Capitals", TYPED, ["Australia", "Canberra"], "Canbera"),
}


def _package(folder: Path) -> Path:
    decks = []
    for number, (name, model, fields, _) in enumerate(KINDS.values()):
        deck = genanki.Deck(2_059_400_300 + number, name)
        deck.add_note(genanki.Note(model=model, fields=fields))
        decks.append(deck)
    path = folder / "kinds.apkg"
    genanki.Package(decks).write_to_file(path)
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
        for kind, (name, _, _, typed) in KINDS.items():
            deck = next(deck for deck in package.decks if deck.name == name)
            window.study(deck.id)
            QTest.qWait(100)
            review = window.review
            assert review is not None
            box = QApplication.focusWidget()
            if typed and box is not None:
                QTest.keyClicks(box, typed)
                QTest.keyClick(box, Qt.Key.Key_Return)
            else:
                QTest.keyClick(review, Qt.Key.Key_Space)
            QTest.qWait(100)
            window.grab().save(str(out / f"anki-{kind}-{scheme_name}.png"))
            window.show_decks()
        window.close()
        database.close()


if __name__ == "__main__":
    main()
