"""Preferences, deck options and the simulator, driven in the real window."""

from __future__ import annotations

import json
from datetime import time, timedelta
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import (
    QApplication,
    QCheckBox,
    QComboBox,
    QDialogButtonBox,
    QDoubleSpinBox,
    QLineEdit,
    QSpinBox,
)
from pytestqt.qtbot import QtBot

from recall.collection import deck_list as library
from recall.collection import importing
from recall.content.deck_format import parse_deck
from recall.core.memory import Rating
from recall.core.preferences import Preferences
from recall.core.presets import DEFAULT_PRESET_ID
from recall.options import deck_options, workload
from recall.safekeeping import integrity
from recall.scheduling import DEFAULT_PARAMETERS, Schedulers
from recall.storage import Database
from recall.ui.main_window import MainWindow
from recall.ui.options.deck_options_dialog import DeckOptionsDialog
from recall.ui.options.preferences_dialog import PreferencesDialog
from recall.ui.options.simulator_dialog import SimulatorDialog
from tests.conftest import ZONE, Clock
from tests.scheduling.test_optimize import START, simulate, store_history, truth
from tests.ui.conftest import FakePrompts, WindowFactory

DECK = "activation-recompute"
# Showing a dialog on the offscreen platform logs this; it says nothing about Recall.
pytestmark = pytest.mark.qt_log_ignore("^This plugin does not support propagateSizeHints")


def open_preferences(qtbot: QtBot, window: MainWindow) -> PreferencesDialog:
    window.options.preferences_action.trigger()
    dialog = window.options.preferences_dialog
    assert dialog is not None
    qtbot.waitExposed(dialog)
    return dialog


def open_deck_options(qtbot: QtBot, window: MainWindow) -> DeckOptionsDialog:
    window.options.deck_options_action.trigger()
    dialog = window.options.deck_options_dialog
    assert dialog is not None
    qtbot.waitExposed(dialog)
    return dialog


def window_colour() -> int:
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    return app.palette().color(QPalette.ColorRole.Window).lightness()


def test_the_theme_changes_at_once_and_cancel_puts_it_back(
    qtbot: QtBot, window: MainWindow, bundled: Database
) -> None:
    light = window_colour()
    dialog = open_preferences(qtbot, window)
    theme = dialog.form.editors["theme"]
    assert isinstance(theme, QComboBox)
    theme.setCurrentIndex(theme.findData("dark"))
    assert window_colour() < 100 < light
    dialog.reject()
    assert window_colour() == light
    assert deck_options.preferences(bundled).theme == "system"


def test_saved_preferences_are_stored_and_used(
    qtbot: QtBot, window: MainWindow, bundled: Database
) -> None:
    dialog = open_preferences(qtbot, window)
    backups = dialog.form.editors["backup_interval_minutes"]
    intervals = dialog.form.editors["show_next_intervals"]
    assert isinstance(backups, QSpinBox)
    assert isinstance(intervals, QCheckBox)
    backups.setValue(45)
    intervals.setChecked(False)
    with qtbot.waitSignal(dialog.saved):
        qtbot.mouseClick(dialog.buttons.buttons()[0], Qt.MouseButton.LeftButton)
    assert deck_options.preferences(bundled) == Preferences(
        backup_interval_minutes=45, show_next_intervals=False
    )
    assert window.safekeeping.backup_timer.interval() == 45 * 60 * 1000
    # The rating buttons now show no intervals.
    qtbot.keyClick(window.deck_list.table, Qt.Key.Key_Return)
    review = window.review
    assert review is not None
    review.pick(0)
    assert review.rating_buttons[Rating.GOOD].text() == "3 Good"


def test_deck_options_limit_the_deck_list_and_undo_puts_them_back(
    qtbot: QtBot, window: MainWindow, bundled: Database, clock: Clock
) -> None:
    dialog = open_deck_options(qtbot, window)
    assert dialog.preset_id == DEFAULT_PRESET_ID
    new = dialog.form.editors["new_per_day"]
    retention = dialog.form.editors["desired_retention"]
    assert isinstance(new, QSpinBox)
    assert isinstance(retention, QDoubleSpinBox)
    new.setValue(5)
    retention.setValue(0.98)
    assert "above 0.97" in dialog.warnings.text()
    retention.setValue(0.85)
    assert not dialog.warnings.isVisibleTo(dialog)
    with qtbot.waitSignal(dialog.saved, timeout=10_000):
        dialog.save()
    (deck,) = library.deck_overviews(bundled, clock(), ZONE)
    assert deck.new == 5
    qtbot.waitUntil(lambda: window.deck_list.model.deck_at(0).new == 5, timeout=10_000)
    assert deck_options.deck_options(bundled, DECK).preset.desired_retention == 0.85
    assert window.options.undo_action.isEnabled()
    window.options.undo_action.trigger()
    qtbot.waitUntil(lambda: window.deck_list.model.deck_at(0).new == 8, timeout=10_000)
    assert deck_options.deck_options(bundled, DECK).preset.new_per_day == 20


