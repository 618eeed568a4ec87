"""A deck, a description, a tag and a card whose text looks like HTML are shown as written in
every window, and the file their ``<img>`` names is never opened."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6 import QtGui
from PySide6.QtCore import QPoint, Qt, QTimer
from PySide6.QtGui import QTextDocumentFragment
from PySide6.QtWidgets import (
    QApplication,
    QDialog,
    QInputDialog,
    QLabel,
    QMessageBox,
    QToolTip,
    QWidget,
)
from pytestqt.qtbot import QtBot

from recall.changes import decks as deck_changes
from recall.changes import editing
from recall.core.progress import Cancelled, Progress
from recall.storage import Database
from recall.ui.main_window import MainWindow
from recall.ui.plain_text import menu_text, plain_tooltip
from recall.ui.prompts import Prompts
from tests.conftest import Clock
from tests.ui.conftest import WindowFactory
from tests.ui.test_options_windows import open_deck_options

pytestmark = pytest.mark.qt_log_ignore("^This plugin does not support (propagateSizeHints|raise)")


SERVE = """
import sys
from pathlib import Path
fifo, stop = Path(sys.argv[1]), Path(sys.argv[2])
opens = 0
while True:
    with fifo.open("wb"):
        if stop.exists():
            break
        opens += 1
