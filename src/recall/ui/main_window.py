"""The main window: the deck list, the review screen and the summary, with menus."""

from __future__ import annotations

import random
from collections.abc import Callable
from datetime import datetime, tzinfo
from importlib import metadata
from pathlib import Path

from PySide6.QtCore import QByteArray, QMimeData, QSettings, QSize, QTimer, qVersion
from PySide6.QtGui import QAction, QCloseEvent, QDragEnterEvent, QDropEvent, QKeySequence
from PySide6.QtWidgets import QMainWindow, QMessageBox, QStackedWidget, QWidget

from recall import __version__, backups, integrity, library, paths, upkeep
from recall.importing import ImportReport
from recall.integrity import CheckReport
from recall.preferences import Preferences
from recall.progress import Cancelled, Progress
from recall.scheduling import Schedulers
from recall.storage import SQLITE_VERSION, Database
from recall.study import StudySession
from recall.ui.backups_dialog import BackupsDialog
from recall.ui.collection_actions import CollectionActions
from recall.ui.deck_list_view import DeckListView
from recall.ui.operations import Operations
from recall.ui.options_actions import OptionsActions
from recall.ui.prompts import Prompts
from recall.ui.review_view import ReviewView
from recall.ui.statistics_window import StatisticsWindow
from recall.ui.summary_view import SummaryView
from recall.ui.tasks import TaskRunner
from recall.ui.transfers import Transfers, importable

SHORTCUTS = (
    ("Enter", "Study the selected deck"),
    ("1-9, 0", "Pick a choice (toggle on 'select all' cards)"),
    ("Space / Enter", "Submit, show the answer, or accept the suggested rating"),
    ("1 / 2 / 3 / 4", "After the answer: rate Again / Hard / Good / Easy"),
    ("Up / Down, Page Up / Down", "Scroll a long card"),
    ("R / F5", "Play the card's sounds again"),
    ("5", "Pause or resume the sound (where 5 picks no choice)"),
    ("Ctrl+Z", "Undo the last rating, bury or suspend; on the deck list, the last change"),
    ("E / - / @", "While studying: edit / bury / suspend the card on screen"),
    ("Ctrl+1 … Ctrl+7", "While studying or browsing: flag the card (again: unflag)"),
    ("B / A", "Browse cards / Add cards"),
    ("Ctrl+Shift+N / F2", "New deck / Rename the selected deck (A::B moves it inside A)"),
    ("Escape", "Back to the deck list"),
    ("Ctrl+Shift+I", "Import decks (Recall JSON, Anki .apkg, Anki text); or drop files"),
    ("Ctrl+Shift+E", "Export the selected deck (.json or .apkg)"),
    ("Ctrl+Shift+B", "Backups"),
    ("Ctrl+Shift+K", "Check the database: every schedule against its history"),
    ("Shift+S", "Statistics of the selected deck (switch to all decks in the window)"),
    ("Ctrl+,", "Preferences: theme, study day, grading, text size, backups"),
    ("Ctrl+Shift+O", "Options of the selected deck: limits, steps, retention, FSRS"),
    ("Ctrl+Alt+Z", "Undo the last change of deck options (schedules as they were)"),
    ("F1", "This list"),
    ("Ctrl+Q", "Quit"),
)


def library_versions() -> dict[str, str]:
    """The versions of the libraries Recall runs on, for Help > About and bug reports."""
    try:
        fsrs = metadata.version("fsrs")  # read from the metadata: only scheduling imports fsrs
    except metadata.PackageNotFoundError:
        fsrs = "unknown"
    return {"Qt": qVersion(), "SQLite": SQLITE_VERSION, "fsrs": fsrs}