def test_a_new_preset_for_one_deck_and_a_bad_value(
    qtbot: QtBot, window: MainWindow, bundled: Database, prompts: FakePrompts, clock: Clock
) -> None:
    dialog = open_deck_options(qtbot, window)
    prompts.texts.append("Exam")
    qtbot.mouseClick(dialog.clone_button, Qt.MouseButton.LeftButton)
    assert dialog.presets.currentText().startswith("Exam")
    dialog.form.editors["learning_steps"].setText("1m 5x")  # type: ignore[attr-defined]
    assert "'5x' is not a step" in dialog.warnings.text()
    dialog.save()
    assert prompts.told[-1][0] == "Options not saved"
    dialog.form.editors["learning_steps"].setText("2m 20m")  # type: ignore[attr-defined]
    with qtbot.waitSignal(dialog.saved, timeout=10_000):
        dialog.save()
    options = deck_options.deck_options(bundled, DECK)
    assert options.preset.name == "Exam"
    assert options.preset.learning_steps == (timedelta(minutes=2), timedelta(minutes=20))
    assert integrity.check(bundled, Schedulers(fuzz=False), clock()).healthy


def test_optimize_says_what_it_found(qtbot: QtBot, window: MainWindow, bundled: Database) -> None:
    dialog = open_deck_options(qtbot, window)
    qtbot.mouseClick(dialog.optimize_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: dialog.optimize_button.isEnabled(), timeout=10_000)
    assert dialog.fit_result.text().startswith("Nothing to fit yet in preset 'Default'")
    assert not dialog.apply_fit_button.isVisibleTo(dialog)
    assert dialog.focusWidget() is dialog.optimize_button


def run_simulator(qtbot: QtBot, dialog: DeckOptionsDialog) -> SimulatorDialog:
    qtbot.mouseClick(dialog.simulate_button, Qt.MouseButton.LeftButton)
    simulator = dialog.simulator
    assert isinstance(simulator, SimulatorDialog)
    qtbot.waitUntil(lambda: simulator.simulation is not None, timeout=120_000)
    return simulator


def test_the_simulator_charts_each_retention_and_keeps_the_default_for_a_new_deck(
    qtbot: QtBot, window: MainWindow, bundled: Database
) -> None:
    dialog = open_deck_options(qtbot, window)
    simulator = run_simulator(qtbot, dialog)
    assert len(simulator.reviews_chart.points) == 30
    assert simulator.reviews_chart.points[0][0] == 0.7
    assert simulator.reviews_chart.points[-1][0] == 0.99
    assert len(simulator.per_minute_chart.points) == 30
    # Eight cards and no reviews say nothing about this learner: the reason says so.
    assert simulator.reason.isVisibleTo(simulator)
    assert simulator.reason.text().startswith(
        "Suggested: desired retention 0.90, the default, kept: 8 cards and 0 reviews"
    )


def test_the_simulator_shows_why_it_suggests_and_use_suggested_applies_it(
    qtbot: QtBot, window: MainWindow, bundled: Database
) -> None:
    store_history(bundled, simulate(truth((0.5, 2.0, 6.0, 20.0), 1.2), 300, 100, 9), START)
    window.refresh_decks(select="generated")
    dialog = open_deck_options(qtbot, window)
    simulator = run_simulator(qtbot, dialog)
    assert simulator.simulation is not None
    suggested = simulator.simulation.suggested
    assert simulator.simulation.basis is workload.Basis.BEST
    assert 0.7 < suggested < 0.97
    reason = simulator.reason.text()
    assert reason.startswith(f"Suggested: desired retention {suggested:.2f}. Of the retentions")
    assert "cards remembered per minute of study" in reason
    assert "at your 0.90" in reason
    qtbot.mouseClick(simulator.use_button, Qt.MouseButton.LeftButton)
    retention = dialog.form.editors["desired_retention"]
    assert isinstance(retention, QDoubleSpinBox)
    assert retention.value() == suggested
    assert suggested != 0.9


def test_optimize_then_use_fitted_then_save_applies_the_fit(
    qtbot: QtBot, window: MainWindow, bundled: Database, clock: Clock
) -> None:
    store_history(bundled, simulate(truth((0.5, 2.0, 6.0, 20.0), 1.2), 100, 300, 9), START)
    window.refresh_decks(select="generated")
    dialog = open_deck_options(qtbot, window)
    qtbot.mouseClick(dialog.optimize_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: dialog.optimize_button.isEnabled(), timeout=20_000)
    assert dialog.fit_result.text().startswith("Fitted to")
    assert "a better fit" in dialog.fit_result.text()
    # By keys alone: the keys are on Use Fitted, then on Save (never Reset to Defaults).
    assert dialog.focusWidget() is dialog.apply_fit_button
    qtbot.keyClick(dialog.apply_fit_button, Qt.Key.Key_Space)
    assert "Save applies them" in dialog.fit_result.text()
    save = dialog.buttons.button(QDialogButtonBox.StandardButton.Save)
    assert dialog.focusWidget() is save
    with qtbot.waitSignal(dialog.saved, timeout=20_000):
        qtbot.keyClick(save, Qt.Key.Key_Space)
    assert dialog.fit_result.text().startswith("Fitted to")
    stored = deck_options.deck_options(bundled, "generated").preset.parameters
    assert stored == dialog._fitted  # exactly as fitted, not as rounded on screen
    assert stored != DEFAULT_PARAMETERS
    # The window's schedulers have fuzz off (tests/ui/conftest.py); so has this check.
    assert integrity.check(bundled, Schedulers(fuzz=False), clock()).healthy


