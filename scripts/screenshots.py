"""Save screenshots of the real window for the docs: deck list, question, feedback, summary.

Run with ``.venv/bin/python scripts/screenshots.py [OUT_DIR] [WIDTHxHEIGHT] [light|dark]``; it
studies the
bundled deck in a temporary data directory, so the user's own data is never touched.
"""

from __future__ import annotations

import random
import sys
import tempfile
from datetime import UTC, datetime, timedelta
from pathlib import Path

from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QColor, QPalette
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

from recall.collection import opening
from recall.content.deck_format import ChoiceCard
from recall.storage import Database
from recall.ui.application import configure, window_state
from recall.ui.main_window import MainWindow


class _Clock:
    def __init__(self) -> None:
        self.now = datetime.now(UTC)

    def __call__(self) -> datetime:
        return self.now


def _dark_palette() -> QPalette:
    """A dark palette like the one Fusion uses on a desktop set to dark."""
    palette = QPalette()
    role = QPalette.ColorRole
    for name, colour in {
        role.Window: "#2b2b2b",
        role.WindowText: "#e6e6e6",
        role.Base: "#1f1f1f",
        role.AlternateBase: "#323232",
        role.Text: "#e6e6e6",
        role.Button: "#3a3a3a",
        role.ButtonText: "#e6e6e6",
        role.Mid: "#5a5a5a",
        role.Midlight: "#4a4a4a",
        role.Highlight: "#3d7be0",
        role.HighlightedText: "#ffffff",
        role.PlaceholderText: "#9a9a9a",
    }.items():
        palette.setColor(name, QColor(colour))
    return palette


def main() -> None:
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else Path("docs")
    width, height = map(int, (sys.argv[2] if len(sys.argv) > 2 else "1000x720").split("x"))
    out.mkdir(parents=True, exist_ok=True)
    app = QApplication(sys.argv[:1])
    if len(sys.argv) > 3:
        scheme = {"light": Qt.ColorScheme.Light, "dark": Qt.ColorScheme.Dark}[sys.argv[3]]
        app.styleHints().setColorScheme(scheme)
        if scheme is Qt.ColorScheme.Dark and app.styleHints().colorScheme() != scheme:
            app.setPalette(_dark_palette())  # a display without a desktop theme ignores it
    configure(app)
    clock = _Clock()
    with tempfile.TemporaryDirectory() as folder:
        data = Path(folder)
        database = Database(data / "recall.sqlite3")
        opening.install_bundled_decks(database, clock())
        window = MainWindow(database, window_state(data), clock, random.Random(4))
        window.resize(QSize(width, height))
        window.show()
        QTest.qWaitForWindowExposed(window)

        def save(name: str) -> None:
            QTest.qWait(50)
            window.grab().save(str(out / f"{name}.png"))

        save("deck-list")
        window.study("activation-recompute")
        review = window.review
        assert review is not None
        save("question")
        shown = review.shown
        assert shown is not None
        assert isinstance(shown.card, ChoiceCard)
        wrong = next(p for p, i in enumerate(shown.order) if not shown.card.choices[i].correct)
        clock.now += timedelta(seconds=9)
        review.pick(wrong)
        save("feedback-wrong")
        QTest.keyClick(review, Qt.Key.Key_Space)
        shown = review.shown
        assert shown is not None
        assert isinstance(shown.card, ChoiceCard)
        right = next(p for p, i in enumerate(shown.order) if shown.card.choices[i].correct)
        clock.now += timedelta(seconds=7)
        review.pick(right)
        save("review")
        while window.pages.currentWidget() is review and review.shown is not None:
            shown = review.shown
            assert isinstance(shown.card, ChoiceCard)
            clock.now += timedelta(seconds=8)
            review.pick(next(p for p, i in enumerate(shown.order) if shown.card.choices[i].correct))
            review.rate()
        save("summary")
        window.close()
        database.close()


if __name__ == "__main__":
    main()
