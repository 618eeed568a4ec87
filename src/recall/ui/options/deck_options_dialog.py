"""Study > Deck Options: the deck's preset, every option, Optimize, Reset and the simulator.

Saving runs on the task runner: a change to steps, retention, maximum interval or FSRS
parameters replays every affected card's history (after a backup), with progress after
half a second; the main window keeps the change so Edit > Undo Options Change can put it
back.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from datetime import datetime
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFrame,
    QHBoxLayout,
    QLineEdit,
    QPushButton,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from recall.core import days, fields
from recall.core.errors import RecallError
from recall.core.i18n import tr, trn
from recall.core.presets import DEFAULT_PRESET_ID, Preset
from recall.core.progress import Cancelled, Progress
from recall.core.wording import number
from recall.options import deck_options, optimizing
from recall.options.deck_options import DeckOptions, OptionsChange
from recall.scheduling import DEFAULT_PARAMETERS, Schedulers
from recall.storage import Database
from recall.ui.operations import Operations
from recall.ui.options.option_form import OptionForm
from recall.ui.options.simulator_dialog import SimulatorDialog
from recall.ui.plain_text import plain_label, plain_tooltip
from recall.ui.prompts import Prompts
from recall.ui.tasks import TaskRunner


def _form_options() -> list[fields.OptionInfo]:
    """The options in the form, worded in the learner's language (read when shown)."""
    return [item for item in fields.describe(Preset) if item.editable and item.key != "parameters"]


def _parameters() -> fields.OptionInfo:
    """The FSRS parameters' option, edited in a line of its own."""
    return fields.info(Preset, "parameters")


