"""The window's options: Edit > Preferences, Study > Deck Options and Exam Date, Edit > Undo
Options Change.

Kept apart from the main window, which puts these actions in its menus and listens to
what they report: new preferences (backup interval, text), a change of deck options (the
deck list's counts), and a line for the status bar.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import Signal
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QWidget

from recall.core.i18n import tr, trn
from recall.core.progress import Cancelled, Progress
from recall.core.wording import number
from recall.options import deck_options
from recall.ui.context import WindowContext, WindowPart

if TYPE_CHECKING:
    from recall.options.deck_options import OptionsChange
    from recall.ui.options.deck_options_dialog import DeckOptionsDialog
    from recall.ui.options.exam_dialog import ExamDateDialog
    from recall.ui.options.preferences_dialog import PreferencesDialog


class OptionsActions(WindowPart):
    """The three actions and the dialogs they open.

    Args:
        database: Where preferences and presets live.
        schedulers: Builds schedulers for rescheduling.
        clock: The current time, aware UTC.
        operations: Runs saving and undoing with progress.
        tasks: Runs Optimize and the simulator.
        prompts: Asks and tells the learner.
        selected_deck: The deck file id of the deck selected in the deck list, if any.
        window: The main window, parent of the actions and dialogs.
    """

    preferences_saved = Signal(object)  # Preferences
    options_changed = Signal()
    message = Signal(str)

    def __init__(
        self,
        context: WindowContext,
        selected_deck: Callable[[], str | None],
        window: QWidget,
    ) -> None:
        super().__init__(context, window)
        self._selected_deck = selected_deck
        self._window = window
        self._change: OptionsChange | None = None
        self.preferences_dialog: PreferencesDialog | None = None
        self.deck_options_dialog: DeckOptionsDialog | None = None
        self.exam_dialog: ExamDateDialog | None = None
        self.preferences_action = QAction(tr("&Preferences..."), window)
        self.preferences_action.setShortcut(QKeySequence("Ctrl+,"))
        self.deck_options_action = QAction(tr("Deck &Options..."), window)
        self.deck_options_action.setShortcut(QKeySequence("Ctrl+Shift+O"))
        self.exam_action = QAction(tr("E&xam Date..."), window)
        self.exam_action.setShortcut(QKeySequence("Ctrl+Shift+X"))
        self.undo_action = QAction(tr("Undo &Options Change"), window)
        self.undo_action.setShortcut(QKeySequence("Ctrl+Alt+Z"))
        self.undo_action.setEnabled(False)
        self._connect_signals()

    @property
    def actions(self) -> tuple[QAction, ...]:
        """Preferences, Deck Options, Exam Date and Undo Options Change."""
        return self.preferences_action, self.deck_options_action, self.exam_action, self.undo_action

    def _connect_signals(self) -> None:
        self.preferences_action.triggered.connect(self._on_preferences)
        self.deck_options_action.triggered.connect(self._on_deck_options)
        self.exam_action.triggered.connect(self._on_exam)
        self.undo_action.triggered.connect(self._on_undo)

    def _on_preferences(self) -> None:
        from recall.ui.options.preferences_dialog import (
            PreferencesDialog,  # loads when first opened
        )

        dialog = PreferencesDialog(self._database, self._prompts, self._window)
        dialog.saved.connect(self.preferences_saved)
        self.preferences_dialog = dialog
        dialog.open()

    def _on_deck_options(self) -> None:
        key = self._selected_deck()
        if key is None:
            return
        # With its charts, the optimizer and the simulator: loaded when first opened.
        from recall.ui.options.deck_options_dialog import DeckOptionsDialog

        dialog = DeckOptionsDialog(
            self._database,
            self._schedulers,
            key,
            self._clock,
            self._operations,
            self._tasks,
            self._prompts,
            self._window,
        )
        dialog.saved.connect(self._on_saved)
        self.deck_options_dialog = dialog
        dialog.open()

    def _on_exam(self) -> None:
        key = self._selected_deck()
        if key is None:
            return
        from recall.ui.options.exam_dialog import ExamDateDialog  # loads when first opened

        dialog = ExamDateDialog(
            self._database,
            self._schedulers,
            key,
            self._clock,
            self._tasks,
            self._prompts,
            self._zone,
            self._window,
        )
        dialog.saved.connect(lambda line: self.message.emit(line))
        self.exam_dialog = dialog
        dialog.open()

    def _on_saved(self, change: OptionsChange) -> None:
        self._change = change
        self.undo_action.setEnabled(bool(change.presets_before or change.decks_before))
        summary = change.summary()
        self.message.emit(summary[:1].upper() + summary[1:])
        self.options_changed.emit()

    def _on_undo(self) -> None:
        change = self._change
        if change is None or self._operations.busy:
            return
        database, schedulers, now = self._database, self._schedulers, self._clock()

        def work(progress: Progress, _cancelled: Cancelled) -> OptionsChange:
            return deck_options.undo(database, schedulers, change, now, progress)

        if self._operations.run(
            tr("Putting the options back..."),
            work,
            self._on_undone,
            failure=tr("Undo Options Change"),
            writes_cards=True,
        ):
            self._change = None
            self.undo_action.setEnabled(False)

    def _on_undone(self, change: OptionsChange) -> None:
        if change.rescheduled:
            undone = trn(
                "Options change undone; {count} card rescheduled",
                "Options change undone; {count} cards rescheduled",
                change.rescheduled,
            ).format(count=number(change.rescheduled))
        else:
            undone = tr("Options change undone")
        self.message.emit(undone)
        self.options_changed.emit()
