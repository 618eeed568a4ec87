"""Save screenshots of the card browser and the card editor for the docs.

Run with ``.venv/bin/python scripts/browser_screenshots.py [OUT_DIR]``; it builds a small
collection in a temporary data directory (the bundled deck inside a parent deck, a few
answers, a flag, a suspended card), so the user's own data is never touched. Writes
``browser.png`` and ``editor.png``.
"""

from __future__ import annotations

import random
import sys
import tempfile
from datetime import UTC, datetime, timedelta
from pathlib import Path

from PySide6.QtCore import QSize
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

from recall.changes import decks as deck_changes
from recall.changes.cards import Changes
from recall.collection import importing, opening
from recall.content.deck_format import load_deck
from recall.core.preferences import Preferences
from recall.scheduling import Schedulers
from recall.storage import Database
from recall.study.session import StudySession
from recall.ui.application import configure, window_state
from recall.ui.browser.add_card_dialog import AddCardDialog
from recall.ui.main_window import MainWindow

TINY = Path(__file__).resolve().parent.parent / "tests" / "data" / "decks" / "tiny.json"


def _collection(database: Database, now: datetime) -> None:
    opening.install_bundled_decks(database, now)
    importing.import_deck(database, load_deck(TINY), now)
    schedulers = Schedulers()
    session = StudySession(database, schedulers, "activation-recompute")
    moment = now - timedelta(days=3)
    for _ in range(5):
        shown = session.next_card(moment)
        assert shown is not None
        moment += timedelta(seconds=20)
        answer = session.answer_choice(shown, {shown.order[0]}, moment)
        session.record(answer, answer.proposed, moment)
    with database.reading() as transaction:
        bundled = transaction.decks.by_key("activation-recompute")
        tiny = transaction.decks.by_key("tiny")
    assert bundled is not None
    assert tiny is not None
    deck_changes.rename_deck(database, bundled.id, "Machine learning::Memory", now)
    deck_changes.rename_deck(database, tiny.id, "Machine learning::Warm-up", now)
    changes = Changes(database, schedulers, Preferences(), rng=random.Random(1))
    with database.reading() as transaction:
        ids = [card.id for card in transaction.cards.of_deck(bundled.id)]
    changes.flag(ids[:1], 1)
    changes.flag(ids[2:3], 3)
    changes.suspend(ids[6:7])


def main() -> None:
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else Path("docs")
    out.mkdir(parents=True, exist_ok=True)
    app = QApplication(sys.argv[:1])
    configure(app)
    now = datetime.now(UTC)
    with tempfile.TemporaryDirectory() as folder:
        data = Path(folder)
        database = Database(data / "recall.sqlite3")
        _collection(database, now)
        window = MainWindow(database, window_state(data), lambda: now)
        window.resize(QSize(1000, 720))
        window.show()
        QTest.qWaitForWindowExposed(window)
        browser = window.collection.browse("deck:machine*")
        browser.resize(QSize(1280, 800))
        browser.wait()
        browser.select_rows([2])
        QTest.qWait(100)
        browser.grab().save(str(out / "browser.png"))
        with database.reading() as transaction:
            decks = transaction.browsing.decks()
        dialog = AddCardDialog(database, window.collection.changes, decks, lambda: now, decks[1].id)
        editor = dialog.editor
        editor.question.setPlainText("Which of these keeps **activation memory** flat in depth?")
        texts = (
            ("Recomputing every layer in the backward pass", True, ""),
            ("Storing every activation in fp32", False, "That grows linearly with depth."),
            ("A larger batch size", False, "It raises activation memory; it does not flatten it."),
        )
        for row, (text, correct, why) in zip(editor._rows, texts, strict=True):
            row.text.setText(text)
            row.correct.setChecked(correct)
            row.why.setText(why)
            row.text.setCursorPosition(0)
        editor.explanation.setPlainText("Full recomputation trades one extra forward pass.")
        editor.tags.setText("memory checkpointing")
        dialog.resize(QSize(820, 520))
        dialog.show()
        QTest.qWaitForWindowExposed(dialog)
        QTest.qWait(100)
        dialog.grab().save(str(out / "editor.png"))
        dialog.close()
        browser.close()
        window.close()
        database.close()
    QApplication.processEvents()


if __name__ == "__main__":
    main()