class DeckOptionsDialog(QDialog):
    """The options of one deck's preset.

    Args:
        database: Where presets live.
        schedulers: Builds schedulers for rescheduling.
        deck_key: The deck whose options are shown.
        clock: The current time, aware UTC.
        operations: Saves (and reschedules) off the window's thread, with progress.
        tasks: Runs optimizing and the simulator off the window's thread.
        prompts: Asks and tells the learner.
        parent: The main window.
    """

    saved = Signal(object)  # OptionsChange

    def __init__(
        self,
        database: Database,
        schedulers: Schedulers,
        deck_key: str,
        clock: Callable[[], datetime],
        operations: Operations,
        tasks: TaskRunner,
        prompts: Prompts,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self._database = database
        self._schedulers = schedulers
        self._deck_key = deck_key
        self._clock = clock
        self._operations = operations
        self._tasks = tasks
        self._prompts = prompts
        self.simulator: SimulatorDialog | None = None
        self._options: DeckOptions = deck_options.deck_options(database, deck_key)
        self._fitted: tuple[float, ...] | None = None
        self._fitted_guessing = False  # whether the fit counted right picks as maybe guesses
        self._fit_words = ""
        self.setWindowTitle(tr("Deck Options: {deck}").format(deck=self._options.deck.name))
        self.setObjectName("deckOptionsDialog")
        self._build()
        self._connect_signals()
        self._show_preset(self._options.preset_id)
        self._fit_screen()

    # Public API (tests drive these as the buttons do)

    @property
    def preset_id(self) -> int:
        """The preset chosen in the picker."""
        return int(self.presets.currentData())

    def edited(self) -> Preset:
        """The chosen preset with the values on screen, each checked by its option.

        Raises:
            OptionError: A value the option cannot take.
        """
        current = self._options.presets[self.preset_id]
        values: dict[str, Any] = self.form.values()
        shown = self.parameters.text()
        values["parameters"] = fields.parse(_parameters(), shown)
        if self._fitted is not None and shown == fields.format_value(self._fitted, _parameters()):
            values["parameters"] = self._fitted  # as fitted, not rounded for display
        if values["parameters"] == DEFAULT_PARAMETERS:
            values["parameters"] = ()
        for key in ("extra_new_today", "extra_reviews_today"):
            if values[key] == getattr(current, key):
                del values[key]  # unchanged extras keep their end
        edited = fields.replaced(current, values)
        if {"extra_new_today", "extra_reviews_today"} & values.keys():
            preferences = deck_options.preferences(self._database)
            end = days.study_day(self._clock(), preferences.day_rollover_hour)[1]
            edited = dataclasses.replace(edited, extra_until=end)
        return edited

    def save(self) -> None:
        """Store the preset and the deck's choice of it, rescheduling on the task runner."""
        try:
            edited = self.edited()
        except RecallError as error:
            self._prompts.refused(tr("Options not saved"), error)
            return
        deck_ids = [self._options.deck.id]
        if self.subdecks.isChecked():
            deck_ids += [deck.id for deck in self._subdecks()]
        database, schedulers, now, preset_id = (
            self._database,
            self._schedulers,
            self._clock(),
            self.preset_id,
        )

        def work(progress: Progress, cancelled: Cancelled) -> OptionsChange:
            return deck_options.apply(
                database,
                schedulers,
                {preset_id: edited},
                dict.fromkeys(deck_ids, preset_id),
                now,
                progress,
                cancelled,
            )

        def done(change: OptionsChange) -> None:
            self.setEnabled(True)
            self.saved.emit(change)
            self.accept()

        if self._operations.run(
            tr("Rescheduling cards from their history..."),
            work,
            done,
            failure=tr("Options not saved"),
            cancellable=True,
            on_error=lambda _error: self.setEnabled(True),
            writes_cards=True,
        ):
            self.setEnabled(False)

    def optimize(self) -> None:
        """Fit the preset's parameters to its decks' history on the task runner."""
        database, schedulers, now, preset_id = (
            self._database,
            self._schedulers,
            self._clock(),
            self.preset_id,
        )
        self.optimize_button.setEnabled(False)
        self.fit_result.setText(tr("Fitting parameters to your review history..."))

        decks = self._decks_of_preset()

        def work() -> optimizing.OptimizeReport:
            return optimizing.optimize_preset(
                database, schedulers, preset_id, now, apply=False, decks=decks
            )

        self._tasks.run(work, self._on_optimized, self._on_optimize_failed)

    # Building

    def _fit_screen(self) -> None:
        """As tall as the options want, at most nine tenths of the screen (they scroll)."""
        layout = self.layout()
        assert layout is not None
        wanted = layout.sizeHint().height() + self.form.sizeHint().height()
        screen = self.screen().availableGeometry() if self.screen() is not None else None
        tallest = int(screen.height() * 0.9) if screen is not None else wanted
        self.resize(self.sizeHint().width(), min(wanted, tallest))

    def _build(self) -> None:
        options = self._options
        self.presets = QComboBox()
        self.presets.setAccessibleName(tr("Preset"))
        self.presets.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.add_button = QPushButton(tr("&Add"))
        self.clone_button = QPushButton(tr("&Clone"))
        self.rename_button = QPushButton(tr("Re&name"))
        self.delete_button = QPushButton(tr("&Delete"))
        picker = QHBoxLayout()
        picker.addWidget(plain_label(tr("Preset:")))
        picker.addWidget(self.presets, 1)
        for button in (self.add_button, self.clone_button, self.rename_button, self.delete_button):
            picker.addWidget(button)
        self.sharing = plain_label()
        self.sharing.setObjectName("hint")
        self.sharing.setWordWrap(True)  # many decks sharing a preset must not widen the dialog
        self.form = OptionForm(_form_options(), self)
        parameters = _parameters()
        self.parameters = QLineEdit()
        self.parameters.setObjectName("option_parameters")
        self.parameters.setAccessibleName(parameters.label)
        self.parameters.setToolTip(plain_tooltip(parameters.help))
        self.optimize_button = QPushButton(tr("&Optimize"))
        self.reset_button = QPushButton(tr("&Reset to Defaults"))
        self.simulate_button = QPushButton(tr("&Simulate..."))
        self.apply_fit_button = QPushButton(tr("Use &Fitted"))
        self.apply_fit_button.hide()
        fsrs_row = QHBoxLayout()
        for button in (
            self.optimize_button,
            self.apply_fit_button,
            self.reset_button,
            self.simulate_button,
        ):
            fsrs_row.addWidget(button)
        fsrs_row.addStretch(1)
        self.fit_result = plain_label()
        self.fit_result.setWordWrap(True)
        self.fit_result.setObjectName("optimizeResult")
        self.fit_result.setAccessibleName(tr("Optimize result"))
        self.warnings = plain_label()
        self.warnings.setWordWrap(True)
        self.warnings.setObjectName("warning")
        subdecks = len(self._subdecks())
        self.subdecks = QCheckBox(
            tr("Also give this preset to the subdeck")
            if subdecks == 1
            else trn(
                "Also give this preset to the {count} subdeck",
                "Also give this preset to the {count} subdecks",
                subdecks,
            ).format(count=number(subdecks))
        )
        self.subdecks.setVisible(bool(self._subdecks()))
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Close
        )
        layout = QVBoxLayout(self)
        deck_name = plain_label(options.deck.name)
        bold = deck_name.font()
        bold.setBold(True)
        deck_name.setFont(bold)
        layout.addWidget(deck_name)
        layout.addLayout(picker)
        layout.addWidget(self.sharing)
        # The options scroll when the screen is shorter than they are (over 20 rows).
        scroll = QScrollArea(self)
        scroll.setObjectName("deckOptionsScroll")
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        scroll.setWidget(self.form)
        scroll.setMinimumWidth(self.form.sizeHint().width() + 24)
        layout.addWidget(scroll, 1)
        layout.addWidget(plain_label(tr("{option}:").format(option=parameters.label)))
        layout.addWidget(self.parameters)
        layout.addLayout(fsrs_row)
        layout.addWidget(self.fit_result)
        layout.addWidget(self.warnings)
        layout.addWidget(self.subdecks)
        layout.addWidget(self.buttons)
        self._fill_presets(options.preset_id)

    def _connect_signals(self) -> None:
        self.presets.currentIndexChanged.connect(self._on_preset_chosen)
        self.add_button.clicked.connect(lambda: self._on_add(copy=False))
        self.clone_button.clicked.connect(lambda: self._on_add(copy=True))
        self.rename_button.clicked.connect(self._on_rename)
        self.delete_button.clicked.connect(self._on_delete)
        self.form.changed.connect(self._on_edited)
        self.parameters.textChanged.connect(self._on_edited)
        self.optimize_button.clicked.connect(self.optimize)
        self.apply_fit_button.clicked.connect(self._on_use_fitted)
        self.reset_button.clicked.connect(self._on_reset)
        self.simulate_button.clicked.connect(self._on_simulate)
        self.buttons.accepted.connect(self.save)
        self.buttons.rejected.connect(self.reject)

    def _fill_presets(self, selected: int) -> None:
        self.presets.blockSignals(True)
        self.presets.clear()
        book = self._options.presets
        for preset_id, preset in sorted(book.items(), key=lambda item: item[1].name.lower()):
            users = sum(1 for deck in self._options.decks if self._preset_of(deck.id) == preset_id)
            shown = trn(
                "{preset} (used by {count} deck)", "{preset} (used by {count} decks)", users
            )
            self.presets.addItem(shown.format(preset=preset.name, count=number(users)), preset_id)
        self.presets.setCurrentIndex(max(0, self.presets.findData(selected)))
        self.presets.blockSignals(False)

    def _preset_of(self, deck_id: int) -> int:
        with self._database.reading() as transaction:
            return transaction.options.deck_presets().preset_id_of(deck_id)

    def _show_preset(self, preset_id: int) -> None:
        preset = self._options.presets[preset_id]
        self.form.set_values(preset)
        self.parameters.setText(
            fields.format_value(preset.parameters or DEFAULT_PARAMETERS, _parameters())
        )
        self.parameters.setCursorPosition(0)
        names = [deck.name for deck in self._options.decks if self._preset_of(deck.id) == preset_id]
        self.sharing.setText(
            tr("Used by: {decks}").format(decks=", ".join(names))
            if names
            else tr("Used by: no deck yet (Save gives it to this one)")
        )
        self.delete_button.setEnabled(preset_id != DEFAULT_PRESET_ID)
        self.fit_result.clear()
        self.apply_fit_button.hide()
        self._on_edited()

    def _decks_of_preset(self) -> list[int]:
        """The decks that will use the chosen preset once saved: its own, this one, subdecks."""
        chosen = {
            deck.id for deck in self._options.decks if self._preset_of(deck.id) == self.preset_id
        }
        chosen.add(self._options.deck.id)
        if self.subdecks.isChecked():
            chosen.update(deck.id for deck in self._subdecks())
        return sorted(chosen)

    def _subdecks(self) -> list[Any]:
        return deck_options.subdecks(self._options.decks, self._options.deck)

    def _reload(self, selected: int) -> None:
        self._options = deck_options.deck_options(self._database, self._deck_key)
        self._fill_presets(selected)
        self._show_preset(self.preset_id)

    # Slots

    def _on_preset_chosen(self, _index: int) -> None:
        self._show_preset(self.preset_id)

    def _on_edited(self) -> None:
        try:
            warnings = self.edited().warnings()
        except RecallError as error:
            warnings = [str(error)]
        self.warnings.setText("\n".join(f"⚠ {warning}" for warning in warnings))
        self.warnings.setVisible(bool(warnings))

    def _on_add(self, copy: bool) -> None:
        title = tr("Clone Preset") if copy else tr("Add Preset")
        base = self._options.presets[self.preset_id]
        suggested = tr("{preset} copy").format(preset=base.name) if copy else ""
        name = self._prompts.ask_text(title, tr("Name:"), suggested)
        if name is None:
            return
        try:
            made = deck_options.add_preset(self._database, name, base if copy else None)
        except RecallError as error:
            self._prompts.refused(title, error)
            return
        self._reload(made)

    def _on_rename(self) -> None:
        current = self._options.presets[self.preset_id]
        name = self._prompts.ask_text(tr("Rename Preset"), tr("Name:"), current.name)
        if name is None:
            return
        try:
            deck_options.rename_preset(self._database, self.preset_id, name)
        except RecallError as error:
            self._prompts.refused(tr("Rename Preset"), error)
            return
        self._reload(self.preset_id)

    def _on_delete(self) -> None:
        preset = self._options.presets[self.preset_id]
        question = tr("Delete preset {preset}? Its decks go back to the default preset.").format(
            preset=repr(preset.name)
        )
        if not self._prompts.confirm(tr("Delete Preset"), question):
            return
        try:
            change = deck_options.delete_preset(
                self._database, self._schedulers, self.preset_id, self._clock()
            )
        except RecallError as error:
            self._prompts.refused(tr("Delete Preset"), error)
            return
        self.saved.emit(change)
        self._reload(DEFAULT_PRESET_ID)

    def _on_reset(self) -> None:
        self.parameters.setText(fields.format_value(DEFAULT_PARAMETERS, _parameters()))

    def _on_use_fitted(self) -> None:
        if self._fitted is not None:
            self.parameters.setText(fields.format_value(self._fitted, _parameters()))
            self.parameters.setCursorPosition(0)
            # The parameters were fitted under one likelihood: the choice goes with them.
            guess_box = self.form.editors["guess_correction"]
            assert isinstance(guess_box, QCheckBox)
            guess_box.setChecked(self._fitted_guessing)
            self.fit_result.setText(
                tr("{outcome} The fitted parameters are filled in: Save applies them.").format(
                    outcome=self._fit_words
                )
            )
        # Hiding the button would hand the keys to Reset to Defaults: Save comes next.
        self.buttons.button(QDialogButtonBox.StandardButton.Save).setFocus(
            Qt.FocusReason.OtherFocusReason
        )
        self.apply_fit_button.hide()

    def _on_optimized(self, report: optimizing.OptimizeReport) -> None:
        self.optimize_button.setEnabled(True)
        self._fit_words = report.words()
        text = report.words(in_window=True)
        if report.result.better:
            self._fitted = report.result.fitted
            self._fitted_guessing = report.guess_correction
        self.fit_result.setText(text)
        self.apply_fit_button.setVisible(report.result.better)
        # The button disabled while optimizing lost the keys: give them to what comes next.
        after = self.apply_fit_button if report.result.better else self.optimize_button
        after.setFocus(Qt.FocusReason.OtherFocusReason)

    def _on_optimize_failed(self, error: Exception) -> None:
        self.optimize_button.setEnabled(True)
        self.optimize_button.setFocus(Qt.FocusReason.OtherFocusReason)
        if not isinstance(error, RecallError):
            raise error
        self.fit_result.setText(tr("Optimize failed: {error}").format(error=error))

    def _on_simulate(self) -> None:
        try:
            preset = self.edited()
        except RecallError as error:
            self._prompts.refused(tr("Simulate"), error)
            return
        simulator = SimulatorDialog(
            self._database, self.preset_id, preset, self._tasks, self, self._decks_of_preset()
        )
        simulator.accepted.connect(lambda: self._on_retention_chosen(simulator.chosen_retention))
        self.simulator = simulator
        simulator.open()

    def _on_retention_chosen(self, retention: float | None) -> None:
        editor = self.form.editors["desired_retention"]
        if retention is not None and isinstance(editor, QDoubleSpinBox):
            editor.setValue(retention)
