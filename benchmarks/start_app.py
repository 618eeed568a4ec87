"""Child process: Recall started as ``recall`` starts, until its first card is painted.

``python -m benchmarks.start_app DATA_DIR DECK_KEY`` (or ``DATA_DIR --deck-list``) runs the
real entry point (``recall.cli.main``) on ``DATA_DIR``. The only addition is a hook on the
window it shows:
as soon as the event loop runs, the deck ``DECK_KEY`` is studied (what Enter on the deck
list does), and at the first paint of the review screen after a card is on it, the process
prints ``painted <peak RSS in kB>`` and exits at once, skipping the backup made on close.
With ``--deck-list`` it stops at the first paint of the deck list instead, and adds the
summed PSS of the process and its children.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from PySide6.QtCore import QEvent, QObject, QTimer
from PySide6.QtWidgets import QWidget

from benchmarks.proc import peak_rss_kb, tree_pss_kb
from recall.cli import main as cli
from recall.storage import Database
from recall.ui import application
from recall.ui.main_window import MainWindow
from recall.ui.prompts import Prompts


class _FirstPaint(QObject):
    """Ends the process at the first paint of the review screen showing a card (or, with
    ``deck_list``, of the deck list showing its decks)."""

    def __init__(self, window: MainWindow, deck_list: bool) -> None:
        super().__init__()
        self._window = window
        self._deck_list = deck_list

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if self._deck_list:
            decks = self._window.deck_list
            if (
                event.type() == QEvent.Type.Paint
                and decks.model.rowCount() > 0
                and isinstance(watched, QWidget)
                and decks.isAncestorOf(watched)
            ):
                print(f"painted {peak_rss_kb()} {tree_pss_kb(os.getpid())}", flush=True)
                os._exit(0)
            return False
        review = self._window.review
        if (
            event.type() == QEvent.Type.Paint
            and review is not None
            and review.shown is not None
            and isinstance(watched, QWidget)
            and (watched is review or review.isAncestorOf(watched))
        ):
            print(f"painted {peak_rss_kb()}", flush=True)
            os._exit(0)
        return False


def main() -> None:
    data_dir, deck_key = sys.argv[1], sys.argv[2]
    deck_list = deck_key == "--deck-list"
    original = application.show_window

    def show_and_study(
        database: Database, data_dir: Path, prompts: Prompts, minimized: bool = False
    ) -> MainWindow:
        window = original(database, data_dir, prompts, minimized)
        watcher = _FirstPaint(window, deck_list)
        _watchers.append(watcher)  # lives as long as the process
        application.application().installEventFilter(watcher)
        if not deck_list:
            QTimer.singleShot(0, lambda: window.study(deck_key))
        return window

    application.show_window = show_and_study
    sys.exit(cli.main(["--data-dir", data_dir]))


_watchers: list[QObject] = []

if __name__ == "__main__":
    main()
