"""The main window's menu bar: its own actions, the menus that hold every action, Help.

Each group of actions (options, collection, upkeep) is made by its own module; this one
makes the window's remaining actions and lays every action out in the menus, so a new
menu entry is one action here or in its group and one line in ``_fill``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, qVersion
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QMainWindow, QMenuBar, QMessageBox

from recall import __version__
from recall.core.i18n import mark, tr
from recall.storage import SQLITE_VERSION
from recall.ui.collection_actions import CollectionActions
from recall.ui.data.safekeeping_actions import SafekeepingActions
from recall.ui.options.actions import OptionsActions

if TYPE_CHECKING:
    from recall.ui.shortcuts_dialog import ShortcutsDialog

SHORTCUTS = (
    ("Enter", mark("Study the selected deck")),
    ("1-9, 0", mark("Pick a choice (toggle on 'select all' cards)")),
    ("Space / Enter", mark("Submit, show the answer, or accept the suggested rating")),
    ("1 / 2 / 3 / 4", mark("After the answer: rate Again / Hard / Good / Easy")),
    ("Alt+C", mark("On a choice card asked as type-in: show its choices (then at most Hard)")),
    ("Up / Down, PgUp / PgDown", mark("Scroll a long card")),
    ("R / F5", mark("Play the card's sounds again")),
    ("5", mark("Pause or resume the sound (where 5 picks no choice)")),
    ("Ctrl+Z", mark("Undo the last rating, bury or suspend; on the deck list, the last change")),
    ("E / - / @", mark("While studying: edit / bury / suspend the card on screen")),
    ("Ctrl+1 … Ctrl+7", mark("While studying or browsing: flag the card (again: unflag)")),
    ("B / A", mark("Browse cards / Add cards")),
    ("Ctrl+Shift+N / F2", mark("New deck / Rename the selected deck (A::B moves it inside A)")),
    ("Escape", mark("Back to the deck list")),
    ("Ctrl+Shift+I", mark("Import decks (Recall JSON, Anki .apkg, Anki text); or drop files")),
    ("Ctrl+Shift+E", mark("Export the selected deck (.json or .apkg)")),
    ("Ctrl+Shift+B", mark("Backups")),
    ("Ctrl+Y", mark("Sync now through the sync folder (Edit > Preferences)")),
    ("Ctrl+Shift+K", mark("Check the database: every schedule against its history")),
    ("Shift+S", mark("Statistics of the selected deck (switch to all decks in the window)")),
    ("Ctrl+,", mark("Preferences: theme, study day, grading, text size, backups")),
    ("Ctrl+Shift+O", mark("Options of the selected deck: limits, steps, retention, FSRS")),
    ("Ctrl+Shift+X", mark("Exam date of the selected deck, and what to expect on the day")),
    ("Ctrl+Alt+Z", mark("Undo the last change of deck options (schedules as they were)")),
    ("F1", mark("This list")),
    ("Ctrl+Q", mark("Quit")),
)


def library_versions() -> dict[str, str]:
    """The versions of the libraries Recall runs on, for Help > About and bug reports."""
    from importlib import metadata  # slow to import: only when asked

    try:
        fsrs = metadata.version("fsrs")  # read from the metadata: only scheduling imports fsrs
    except metadata.PackageNotFoundError:
        fsrs = "unknown"
    return {"Qt": qVersion(), "SQLite": SQLITE_VERSION, "fsrs": fsrs}


class MainMenus(QObject):
    """The window's own actions, and the menu bar laid out with them and the groups' actions.

    The window connects the actions it answers (import, undo, study...); Help's two are
    answered here.

    Args:
        window: The main window, parent of the actions; its menu bar is filled.
        options: Preferences, Deck Options and Undo Options Change.
        collection: Browse, Add Cards and the deck actions.
        upkeep: Backups and Check Database.
        sync_action: File > Sync Now.
    """

    def __init__(
        self,
        window: QMainWindow,
        options: OptionsActions,
        collection: CollectionActions,
        upkeep: SafekeepingActions,
        sync_action: QAction | None = None,
    ) -> None:
        super().__init__(window)
        self._window = window
        self._sync_action = sync_action
        self.import_action = _action(window, tr("&Import Deck..."), "Ctrl+Shift+I")
        self.export_action = _action(window, tr("&Export Deck..."), "Ctrl+Shift+E")
        self.export_reviews_action = _action(window, tr("Export &Review History..."))
        self.quit_action = _action(window, tr("&Quit"), "Ctrl+Q")
        self.undo_action = _action(window, tr("&Undo"), "Ctrl+Z")
        self.undo_action.setEnabled(False)
        self.back_action = _action(window, tr("&Back to Decks"), "Escape")
        self.study_action = _action(window, tr("&Study Selected Deck"))
        self.statistics_action = _action(window, tr("S&tatistics..."), "Shift+S")
        self.custom_study_action = _action(window, tr("&Custom Study..."), "Ctrl+Shift+C")
        self.time_off_action = _action(window, tr("&Time Off..."), "Ctrl+Shift+T")
        self.shortcuts_action = _action(window, tr("&Keyboard Shortcuts"), "F1")
        self.about_action = _action(window, tr("&About Recall"))
        self.shortcuts_dialog: ShortcutsDialog | None = None
        # Window-wide shortcuts work whichever screen has the keyboard.
        for action in (
            self.import_action,
            self.export_action,
            *upkeep.actions,
            self.quit_action,
            self.undo_action,
            self.back_action,
            *options.actions,
            self.statistics_action,
            self.custom_study_action,
            self.time_off_action,
            *([sync_action] if sync_action is not None else []),
        ):
            window.addAction(action)
        self._fill(window.menuBar(), options, collection, upkeep)
        self.shortcuts_action.triggered.connect(self._on_shortcuts)
        self.about_action.triggered.connect(self._on_about)

    @property
    def busy_actions(self) -> tuple[QAction, ...]:
        """The window's actions that work on the cards, off while an operation runs."""
        return self.import_action, self.export_action, self.export_reviews_action

    def _fill(
        self,
        bar: QMenuBar,
        options: OptionsActions,
        collection: CollectionActions,
        upkeep: SafekeepingActions,
    ) -> None:
        file_menu = bar.addMenu(tr("&File"))
        file_menu.addAction(self.import_action)
        file_menu.addAction(self.export_action)
        file_menu.addAction(self.export_reviews_action)
        if self._sync_action is not None:
            file_menu.addSeparator()
            file_menu.addAction(self._sync_action)
        file_menu.addSeparator()
        file_menu.addAction(upkeep.backups_action)
        file_menu.addSeparator()
        file_menu.addAction(self.quit_action)
        edit_menu = bar.addMenu(tr("&Edit"))
        edit_menu.addAction(self.undo_action)
        edit_menu.addAction(options.undo_action)
        edit_menu.addSeparator()
        edit_menu.addAction(options.preferences_action)
        study_menu = bar.addMenu(tr("&Study"))
        study_menu.addAction(self.study_action)
        study_menu.addAction(options.deck_options_action)
        study_menu.addAction(options.exam_action)
        study_menu.addAction(self.back_action)
        study_menu.addSeparator()
        study_menu.addAction(self.custom_study_action)
        study_menu.addSeparator()
        study_menu.addAction(self.statistics_action)
        decks_menu = bar.addMenu(tr("&Decks"))
        tools_menu = bar.addMenu(tr("&Tools"))
        collection.fill_menus(tools_menu, decks_menu)
        tools_menu.addSeparator()
        tools_menu.addAction(self.custom_study_action)
        tools_menu.addAction(self.time_off_action)
        tools_menu.addSeparator()
        tools_menu.addAction(upkeep.check_action)
        help_menu = bar.addMenu(tr("&Help"))
        help_menu.addAction(self.shortcuts_action)
        help_menu.addAction(self.about_action)

    def _on_shortcuts(self) -> None:
        from recall.ui.shortcuts_dialog import BROWSER_SHORTCUTS, ShortcutsDialog

        if self.shortcuts_dialog is None:
            sections = ((tr("Main window"), SHORTCUTS), (tr("Card browser (B)"), BROWSER_SHORTCUTS))
            self.shortcuts_dialog = ShortcutsDialog(sections, self._window)
        self.shortcuts_dialog.show()
        self.shortcuts_dialog.raise_()
        self.shortcuts_dialog.activateWindow()

    def _on_about(self) -> None:
        versions = "<br>".join(f"{name} {version}" for name, version in library_versions().items())
        QMessageBox.about(
            self._window,
            tr("About Recall"),
            f"<h3>Recall {__version__}</h3>"
            f"<p>{tr('Spaced-repetition quizzes, scheduled with FSRS.')}</p><p>{versions}</p>",
        )


def _action(window: QMainWindow, text: str, keys: str = "") -> QAction:
    action = QAction(text, window)
    if keys:
        action.setShortcut(QKeySequence(keys))
    return action
