"""Study > Exam Date: the figures come from the task runner, and Save stores the day."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest
from PySide6.QtCore import QDate, Qt
from pytestqt.qtbot import QtBot

from recall.options import exam_dates
from recall.stats.exam import ExamForecast
from recall.storage import Database
from recall.ui.main_window import MainWindow
from recall.ui.options.exam_dialog import ExamDateDialog
from tests.conftest import Clock, answer_cards

pytestmark = pytest.mark.qt_log_ignore("^This plugin does not support")

DECK = "activation-recompute"


def open_exam_dialog(qtbot: QtBot, window: MainWindow) -> ExamDateDialog:
    window.deck_list.focus_table()
    qtbot.keyClick(
        window.deck_list.table,
        Qt.Key.Key_X,
        Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier,
    )
    dialog = window.options.exam_dialog
    assert dialog is not None
    qtbot.waitExposed(dialog)
    return dialog


def test_the_dialog_shows_the_forecast_and_save_stores_the_exam_day(
    qtbot: QtBot, bundled: Database, clock: Clock, window: MainWindow, tmp_path: Path
) -> None:
    answer_cards(bundled, clock, 6)
    window.refresh_decks(select=DECK)
    dialog = open_exam_dialog(qtbot, window)
    assert not dialog.has_exam.isChecked()
    assert dialog.figures.text().startswith("No exam")
    with qtbot.waitSignal(dialog.forecast_shown, timeout=60_000) as shown:
        dialog.day.setDate(QDate(2026, 3, 1))
        dialog.has_exam.setChecked(True)
    figures = shown.args[0]
    assert isinstance(figures, ExamForecast)
    assert figures.exam == date(2026, 3, 1)
    text = dialog.figures.text()
    assert text.splitlines()[0].startswith("Exam on 1 March 2026:")
    assert f"of the {figures.cards} cards on the day" in text
    assert "To remember 90%, study about" in text or "90% is out of reach" in text
    assert "Skipping today leaves about" in text
    assert not dialog.progress.isVisible()
    picture = tmp_path / "exam-date.png"
    assert dialog.grab().save(str(picture))
    assert picture.stat().st_size > 0

    with qtbot.waitSignal(dialog.forecast_shown, timeout=60_000) as again:
        dialog.target.setValue(80)
    assert again.args[0].target == 0.8
    qtbot.mouseClick(
        dialog.buttons.button(dialog.buttons.StandardButton.Save), Qt.MouseButton.LeftButton
    )
    assert exam_dates.exam_date(bundled, DECK) == date(2026, 3, 1)
    assert window.statusBar().currentMessage().endswith("exam on 1 March 2026")

    dialog = open_exam_dialog(qtbot, window)
    assert dialog.has_exam.isChecked()
    assert dialog.chosen_day() == date(2026, 3, 1)
    # The stored day's forecast runs as the dialog opens.
    qtbot.waitUntil(lambda: dialog.forecast is not None, timeout=60_000)
    assert dialog.figures.text().startswith("Exam on 1 March 2026:")
    dialog.has_exam.setChecked(False)
    qtbot.mouseClick(
        dialog.buttons.button(dialog.buttons.StandardButton.Save), Qt.MouseButton.LeftButton
    )
    assert exam_dates.exam_date(bundled, DECK) is None
