"""The deck options window's optimizer on a deck of choice cards: it says both figures of the
guess correction, and Use Fitted then Save stores the choice with the parameters."""

from __future__ import annotations

import pytest
from benchmarks.learners import timed_learners
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QCheckBox, QDialogButtonBox
from pytestqt.qtbot import QtBot

from recall.options import deck_options
from recall.storage import Database
from recall.ui.main_window import MainWindow
from tests.options.test_optimizing_guesses import store
from tests.ui.test_options_windows import open_deck_options

# The offscreen platform cannot pass on a dialog's size hints (as in test_options_windows).
pytestmark = pytest.mark.qt_log_ignore("^This plugin does not support propagateSizeHints")


def test_use_fitted_then_save_stores_the_guess_correction_with_the_parameters(
    qtbot: QtBot, window: MainWindow, bundled: Database
) -> None:
    store(bundled, timed_learners(160, 300, seed=1, choices=(2, 4, 0), guessing=True))
    window.refresh_decks(select="quiz")
    dialog = open_deck_options(qtbot, window)
    guess_box = dialog.form.editors["guess_correction"]
    assert isinstance(guess_box, QCheckBox)
    assert not guess_box.isChecked()
    qtbot.mouseClick(dialog.optimize_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: dialog.optimize_button.isEnabled(), timeout=120_000)
    text = dialog.fit_result.text()
    assert "Guess correction" in text
    assert " without, " in text
    assert "adopted: the parameters are fitted with it" in text
    qtbot.keyClick(dialog.apply_fit_button, Qt.Key.Key_Space)
    assert guess_box.isChecked()
    save = dialog.buttons.button(QDialogButtonBox.StandardButton.Save)
    with qtbot.waitSignal(dialog.saved, timeout=60_000):
        qtbot.keyClick(save, Qt.Key.Key_Space)
    preset = deck_options.deck_options(bundled, "quiz").preset
    assert preset.guess_correction
    assert preset.parameters == dialog._fitted
