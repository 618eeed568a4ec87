"""The main window: its pages, menus, actions and status line, wired together.

The pages (deck list, review, summary) and the moves between them are ``study_pages``'s;
the windows it opens over them (Statistics, Custom Study, Time Off) are ``side_windows``'s.
The menus are laid out by ``main_menus``; the actions live with what they act on
(``options_actions``, ``collection_actions``, ``safekeeping_actions``, ``transfers``). The
window routes Undo to the screen on show, takes dropped files and shows the status line.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from datetime import datetime, tzinfo
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QByteArray, QEvent, QMimeData, QSettings, QSize, QTimer
from PySide6.QtGui import QCloseEvent, QDragEnterEvent, QDragLeaveEvent, QDropEvent
from PySide6.QtWidgets import QApplication, QMainWindow, QWidget

from recall.core import i18n
from recall.core.errors import RecallError
from recall.core.i18n import mark, tr
from recall.core.preferences import Preferences
from recall.options import deck_options
from recall.scheduling import Schedulers
from recall.storage import Database
from recall.ui.collection_actions import CollectionActions
from recall.ui.context import WindowContext
from recall.ui.data.safekeeping_actions import SafekeepingActions
from recall.ui.data.sync_actions import SyncActions
from recall.ui.data.transfers import Transfers, importable
from recall.ui.database_watcher import DatabaseWatcher
from recall.ui.drop_overlay import DropOverlay
from recall.ui.local_api import LocalApi
from recall.ui.main_menus import MainMenus
from recall.ui.operations import Operations
from recall.ui.options.actions import OptionsActions
from recall.ui.override_errors import reports_errors
from recall.ui.prompts import Prompts
from recall.ui.read_sources import forget_read_sources
from recall.ui.side_windows import SideWindows
from recall.ui.study_pages import StudyPages
from recall.ui.tasks import TaskRunner
from recall.ui.tray import TrayPresence

if TYPE_CHECKING:
    from recall.collection.import_report import ImportReport
    from recall.study.custom import CustomQueue
    from recall.ui.review.view import ReviewView
    from recall.ui.statistics.window import StatisticsWindow
    from recall.ui.study_tools import CustomStudyDialog, TimeOffDialog


UNDONE = mark("Rating taken back: the card is shown again as it was, to answer anew.")


@reports_errors
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
        tray_available: Whether to put an icon in the tray; None when the desktop has one.
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
        tray_available: bool | None = None,
    ) -> None:
        super().__init__()
        self._database = database
        self._schedulers = schedulers or Schedulers()
        self.preferences: Preferences = deck_options.preferences(database)
        self._window_state = window_state
        self._clock = clock
        self._rng = rng or random.Random()
        self._zone = zone
        self._prompts = prompts or Prompts(self)
        self.tasks = TaskRunner(self)
        self.operations = Operations(self.tasks, self._prompts, self)
        context = WindowContext(
            database, self._schedulers, clock, zone, self._prompts, self.operations, self.tasks
        )
        self.transfers = Transfers(context, self)
        self.options = OptionsActions(context, lambda: self.deck_list.selected_key(), self)
        self.safekeeping = SafekeepingActions(context, self.preferences.backup_interval, self)
        self.setAcceptDrops(True)
        self.setWindowTitle("Recall")
        self.setObjectName("mainWindow")
        self.setMinimumSize(QSize(640, 480))

        self.pages = StudyPages(context, self._rng)
        self.deck_list = self.pages.deck_list
        self.summary = self.pages.summary
        self.setCentralWidget(self.pages)
        self.drop_overlay = DropOverlay(self.pages)
        self.collection = CollectionActions(context, self.preferences, self.deck_list, self)
        self.sync = SyncActions(context, lambda: self.pages.on_review, self)
        self.statusBar().addPermanentWidget(self.sync.label)
        self.database_watcher = DatabaseWatcher(database, self)
        self.local_api = LocalApi(database, clock, self.collection.browse, self._prompts, self)
        self.menus = MainMenus(
            self, self.options, self.collection, self.safekeeping, self.sync.sync_action
        )
        self.presence = TrayPresence(
            context, self.preferences, self.windowIcon(), tray_available, parent=self
        )
        self.side_windows = SideWindows(
            context, lambda: self.preferences, self.deck_list, self.collection, self
        )
        self._connect_signals()
        self._restore_geometry()
        forget_read_sources()  # the window's modules are loaded: before the deck list's rows
        self.refresh_decks()
        self.safekeeping.backup_timer.start()
        self.database_watcher.start()
        self.local_api.apply(self.preferences)
        QTimer.singleShot(0, self.sync.start)

    @property
    def review(self) -> ReviewView | None:
        """The review screen of the current session, if one was started."""
        return self.pages.review

    @property
    def statistics(self) -> StatisticsWindow | None:
        """The statistics window, once opened."""
        return self.side_windows.statistics

    @property
    def custom_study_dialog(self) -> CustomStudyDialog | None:
        """The Custom Study dialog opened last, if any."""
        return self.side_windows.custom_study_dialog

    def refresh_decks(self, select: str | None = None) -> None:
        """Reload the deck list's counts."""
        self.pages.refresh_decks(select)

    def refresh_decks_off_thread(self, select: str | None = None) -> None:
        """Reload the deck list's counts on the worker thread (100 ms at 100,000 cards)."""
        self.pages.refresh_decks_off_thread(select)

    def show_decks(self, off_thread: bool = False) -> None:
        """Go to the deck list, with fresh counts and the keyboard on the table."""
        self.pages.show_decks(off_thread)

    def study(
        self, deck_key: str, learn_ahead: bool = False, custom: CustomQueue | None = None
    ) -> None:
        """Start a study session on a deck (with ``learn_ahead``, learning cards due later
        today come now), or a custom session on its queue."""
        self.pages.study(deck_key, learn_ahead, custom)

    def open_custom_study(self, card_ids: tuple[int, ...] = ()) -> CustomStudyDialog:
        """Open Custom Study (on the deck list's selected deck); its Study starts the session.

        Args:
            card_ids: Cards chosen in the browser: the dialog opens on a cram of them.
        """
        return self.side_windows.open_custom_study(card_ids)

    def study_cards(self, card_ids: tuple[int, ...]) -> CustomStudyDialog:
        """The browser's Study These: the window comes up with Custom Study on these cards."""
        self.bring_to_front()
        return self.open_custom_study(card_ids)

    def open_time_off(self) -> TimeOffDialog:
        """Open Time Off; what it moves is one change on Edit > Undo's stack."""
        return self.side_windows.open_time_off()

    def show_statistics(self) -> None:
        """Open the statistics window on the selected deck (or bring it to the front)."""
        on_decks = self.pages.currentWidget() is self.deck_list
        self.side_windows.show_statistics(self.deck_list.selected_key() if on_decks else None)

    def bring_to_front(self) -> None:
        """Show the window above others (a second launch of Recall asks for this)."""
        if self.isMinimized():
            self.showNormal()
        self.show()
        self.raise_()
        self.activateWindow()

    # Qt overrides

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if (
            event.type() == QEvent.Type.WindowStateChange
            and self.isMinimized()
            and self.preferences.minimize_to_tray
            and self.presence.has_tray
        ):
            QTimer.singleShot(0, self.hide)  # after the minimise has finished

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        files = self._dropped_files(event.mimeData())
        if files and not self.transfers.busy:
            event.acceptProposedAction()
            self.drop_overlay.show_for(len(files))

    def dragLeaveEvent(self, event: QDragLeaveEvent) -> None:
        self.drop_overlay.hide()
        super().dragLeaveEvent(event)

    def dropEvent(self, event: QDropEvent) -> None:
        self.drop_overlay.hide()
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
        review = self.pages.review
        if review is not None and not review.commit_pending():
            question = tr("Your last answer could not be saved. Quit anyway and lose it?")
            if not self._prompts.confirm(tr("Quit Recall"), question):
                event.ignore()
                return
        self.side_windows.close()
        self.collection.close_windows()
        self.safekeeping.backup_timer.stop()
        self.safekeeping.back_up_if_changed()
        self.operations.cancel()
        self.local_api.stop()
        self.sync.sync_on_close()
        self.tasks.wait()
        self._window_state.setValue("geometry", self.saveGeometry())
        self._window_state.sync()
        self.presence.hide()
        super().closeEvent(event)

    # Building

    def _connect_signals(self) -> None:
        menus = self.menus
        self.pages.switched.connect(self._update_actions)
        self.pages.counted.connect(self.presence.set_overviews)
        self.pages.review_started.connect(self._on_review_started)
        self.pages.undo_available.connect(self._on_undo_available)
        self.pages.undo_available.connect(lambda _available: self.presence.refresh())
        self.side_windows.custom_chosen.connect(lambda queue: self.study("", custom=queue))
        self.side_windows.time_off_made.connect(self._on_time_off)
        menus.import_action.triggered.connect(self.transfers.choose_and_import)
        menus.export_action.triggered.connect(self._on_export_deck)
        menus.export_reviews_action.triggered.connect(self.transfers.export_reviews)
        menus.quit_action.triggered.connect(self.close)
        menus.undo_action.triggered.connect(self._on_undo)
        menus.back_action.triggered.connect(self._on_back)
        menus.study_action.triggered.connect(self._on_study_selected)
        menus.statistics_action.triggered.connect(self.show_statistics)
        menus.custom_study_action.triggered.connect(lambda: self.open_custom_study())
        self.deck_list.custom_study_requested.connect(lambda: self.open_custom_study())
        self.collection.study_requested.connect(self.study_cards)
        menus.time_off_action.triggered.connect(self.open_time_off)
        self.transfers.imported.connect(self._on_imported)
        self.operations.busy_changed.connect(self._on_busy)
        self.safekeeping.restored.connect(self.pages.start_over)
        self.safekeeping.repaired.connect(self.refresh_decks)
        self.safekeeping.message.connect(self._show_status)
        self.options.preferences_saved.connect(self._on_preferences_saved)
        self.options.options_changed.connect(
            lambda: self.refresh_decks(self.deck_list.selected_key())
        )
        self.options.message.connect(lambda text: self._show_status(text, 15_000))
        self.collection.changed.connect(self._on_collection_changed)
        self.collection.notice.connect(lambda text: self._show_status(text, 10_000))
        self.sync.synced.connect(self._on_synced)
        self.database_watcher.changed.connect(self._on_database_changed)
        self.sync.message.connect(self._show_status)
        self.presence.show_requested.connect(self.bring_to_front)
        self.presence.study_requested.connect(self._on_tray_study)
        self.presence.quit_requested.connect(self._on_tray_quit)

    def _restore_geometry(self) -> None:
        geometry = self._window_state.value("geometry")
        if isinstance(geometry, QByteArray) and self.restoreGeometry(geometry):
            return
        self.resize(1000, 720)

    def _show_status(self, text: str, milliseconds: int) -> None:
        self.statusBar().showMessage(text, milliseconds)

    def _update_actions(self) -> None:
        current = self.pages.currentWidget()
        writing = self.operations.writes_cards
        self.menus.back_action.setEnabled(current is not self.deck_list)
        self.menus.study_action.setEnabled(current is self.deck_list and not writing)
        self.options.deck_options_action.setEnabled(
            current is self.deck_list and not self.operations.busy
        )
        self.options.exam_action.setEnabled(current is self.deck_list and not self.operations.busy)
        self.menus.undo_action.setEnabled(
            not writing
            and ((self.review is not None and self.review.can_undo) or self._can_undo_change())
        )

    # Slots

    def _on_review_started(self, review: ReviewView) -> None:
        self.collection.attach_review(review)

    def _on_time_off(self, label: str) -> None:
        self._show_status(tr("{change}. Edit > Undo takes it back.").format(change=label), 10_000)
        self._on_collection_changed()

    def _on_undo_available(self, available: bool) -> None:
        self.menus.undo_action.setEnabled(
            not self.operations.writes_cards and (True if available else self._can_undo_change())
        )

    def _can_undo_change(self) -> bool:
        """Whether Edit > Undo takes back a change (a deck or card edit), not a rating."""
        if self.pages.on_review:
            return self.collection.review_change_pending
        return self.collection.changes.undo_label is not None

    def _on_undo(self) -> None:
        review = self.pages.review
        on_review = self.pages.on_review
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
        if review.undo():
            self._show_status(i18n.tr(UNDONE), 8_000)
        self._update_actions()

    def _on_collection_changed(self) -> None:
        if self.pages.currentWidget() is self.deck_list:
            self.refresh_decks()
        self._update_actions()

    def _on_back(self) -> None:
        current: QWidget | None = self.pages.currentWidget()
        review = self.pages.review
        if current is review and review is not None:
            review.leave()
        elif current is self.summary:
            self.show_decks()

    def _on_study_selected(self) -> None:
        key = self.deck_list.selected_key()
        if key is not None:
            self.study(key)

    def _on_imported(self, reports: list[ImportReport]) -> None:
        first = next((deck.deck_key for report in reports for deck in report.decks), None)
        self.refresh_decks_off_thread(select=first)
        if self.pages.currentWidget() is self.summary:
            self.pages.setCurrentWidget(self.deck_list)
            self._update_actions()
        if self.pages.currentWidget() is self.deck_list:
            self.deck_list.focus_table()
        lines = [line for report in reports for line in report.lines(with_keys=False)]
        self._show_status(lines[0] if lines else "", 10_000)

    def _on_busy(self, busy: bool) -> None:
        # One operation at a time; studying and editing wait only for one writing cards.
        self.pages.hold_while_writing(self.operations.writes_cards)
        for action in (*self.menus.busy_actions, *self.safekeeping.actions):
            action.setEnabled(not busy)
        for action in self.collection.editing_actions:
            action.setEnabled(not self.operations.writes_cards)
        self._update_actions()

    def _on_export_deck(self) -> None:
        key = self.deck_list.selected_key()
        if key is None:
            return
        deck = self.deck_list.selected_deck()  # in the tree, not only at its top
        assert deck is not None
        self.transfers.export_deck(key, deck.name)

    def _on_synced(self, _report: object) -> None:
        if self.pages.currentWidget() is self.deck_list:
            self.refresh_decks_off_thread(self.deck_list.selected_key())
        else:
            self.presence.refresh()

    def _on_tray_study(self) -> None:
        self.bring_to_front()
        if self.pages.currentWidget() is self.summary:
            self.show_decks()
        if self.pages.currentWidget() is self.deck_list and not self.operations.writes_cards:
            self._on_study_selected()

    def _on_tray_quit(self) -> None:
        # A window hidden in the tray is not the "last window" Qt quits on when it closes.
        if self.close():
            app = QApplication.instance()
            if app is not None:
                app.quit()

    def _on_database_changed(self) -> None:
        # Another process (`recall import` in a terminal) or this one changed the database:
        # the deck list, when on screen and nothing is running, reads its counts again.
        if self.pages.currentWidget() is self.deck_list and not self.operations.busy:
            self.refresh_decks_off_thread(self.deck_list.selected_key())

    def _on_preferences_saved(self, chosen: Preferences) -> None:
        self.preferences = chosen
        self.safekeeping.set_backup_interval(chosen.backup_interval)
        self.refresh_decks(self.deck_list.selected_key())
        self.sync.settings_changed()
        self.local_api.apply(chosen)
        try:
            self.presence.set_preferences(chosen)
        except RecallError as error:
            self._prompts.refused(tr("Start when you log in"), error)
