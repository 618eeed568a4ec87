"""Fixtures for driving the real window with pytest-qt."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from pathlib import Path

import PySide6
import pytest
from PySide6.QtCore import QSettings
from PySide6.QtGui import QTextDocumentFragment
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot
from shiboken6 import isValid

from recall.scheduling import Schedulers
from recall.storage import Database
from recall.ui.application import configure, window_state
from recall.ui.main_window import MainWindow
from recall.ui.none_guard import guard_none
from recall.ui.prompts import Prompts
from tests.conftest import ZONE, Clock

WindowFactory = Callable[[], MainWindow]

guard_none(PySide6.__version__)  # as the app does at start: tests make many Qt calls


def tooltip_text(tooltip: str) -> str:
    """The text a tooltip shows: rich text is laid out, plain text shown as it is."""
    if tooltip.startswith("<"):
        return QTextDocumentFragment.fromHtml(tooltip).toPlainText()
    return tooltip


class FakePrompts(Prompts):
    """Answers for the learner and remembers what was asked, so no modal box blocks a test."""

    def __init__(self) -> None:
        super().__init__()
        self.answers: list[bool] = []
        self.asked: list[tuple[str, str]] = []
        self.told: list[tuple[str, str]] = []
        self.texts: list[str | None] = []

    def confirm(self, title: str, question: str) -> bool:
        self.asked.append((title, question))
        return self.answers.pop(0)

    def retry(self, title: str, problem: str) -> bool:
        self.asked.append((title, problem))
        return self.answers.pop(0)

    def tell(self, title: str, text: str, warning: bool = False) -> None:
        self.told.append((title, text))

    def ask_text(self, title: str, label: str, text: str = "") -> str | None:
        self.asked.append((title, label))
        return self.texts.pop(0)

    def choose(self, title: str, label: str, items: list[str]) -> str | None:
        self.asked.append((title, label))
        answer = self.texts.pop(0)
        assert answer is None or answer in items, (answer, items)
        return answer


@pytest.fixture
def prompts() -> FakePrompts:
    return FakePrompts()


@pytest.fixture
def window_settings(tmp_path: Path) -> QSettings:
    return window_state(tmp_path)


@pytest.fixture
def make_window(
    qtbot: QtBot,
    qapp: QApplication,
    bundled: Database,
    schedulers: Schedulers,
    clock: Clock,
    window_settings: QSettings,
    prompts: FakePrompts,
) -> Iterator[WindowFactory]:
    configure(qapp)
    made: list[MainWindow] = []

    def make() -> MainWindow:
        window = MainWindow(
            bundled,
            window_settings,
            clock,
            rng=random.Random(5),
            zone=ZONE,
            prompts=prompts,
            schedulers=schedulers,
        )
        qtbot.addWidget(window)
        window.show()
        qtbot.waitExposed(window)
        window.activateWindow()
        window.deck_list.focus_table()
        made.append(window)
        return window

    yield make
    for window in made:
        settle(window)


def settle(window: MainWindow) -> None:
    """Let every job the window (and its statistics and browser windows) started finish and
    hand back its result while the widgets are still there, so that no result of one test
    arrives in the next test's event loop, at widgets closed meanwhile."""
    if not isValid(window):
        return
    runners = [window.tasks]
    for other in (window.statistics, window.collection.browser):
        if other is not None and isValid(other):
            runners.append(other.tasks)
    for runner in runners:
        runner.wait(120_000)
    QApplication.processEvents()


@pytest.fixture
def window(make_window: WindowFactory) -> MainWindow:
    return make_window()
