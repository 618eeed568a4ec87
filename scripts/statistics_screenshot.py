"""Save screenshots of the statistics window after two months of studying the bundled deck.

Run with ``.venv/bin/python scripts/statistics_screenshot.py [OUT_DIR] [light|dark]``: it
studies the bundled deck day by day in a temporary data folder (a seeded learner who is right
about four times in five and twice picks the same wrong option on one card), then opens the
statistics window on it and saves ``statistics-<scheme>.png``.
"""

from __future__ import annotations

import random
import sys
import tempfile
from datetime import UTC, datetime, timedelta
from pathlib import Path

from PySide6.QtCore import QSize, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

from recall.collection import opening
from recall.content.deck_format import ChoiceCard
from recall.core.preferences import Preferences
from recall.scheduling import Schedulers
from recall.storage import Database
from recall.study.session import StudySession
from recall.ui.application import configure
from recall.ui.statistics.window import StatisticsWindow

DECK = "activation-recompute"


def study_history(database: Database, now: datetime, days: int, seed: int = 7) -> datetime:
    """Study the bundled deck on most of ``days`` days before ``now``, then once more on the
    day the next card comes due; returns that moment, the "now" to show statistics at."""
    schedulers = Schedulers()
    rng = random.Random(seed)
    stubborn: dict[int, int] = {}  # card -> the wrong option this learner keeps picking

    def sitting(clock: datetime) -> None:
        session = StudySession(database, schedulers, DECK, rng)
        while (shown := session.next_card(clock)) is not None:
            card = shown.card
            assert isinstance(card, ChoiceCard)
            clock += timedelta(seconds=rng.randint(4, 30))
            wrong = [i for i, choice in enumerate(card.choices) if not choice.correct]
            if rng.random() < 0.78:
                picked = set(card.correct_indexes)
            else:
                picked = {stubborn.setdefault(shown.card_id, rng.choice(wrong))}
            answer = session.answer_choice(shown, picked, clock)
            rating = answer.proposed
            if rng.random() < 0.1 and answer.correct:
                rating = rng.choice(list(answer.intervals))
            session.record(answer, rating, clock)

    for day in range(days, 0, -1):
        if rng.random() < 0.15:
            continue  # a day off
        sitting(now - timedelta(days=day, hours=rng.choice((1, 2, 3, 9, 10))))
    with database.reading() as transaction:
        deck = transaction.decks.by_key(DECK)
        assert deck is not None
        dues = [card.memory.due for card in transaction.cards.of_deck(deck.id)]
    today = max(now, min(due for due in dues if due is not None) + timedelta(minutes=5))
    sitting(today - timedelta(minutes=1))
    return today + timedelta(minutes=30)


def main() -> None:
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else Path("docs")
    scheme = sys.argv[2] if len(sys.argv) > 2 else "light"
    app = QApplication(sys.argv[:1])
    if scheme == "dark":
        app.styleHints().setColorScheme(Qt.ColorScheme.Dark)
        if app.styleHints().colorScheme() != Qt.ColorScheme.Dark:
            from screenshots import _dark_palette  # the script beside this one

            app.setPalette(_dark_palette())
    configure(app)
    # History ends in the evening, so the hours of study spread over the day.
    local = datetime.now().astimezone().replace(hour=21, minute=30, second=0, microsecond=0)
    now = local.astimezone(UTC)
    with tempfile.TemporaryDirectory() as folder:
        database = Database(Path(folder) / "recall.sqlite3")
        opening.install_bundled_decks(database, now - timedelta(days=70))
        now = study_history(database, now, 60)
        window = StatisticsWindow(
            database, Preferences(), lambda: now, [(DECK, "Activation recomputation")], DECK
        )
        window.resize(QSize(1180, 820))
        window.show()
        QTest.qWaitForWindowExposed(window)
        window.refresh()
        QTest.qWait(10)
        window.tasks.wait()
        QTest.qWait(100)
        # The whole page, every section, as if the window were tall enough to show it all.
        page = window.page_scroll.widget()
        assert page is not None
        window.resize(QSize(1180, page.sizeHint().height() + 60))
        QTest.qWait(100)
        window.grab().save(str(out / f"statistics-{scheme}.png"))
        window.close()
        database.close()


if __name__ == "__main__":
    main()