def test_text_size_scales_the_style_sheet_at_once(qtbot: QtBot, window: MainWindow) -> None:
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    assert "22pt" in app.styleSheet()
    dialog = open_preferences(qtbot, window)
    size = dialog.form.editors["text_size"]
    assert isinstance(size, QSpinBox)
    size.setValue(150)
    assert "33.0pt" in app.styleSheet()
    dialog.reject()
    assert "22pt" in app.styleSheet()


def test_many_decks_sharing_a_preset_wrap_instead_of_widening_the_dialog(
    qtbot: QtBot, make_window: WindowFactory, bundled: Database, clock: Clock
) -> None:
    for number in range(40):
        deck = {"format": "recall-deck", "version": 1, "id": f"d{number}"}
        deck["name"] = f"A deck with a rather long name, number {number}"
        deck["cards"] = [{"id": "c", "type": "basic", "front": "Front", "back": "Back"}]
        importing.import_deck(bundled, parse_deck(json.dumps(deck), "deck.json"), clock())
    window = make_window()
    window.refresh_decks(select=DECK)
    dialog = open_deck_options(qtbot, window)
    assert "number 39" in dialog.sharing.text()
    assert dialog.sizeHint().width() < 1000
    assert dialog.presets.currentText() == "Default (used by 41 decks)"


def test_deck_options_set_load_balancing_and_an_easy_day(
    qtbot: QtBot, window: MainWindow, bundled: Database
) -> None:
    dialog = open_deck_options(qtbot, window)
    balancing = dialog.form.editors["load_balancing"]
    sunday = dialog.form.editors["easy_sunday"]
    assert isinstance(balancing, QCheckBox)
    assert isinstance(sunday, QComboBox)
    assert balancing.isChecked()
    assert [sunday.itemData(index) for index in range(sunday.count())] == [
        "normal",
        "reduced",
        "minimum",
    ]
    assert sunday.accessibleName() == "Easy Days: Sunday"
    balancing.setChecked(False)
    sunday.setCurrentIndex(sunday.findData("minimum"))
    with qtbot.waitSignal(dialog.saved, timeout=10_000):
        dialog.save()
    preset = deck_options.deck_options(bundled, DECK).preset
    assert preset.load_balancing is False
    assert preset.easy_days == ("normal",) * 6 + ("minimum",)


def test_type_in_from_stability_is_off_in_the_dialog_and_saved_when_set(
    qtbot: QtBot, window: MainWindow, bundled: Database, tmp_path: Path
) -> None:
    dialog = open_deck_options(qtbot, window)
    editor = dialog.form.editors["type_in_from_stability"]
    assert isinstance(editor, QSpinBox)
    assert editor.value() == 0  # off unless the learner asks for it
    assert "Type-in from stability" in editor.accessibleName()
    editor.setValue(21)
    dialog.grab().save(str(tmp_path / "deck-options.png"))
    with qtbot.waitSignal(dialog.saved, timeout=10_000):
        dialog.save()
    assert deck_options.deck_options(bundled, DECK).preset.type_in_from_stability == 21


def test_the_daily_reminder_reads_off_as_an_empty_box_and_stores_a_typed_time(
    qtbot: QtBot, window: MainWindow, bundled: Database
) -> None:
    dialog = open_preferences(qtbot, window)
    reminder = dialog.form.editors["reminder_time"]
    assert isinstance(reminder, QLineEdit)
    assert reminder.text() == ""  # off, said by the placeholder in the learner's language
    assert "09:30" in reminder.placeholderText()
    reminder.setText("07:30")
    with qtbot.waitSignal(dialog.saved):
        qtbot.mouseClick(dialog.buttons.buttons()[0], Qt.MouseButton.LeftButton)
    assert deck_options.preferences(bundled).reminder_time == time(7, 30)
    dialog = open_preferences(qtbot, window)
    shown = dialog.form.editors["reminder_time"]
    assert isinstance(shown, QLineEdit)
    assert shown.text() == "07:30"
    shown.setText("")
    with qtbot.waitSignal(dialog.saved):
        qtbot.mouseClick(dialog.buttons.buttons()[0], Qt.MouseButton.LeftButton)
    assert deck_options.preferences(bundled).reminder_time is None
