"""Edit > Preferences (Ctrl+,): every preference, the theme and text size applied at once."""

from __future__ import annotations

from datetime import UTC, datetime

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QApplication,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QVBoxLayout,
    QWidget,
)

from recall.core import fields
from recall.core.errors import RecallError
from recall.core.i18n import tr
from recall.core.preferences import Preferences
from recall.options import deck_options
from recall.storage import Database
from recall.ui.appearance import apply_preferences
from recall.ui.options.api_section import ApiSection
from recall.ui.options.option_form import OptionForm
from recall.ui.options.sync_section import SyncSection
from recall.ui.plain_text import plain_label
from recall.ui.prompts import Prompts

# Each language by its own name, so a learner finds theirs whatever the window shows.
LANGUAGE_NAMES = {"en": "English", "de": "Deutsch"}


def name_languages(form: OptionForm) -> None:
    """Name the Language choices: "as the system says", then each language in itself."""
    combo = form.editors.get("language")
    if not isinstance(combo, QComboBox):
        return
    for index in range(combo.count()):
        code = combo.itemData(index)
        combo.setItemText(
            index, tr("As the system says") if code == "system" else LANGUAGE_NAMES.get(code, code)
        )


class PreferencesDialog(QDialog):
    """The learner's preferences, stored in the database when saved.

    Changing the theme or the text size shows it at once; Cancel puts back what was.

    Args:
        database: Where preferences are stored.
        prompts: Says what could not be saved.
        parent: The main window.
    """

    saved = Signal(object)  # Preferences

    def __init__(self, database: Database, prompts: Prompts, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._database = database
        self._prompts = prompts
        self._original = deck_options.preferences(database)
        self.setWindowTitle(tr("Preferences"))
        self.setObjectName("preferencesDialog")
        # The local API's options have a section of their own (a key is made, never typed).
        shown = [item for item in fields.describe(Preferences) if item.editable]
        self.form = OptionForm(shown, self)
        name_languages(self.form)
        self.form.set_values(self._original)
        self.sync = SyncSection(database, self)
        self.api = ApiSection(self._original, self)
        note = plain_label(tr("Point at an option to see what it does."))
        note.setObjectName("hint")
        self.language_note = plain_label(tr("A new language shows the next time Recall starts."))
        self.language_note.setObjectName("hint")
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel
        )
        layout = QVBoxLayout(self)
        layout.addWidget(self.form)
        layout.addWidget(note)
        layout.addWidget(self.language_note)
        layout.addWidget(self.sync)
        layout.addWidget(self.api)
        layout.addWidget(self.buttons)
        self._connect_signals()

    def chosen(self) -> Preferences:
        """The preferences as edited, each value checked by its option.

        Raises:
            RecallError: A value the option cannot take (``OptionError``), or a local API
                port or origin that cannot be used.
        """
        from recall.api.configuration import with_api  # loads when first saved

        return with_api(fields.replaced(self._original, self.form.values()), **self.api.values())

    def _connect_signals(self) -> None:
        self.form.changed.connect(self._on_changed)
        self.buttons.accepted.connect(self._on_save)
        self.buttons.rejected.connect(self.reject)
        self.rejected.connect(self._on_cancelled)

    def _on_changed(self) -> None:
        try:
            preview = self.chosen()
        except RecallError:
            return
        app = QApplication.instance()
        if isinstance(app, QApplication):
            apply_preferences(app, preview)

    def _on_save(self) -> None:
        try:
            chosen = self.chosen()
            moved = deck_options.save_preferences(self._database, chosen, datetime.now(UTC))
            self.sync.save(datetime.now(UTC))
        except RecallError as error:
            self._prompts.refused(tr("Preferences not saved"), error)
            return
        if moved is not None:
            self._prompts.tell("Recall", deck_options.moved_note(moved))
        self._original = chosen
        self.saved.emit(chosen)
        self.accept()

    def _on_cancelled(self) -> None:
        app = QApplication.instance()
        if isinstance(app, QApplication):
            apply_preferences(app, self._original)