print(opens)
"""


class OpenWatch:
    """A FIFO that records whether anything opened it for reading.

    Another process waits to open the FIFO for writing, which succeeds only once a reader
    opens it; it then closes at once, so a reader (Qt) reads an empty file instead of
    hanging. (A thread could not: Qt reads holding Python's lock, which the thread needs.)
    """

    def __init__(self, path: Path) -> None:
        os.mkfifo(path)
        self.path = path
        self._stop = path.with_name(path.name + ".stop")
        self._server = subprocess.Popen(
            [sys.executable, "-c", SERVE, str(path), str(self._stop)],
            stdout=subprocess.PIPE,
            text=True,
        )
        self.opened: int | None = None

    def stop(self) -> int:
        """End the watch; returns how often the FIFO was opened by anything else."""
        if self.opened is None:
            self._stop.touch()
            reader = os.open(self.path, os.O_RDONLY | os.O_NONBLOCK)  # ends the server's wait
            output, _ = self._server.communicate()
            os.close(reader)
            self.opened = int(output)
        return self.opened


@pytest.fixture
def watch(tmp_path: Path) -> Iterator[OpenWatch]:
    opened = OpenWatch(tmp_path / "fifo.png")
    yield opened
    opened.stop()


def _deck_id(database: Database) -> int:
    with database.transaction() as transaction:
        (deck,) = transaction.browsing.decks()
    return deck.id


def shown_as(tooltip: str) -> str:
    """The text a tooltip shows (it is laid out as rich text when it looks like HTML)."""
    assert QtGui.Qt.mightBeRichText(tooltip)
    return QTextDocumentFragment.fromHtml(tooltip).toPlainText()


def _show_tooltip(qtbot: QtBot, tooltip: str, over: QWidget) -> None:
    QToolTip.showText(over.mapToGlobal(QPoint(5, 5)), tooltip, over)
    qtbot.waitUntil(QToolTip.isVisible)
    QToolTip.hideText()


def _labels_showing(marker: str) -> list[QLabel]:
    return [
        label
        for label in QApplication.allWidgets()
        if isinstance(label, QLabel) and marker in label.text()
    ]


def _no_label_guesses(marker: str) -> None:
    """Every label showing ``marker`` shows it as plain text, and no tooltip holds it raw."""
    for label in _labels_showing(marker):
        assert label.textFormat() == Qt.TextFormat.PlainText, label.objectName()
    raw = [widget for widget in QApplication.allWidgets() if marker in widget.toolTip()]
    assert raw == []


def test_a_deck_named_like_html_shows_as_written_everywhere_and_loads_nothing(
    qtbot: QtBot,
    make_window: WindowFactory,
    bundled: Database,
    clock: Clock,
    watch: OpenWatch,
) -> None:
    name = f'<img src="{watch.path}"> & co'
    description = f'<img src="{watch.path}"> <b>described</b>'
    deck_id = _deck_id(bundled)
    deck_changes.rename_deck(bundled, deck_id, name, clock())
    deck_changes.describe_deck(bundled, deck_id, description, clock())
    with bundled.transaction() as transaction:
        (deck,) = transaction.browsing.decks()
    question = f'<img src="{watch.path}"> Which one?'
    editing.add_card(
        bundled,
        deck,
        {"type": "basic", "front": question, "back": "This.", "tags": ["<b>tagged</b>"]},
        clock(),
    )
    window = make_window()

    # The deck list: the name as the row's text, the description as its tooltip.
    table = window.deck_list.table
    index = window.deck_list.model.index(0, 0)
    assert index.data() == name
    assert shown_as(index.data(Qt.ItemDataRole.ToolTipRole)) == description
    _show_tooltip(qtbot, index.data(Qt.ItemDataRole.ToolTipRole), table)
    _no_label_guesses("<img")

    # The review screen's header names the deck.
    qtbot.keyClick(table, Qt.Key.Key_Return)
    review = window.review
    assert review is not None
    header = review.findChild(QLabel, "deckName")
    assert header is not None
    assert header.text() == name
    _no_label_guesses("<img")
    qtbot.keyClick(review, Qt.Key.Key_Escape)
    window.show_decks()

    # The browser: the sidebar's deck and tag, the card's tooltip, the editor's title.
    browser = window.collection.browse()
    browser.wait()
    qtbot.waitExposed(browser)
    sidebar_deck = browser.sidebar.findItems(name, Qt.MatchFlag.MatchRecursive)
    assert len(sidebar_deck) == 1
    assert shown_as(sidebar_deck[0].toolTip(0)) == name
    _show_tooltip(qtbot, sidebar_deck[0].toolTip(0), browser.sidebar)
    assert browser.sidebar.findItems("<b>tagged</b>", Qt.MatchFlag.MatchRecursive)
    browser.search_box.setText(f"deck:{deck.key}")
    qtbot.keyClick(browser.search_box, Qt.Key.Key_Return)
    browser.wait()
    cells = [
        browser.model.index(row, column)
        for row in range(browser.model.rowCount())
        for column in range(browser.model.columnCount())
    ]
    card_tips = [
        (str(cell.data()), str(cell.data(Qt.ItemDataRole.ToolTipRole)))
        for cell in cells
        if cell.data(Qt.ItemDataRole.ToolTipRole)
    ]
    assert card_tips
    for shown, tip in card_tips:  # the question column's tooltip: its text as shown
        assert shown_as(tip) == shown
    _show_tooltip(qtbot, card_tips[0][1], browser.table)
    assert name in browser.editor_title.text()
    _no_label_guesses("<img")
    browser.close()

    # Statistics: the deck picker and the status line.
    window.menus.statistics_action.trigger()
    qtbot.waitUntil(
        lambda: window.statistics is not None and window.statistics.statistics is not None
    )
    statistics = window.statistics
    assert statistics is not None
    picker = statistics.deck_box
    assert name in [picker.itemText(i) for i in range(picker.count())]
    picker.setCurrentIndex([picker.itemText(i) for i in range(picker.count())].index(name))
    qtbot.waitUntil(lambda: name in statistics.status.text())
    _no_label_guesses("<img")
    statistics.close()

    # Deck options: its title, the deck's name above the form, the decks using the preset.
    window.deck_list.focus_table()
    options = open_deck_options(qtbot, window)
    assert name in options.windowTitle()
    assert any(label.text() == name for label in _labels_showing("<img"))
    assert name in options.sharing.text()
    _no_label_guesses("<img")
    options.reject()

    assert watch.stop() == 0


def test_message_boxes_and_input_dialogs_show_their_text_as_written(
    qtbot: QtBot, watch: OpenWatch
) -> None:
    parent = QWidget()
    qtbot.addWidget(parent)
    prompts = Prompts(parent)
    text = f'Deck <img src="{watch.path}"> imported with 1 problem: <b>line 2</b>'
    seen: list[tuple[Qt.TextFormat, str]] = []

    def answer() -> None:
        box = QApplication.activeModalWidget()
        assert isinstance(box, QMessageBox | QInputDialog)
        for label in box.findChildren(QLabel):
            if "<img" in label.text():
                seen.append((label.textFormat(), label.text()))
        assert isinstance(box, QDialog)
        box.reject()

    for ask in (
        lambda: prompts.tell("Import", text, warning=True),
        lambda: prompts.confirm("Import", text),
        lambda: prompts.ask_text("Rename", text, "name"),
        lambda: prompts.choose("Move", text, ["A", "B"]),
    ):
        QTimer.singleShot(0, answer)
        ask()
    assert seen == [(Qt.TextFormat.PlainText, text)] * 4
    assert watch.stop() == 0


def test_a_progress_dialog_describes_in_plain_text(
    qtbot: QtBot, window: MainWindow, watch: OpenWatch
) -> None:
    described = f'Reading <img src="{watch.path}">\'s changes...'
    release = threading.Event()

    def work(progress: Progress, cancelled: Cancelled) -> None:
        window.operations.describe(described)
        release.wait()

    assert window.operations.run("Syncing...", work, lambda _result: None, failure="Sync failed")
    dialog = window.operations.dialog
    assert dialog is not None
    qtbot.waitUntil(lambda: bool(_labels_showing(described)))
    dialog.show()
    qtbot.waitExposed(dialog)
    _no_label_guesses("<img")
    release.set()
    qtbot.waitUntil(lambda: not window.operations.busy)
    assert watch.stop() == 0


def test_menu_texts_keep_a_names_ampersand() -> None:
    assert menu_text("Rock & Roll") == "Rock && Roll"
    assert shown_as(plain_tooltip("a\n<b>b</b>")) == "a\n<b>b</b>"
    assert plain_tooltip("") == ""


@pytest.mark.qt_log_ignore("^QFile::at: Cannot set file position")  # Qt reading the FIFO
def test_the_watch_sees_qt_guess_html_and_open_the_file(qtbot: QtBot, watch: OpenWatch) -> None:
    """The check above can fail: a label left to guess opens the file its text names."""
    label = QLabel(f'<img src="{watch.path}">')
    qtbot.addWidget(label)
    label.show()
    qtbot.waitExposed(label)
    label.sizeHint()
    assert watch.stop() >= 1