class MainWindow(QMainWindow):
    """Recall's window.

    Args:
        database: The open database; it holds the preferences and deck presets.
        window_state: Where the window keeps its size between runs.
        clock: The current time, aware UTC.
        rng: Shuffles choices; tests pass a seeded one.
        zone: The learner's time zone; None is the system's.
        prompts: Asks and tells the learner; tests answer for them.
        schedulers: FSRS per preset; tests turn interval fuzz off.
    """

    def __init__(
        self,
        database: Database,
        window_state: QSettings,
        clock: Callable[[], datetime],
        rng: random.Random | None = None,
        zone: tzinfo | None = None,
        prompts: Prompts | None = None,
        schedulers: Schedulers | None = None,
    ) -> None:
        super().__init__()
        self._database = database
        self._schedulers = schedulers or Schedulers()
        with database.transaction() as store:
            self.preferences: Preferences = store.options.preferences()
        self._window_state = window_state
        self._clock = clock
        self._rng = rng or random.Random()
        self._zone = zone
        self._prompts = prompts or Prompts(self)
        self._review: ReviewView | None = None
        self.statistics: StatisticsWindow | None = None
        self.tasks = TaskRunner(self)
        self.operations = Operations(self.tasks, self._prompts, self)
        self.transfers = Transfers(
            database, self._schedulers, clock, self.operations, self._prompts, self
        )
        self.options = OptionsActions(
            database,
            self._schedulers,
            clock,
            self.operations,
            self.tasks,
            self._prompts,
            lambda: self.deck_list.selected_key(),
            self,
        )
        self.setAcceptDrops(True)
        self.backup_timer = QTimer(self)
        self.backup_timer.setInterval(int(self.preferences.backup_interval.total_seconds() * 1000))
        self.setWindowTitle("Recall")
        self.setObjectName("mainWindow")
        self.setMinimumSize(QSize(640, 480))

        self.deck_list = DeckListView()
        self.summary = SummaryView()
        self.pages = QStackedWidget()
        self.pages.addWidget(self.deck_list)
        self.pages.addWidget(self.summary)
        self.setCentralWidget(self.pages)
        self.collection = CollectionActions(
            database,
            self._schedulers,
            self.preferences,
            clock,
            zone,
            self._prompts,
            self.deck_list,
            self,
        )
        self._create_actions()
        self._create_menus()
        self._connect_signals()
        self._restore_geometry()
        self.refresh_decks()
        self.backup_timer.start()

    @property
    def review(self) -> ReviewView | None:
        """The review screen of the current session, if one was started."""
        return self._review

    def refresh_decks(self, select: str | None = None) -> None:
        """Reload the deck list's counts."""
        overviews = library.deck_overviews(self._database, self._clock(), self._zone)
        self.deck_list.set_decks(overviews, select)

    def show_decks(self) -> None:
        """Go to the deck list, with fresh counts and the keyboard on the table."""
        self.refresh_decks()
        self.pages.setCurrentWidget(self.deck_list)
        self._update_actions()
        self.deck_list.focus_table()

    def study(self, deck_key: str) -> None:
        """Start a study session on a deck."""
        session = StudySession(self._database, self._schedulers, deck_key, self._rng, self._zone)
        review = ReviewView(
            session, self._clock, paths.media_dir(self._database.path.parent), self._prompts
        )
        review.finished.connect(self._on_review_finished)
        review.left.connect(self.show_decks)
        review.stale.connect(self._on_restored)
        review.undo_available.connect(self._on_undo_available)
        self.collection.attach_review(review)
        if self._review is not None:
            self.pages.removeWidget(self._review)
            self._review.deleteLater()
        self._review = review
        self.pages.addWidget(review)
        self.pages.setCurrentWidget(review)
        self._update_actions()
        review.start()

    def show_statistics(self) -> None:
        """Open the statistics window on the selected deck (or bring it to the front)."""
        key = (
            self.deck_list.selected_key() if self.pages.currentWidget() is self.deck_list else None
        )
        overviews = library.deck_overviews(self._database, self._clock(), self._zone)
        decks = [(deck.key, deck.name) for deck in overviews]
        if self.statistics is None:
            self.statistics = StatisticsWindow(
                self._database, self.preferences, self._clock, decks, key, self._zone, self
            )
            self.statistics.card_requested.connect(self.collection.show_card)
            self.statistics.refresh()
        elif key is not None and key != self.statistics.deck_key():
            self.statistics.set_decks(decks)
            self.statistics.set_deck(key)  # which computes the figures again
        else:
            self.statistics.set_decks(decks)
            self.statistics.refresh()
        self.statistics.show()
        self.statistics.raise_()
        self.statistics.activateWindow()

    def back_up_if_changed(self) -> None:
        """Back up in the background if anything changed since the newest backup."""
        database, now = self._database, self._clock()

        def work() -> Path | None:
            if not backups.changed_since_last_backup(database):
                return None
            return backups.make_backup(database, now)

        self.tasks.run(work, self._on_backup_done, self._on_backup_failed)

    def check_database(self) -> None:
        """Check every schedule against its history off the window's thread, then offer repair."""
        database, schedulers, now = self._database, self._schedulers, self._clock()

        def work(progress: Progress, cancelled: Cancelled) -> CheckReport:
            return integrity.check(database, schedulers, now, progress, cancelled)

        self.operations.run(
            "Checking the database...",
            work,
            self._on_checked,
            failure="Check failed",
            cancellable=True,
        )

    def _on_checked(self, report: CheckReport) -> None:
        if report.healthy:
            self._prompts.tell(
                "Check Database",
                f"The database is healthy: {report.cards:,} cards and {report.reviews:,} "
                "reviews checked, every schedule equal to its history.",
            )
            return
        found = "\n".join(f"• {problem}" for problem in report.problems[:8])
        more = len(report.problems) - 8
        if more > 0:
            found += f"\n… and {more:,} more"
        if not upkeep.can_repair(report):
            self._prompts.tell(
                "Check Database",
                f"{len(report.problems):,} problem(s) found:\n\n{found}\n\n"
                "Recall cannot rebuild these; File > Backups can restore an earlier copy.",
                warning=True,
            )
            return
        if not self._prompts.confirm(
            "Check Database",
            f"{len(report.problems):,} problem(s) found:\n\n{found}\n\n"
            "Rebuild the schedules from the review history? A backup is made first; "
            "no review is changed.",
        ):
            return
        database, schedulers, now = self._database, self._schedulers, self._clock()

        def work(_progress: Progress, _cancelled: Cancelled) -> upkeep.Repaired:
            return upkeep.repair(database, schedulers, report, now)

        self.operations.run("Repairing...", work, self._on_repaired, failure="Repair failed")

    def _on_repaired(self, repaired: upkeep.Repaired) -> None:
        state = (
            "The database is healthy now."
            if repaired.after.healthy
            else "\n".join(repaired.after.problems[:5])
        )
        self._prompts.tell(
            "Check Database",
            f"Rebuilt {len(repaired.changes):,} schedule(s) from their history. The database "
            f"as it was is saved as {repaired.backup.name}.\n\n{state}",
        )
        self.refresh_decks()

    def bring_to_front(self) -> None:
        """Show the window above others (a second launch of Recall asks for this)."""
        if self.isMinimized():
            self.showNormal()
        self.show()
        self.raise_()
        self.activateWindow()

    # Qt overrides

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if self._dropped_files(event.mimeData()) and not self.transfers.busy:
            event.acceptProposedAction()

    def dropEvent(self, event: QDropEvent) -> None:
        files = self._dropped_files(event.mimeData())
        if files:
            event.acceptProposedAction()
            self.transfers.import_files(files)

    @staticmethod
    def _dropped_files(mime: QMimeData) -> list[Path]:
        if not mime.hasUrls():
            return []
        files = [Path(url.toLocalFile()) for url in mime.urls() if url.isLocalFile()]
        return files if files and all(importable(file) for file in files) else []

    def closeEvent(self, event: QCloseEvent) -> None:
        if self._review is not None and not self._review.commit_pending():
            question = "Your last answer could not be saved. Quit anyway and lose it?"
            if not self._prompts.confirm("Quit Recall", question):
                event.ignore()
                return
        if self.statistics is not None:
            self.statistics.close()  # hidden: figures still being computed are dropped
            self.statistics.tasks.wait()
        self.collection.close_windows()
        self.backup_timer.stop()
        self.back_up_if_changed()
        self.operations.cancel()
        self.tasks.wait()
        self._window_state.setValue("geometry", self.saveGeometry())
        self._window_state.sync()
        super().closeEvent(event)

    # Building

    def _create_actions(self) -> None:
        self.import_action = QAction("&Import Deck...", self)
        self.import_action.setShortcut(QKeySequence("Ctrl+Shift+I"))
        self.export_action = QAction("&Export Deck...", self)
        self.export_action.setShortcut(QKeySequence("Ctrl+Shift+E"))
        self.export_reviews_action = QAction("Export &Review History...", self)
        self.backups_action = QAction("&Backups...", self)
        self.backups_action.setShortcut(QKeySequence("Ctrl+Shift+B"))
        self.check_action = QAction("&Check Database", self)
        self.check_action.setShortcut(QKeySequence("Ctrl+Shift+K"))
        self.quit_action = QAction("&Quit", self)
        self.quit_action.setShortcut(QKeySequence("Ctrl+Q"))
        self.undo_action = QAction("&Undo", self)
        self.undo_action.setShortcut(QKeySequence("Ctrl+Z"))
        self.undo_action.setEnabled(False)
        self.back_action = QAction("&Back to Decks", self)
        self.back_action.setShortcut(QKeySequence("Escape"))
        self.study_action = QAction("&Study Selected Deck", self)
        self.statistics_action = QAction("S&tatistics...", self)
        self.statistics_action.setShortcut(QKeySequence("Shift+S"))
        self.shortcuts_action = QAction("&Keyboard Shortcuts", self)
        self.shortcuts_action.setShortcut(QKeySequence("F1"))
        self.about_action = QAction("&About Recall", self)
        for action in (
            self.import_action,
            self.export_action,
            self.backups_action,
            self.check_action,
            self.quit_action,
            self.undo_action,
            self.back_action,
            *self.options.actions,
            self.statistics_action,
        ):
            self.addAction(action)

    def _create_menus(self) -> None:
        file_menu = self.menuBar().addMenu("&File")
        file_menu.addAction(self.import_action)
        file_menu.addAction(self.export_action)
        file_menu.addAction(self.export_reviews_action)
        file_menu.addSeparator()
        file_menu.addAction(self.backups_action)
        file_menu.addSeparator()
        file_menu.addAction(self.quit_action)
        edit_menu = self.menuBar().addMenu("&Edit")
        edit_menu.addAction(self.undo_action)
        edit_menu.addAction(self.options.undo_action)
        edit_menu.addSeparator()
        edit_menu.addAction(self.options.preferences_action)
        study_menu = self.menuBar().addMenu("&Study")
        study_menu.addAction(self.study_action)
        study_menu.addAction(self.options.deck_options_action)
        study_menu.addAction(self.back_action)
        study_menu.addSeparator()
        study_menu.addAction(self.statistics_action)
        decks_menu = self.menuBar().addMenu("&Decks")
        tools_menu = self.menuBar().addMenu("&Tools")
        self.collection.fill_menus(tools_menu, decks_menu)
        tools_menu.addSeparator()
        tools_menu.addAction(self.check_action)
        help_menu = self.menuBar().addMenu("&Help")
        help_menu.addAction(self.shortcuts_action)
        help_menu.addAction(self.about_action)

    def _connect_signals(self) -> None:
        self.deck_list.study_requested.connect(self.study)
        self.summary.back_requested.connect(self.show_decks)
        self.import_action.triggered.connect(self.transfers.choose_and_import)
        self.export_action.triggered.connect(self._on_export_deck)
        self.export_reviews_action.triggered.connect(self.transfers.export_reviews)
        self.transfers.imported.connect(self._on_imported)
        self.operations.busy_changed.connect(self._on_busy)
        self.check_action.triggered.connect(self.check_database)
        self.backups_action.triggered.connect(self._on_backups)
        self.backup_timer.timeout.connect(self.back_up_if_changed)
        self.quit_action.triggered.connect(self.close)
        self.undo_action.triggered.connect(self._on_undo)
        self.back_action.triggered.connect(self._on_back)
        self.study_action.triggered.connect(self._on_study_selected)
        self.statistics_action.triggered.connect(self.show_statistics)
        self.shortcuts_action.triggered.connect(self._on_shortcuts)
        self.about_action.triggered.connect(self._on_about)
        self.options.preferences_saved.connect(self._on_preferences_saved)
        self.options.options_changed.connect(
            lambda: self.refresh_decks(self.deck_list.selected_key())
        )
        self.options.message.connect(lambda text: self.statusBar().showMessage(text, 15_000))
        self.collection.changed.connect(self._on_collection_changed)
        self.collection.notice.connect(lambda text: self.statusBar().showMessage(text, 10_000))

    def _restore_geometry(self) -> None:
        geometry = self._window_state.value("geometry")
        if isinstance(geometry, QByteArray) and self.restoreGeometry(geometry):
            return
        self.resize(1000, 720)

    def _update_actions(self) -> None:
        current = self.pages.currentWidget()
        self.back_action.setEnabled(current is not self.deck_list)
        self.study_action.setEnabled(current is self.deck_list)
        self.options.deck_options_action.setEnabled(current is self.deck_list)
        self.undo_action.setEnabled(
            (self._review is not None and self._review.can_undo) or self._can_undo_change()
        )

    # Slots

    def _on_review_finished(self) -> None:
        review = self._review
        assert review is not None
        self.summary.show_summary(review.deck_name, review.summary(), self._clock())
        self.pages.setCurrentWidget(self.summary)
        self._update_actions()

    def _on_undo_available(self, available: bool) -> None:
        self.undo_action.setEnabled(True if available else self._can_undo_change())

    def _can_undo_change(self) -> bool:
        """Whether Edit > Undo takes back a change (a deck or card edit), not a rating."""
        on_review = self._review is not None and self.pages.currentWidget() is self._review
        if on_review:
            return self.collection.review_change_pending
        return self.collection.changes.undo_label is not None

    def _on_undo(self) -> None:
        review = self._review
        on_review = review is not None and self.pages.currentWidget() is review
        if on_review and review is not None and self.collection.undo_review_change(review):
            self._update_actions()
            return
        if not on_review and self._can_undo_change():
            self.collection.undo()
            self._update_actions()
            return
        if review is None or not review.can_undo:
            return
        self.pages.setCurrentWidget(review)
        review.undo()
        self._update_actions()

    def _on_collection_changed(self) -> None:
        if self.pages.currentWidget() is self.deck_list:
            self.refresh_decks()
        self._update_actions()

    def _on_back(self) -> None:
        current: QWidget | None = self.pages.currentWidget()
        if current is self._review and self._review is not None:
            self._review.leave()
        elif current is self.summary:
            self.show_decks()

    def _on_study_selected(self) -> None:
        key = self.deck_list.selected_key()
        if key is not None:
            self.study(key)

    def _on_imported(self, reports: list[ImportReport]) -> None:
        first = next((deck.deck_key for report in reports for deck in report.decks), None)
        self.refresh_decks(select=first)
        if self.pages.currentWidget() is self.summary:
            self.show_decks()
        if self.pages.currentWidget() is self.deck_list:
            self.deck_list.focus_table()
        lines = [line for report in reports for line in report.lines()]
        self.statusBar().showMessage(lines[0] if lines else "", 10_000)

    def _on_busy(self, busy: bool) -> None:
        # Nothing else reads or writes the cards while an operation runs on them.
        self.pages.setEnabled(not busy)
        for action in (
            self.import_action,
            self.export_action,
            self.export_reviews_action,
            self.backups_action,
            self.check_action,
        ):
            action.setEnabled(not busy)

    def _on_export_deck(self) -> None:
        key = self.deck_list.selected_key()
        if key is None:
            return
        deck = self.deck_list.selected_deck()  # in the tree, not only at its top
        assert deck is not None
        self.transfers.export_deck(key, deck.name)

    def _on_backups(self) -> None:
        dialog = BackupsDialog(
            self._database,
            self._schedulers,
            self._clock,
            self._prompts,
            parent=self,
            tasks=self.tasks,
        )
        dialog.restored.connect(self._on_restored)
        dialog.exec()

    def _on_restored(self) -> None:
        # The review on screen belonged to the replaced database: start again from the list.
        if self._review is not None:
            self.pages.removeWidget(self._review)
            self._review.deleteLater()
            self._review = None
        self.show_decks()

    def _on_backup_done(self, path: Path | None) -> None:
        if path is not None:
            self.statusBar().showMessage(f"Backed up to {path}", 5_000)

    def _on_backup_failed(self, error: Exception) -> None:
        self.statusBar().showMessage(f"Backup failed: {error}", 30_000)

    def _on_preferences_saved(self, chosen: Preferences) -> None:
        self.preferences = chosen
        self.backup_timer.setInterval(int(chosen.backup_interval.total_seconds() * 1000))
        self.refresh_decks(self.deck_list.selected_key())

    def _on_shortcuts(self) -> None:
        rows = "".join(f"<tr><td><b>{key}</b></td><td>{what}</td></tr>" for key, what in SHORTCUTS)
        QMessageBox.information(
            self, "Keyboard Shortcuts", f"<table cellspacing='6'>{rows}</table>"
        )

    def _on_about(self) -> None:
        versions = "<br>".join(f"{name} {version}" for name, version in library_versions().items())
        QMessageBox.about(
            self,
            "About Recall",
            f"<h3>Recall {__version__}</h3><p>Spaced-repetition quizzes, scheduled with FSRS.</p>"
            f"<p>{versions}</p>",
        )
