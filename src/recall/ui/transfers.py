"""Importing and exporting from the window: file dialogs, drag and drop, progress, reports.

Imports run on the task runner's worker thread; a progress dialog appears after half a
second and its Cancel stops the import with nothing written.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from datetime import datetime
from pathlib import Path

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtWidgets import QFileDialog, QProgressDialog, QWidget

from recall import exporting, importing, library
from recall.errors import ImportCancelledError, RecallError
from recall.scheduling import Scheduler
from recall.storage import Database
from recall.ui.prompts import Prompts
from recall.ui.tasks import TaskRunner

IMPORT_FILTER = (
    "Decks (*.json *.apkg *.txt *.csv *.tsv);;Recall decks (*.json);;Anki packages (*.apkg);;"
    "Anki text exports (*.txt *.csv *.tsv);;All files (*)"
)
DECK_EXPORT_FILTERS = {"Recall deck (*.json)": ".json", "Anki package (*.apkg)": ".apkg"}
PROGRESS_DELAY_MS = 500


def importable(path: Path) -> bool:
    """Whether a dropped file looks like something Recall imports."""
    return path.is_file() and path.suffix.lower() in importing.SUPPORTED_SUFFIXES


class _ProgressRelay(QObject):
    """Carries progress from the worker thread to the GUI thread."""

    changed = Signal(int, int)


class Transfers(QObject):
    """Import and export on behalf of the main window.

    Args:
        database: The open database.
        scheduler: Replays imported history.
        clock: The current time, aware UTC.
        tasks: Runs imports off the GUI thread.
        prompts: Asks and tells the learner.
        window: The parent for dialogs.
    """

    imported = Signal(list)  # list[ImportReport]
    busy_changed = Signal(bool)

    def __init__(
        self,
        database: Database,
        scheduler: Scheduler,
        clock: Callable[[], datetime],
        tasks: TaskRunner,
        prompts: Prompts,
        window: QWidget,
    ) -> None:
        super().__init__(window)
        self._database = database
        self._scheduler = scheduler
        self._clock = clock
        self._tasks = tasks
        self._prompts = prompts
        self._window = window
        self._cancel = threading.Event()
        self._dialog: QProgressDialog | None = None
        self.busy = False

    def choose_and_import(self) -> None:
        """Ask for files, then import them."""
        names, _filter = QFileDialog.getOpenFileNames(
            self._window, "Import Decks", str(Path.home()), IMPORT_FILTER
        )
        if names:
            self.import_files([Path(name) for name in names])

    def import_files(self, files: Sequence[Path]) -> None:
        """Import files in the background, with progress and Cancel after half a second."""
        if self.busy or not files:
            return
        self.busy = True
        self.busy_changed.emit(True)
        self._cancel.clear()
        relay = _ProgressRelay(self)
        dialog = QProgressDialog("Importing...", "Cancel", 0, 0, self._window)
        dialog.setWindowTitle("Import")
        dialog.setWindowModality(Qt.WindowModality.WindowModal)
        dialog.setMinimumDuration(PROGRESS_DELAY_MS)
        dialog.setAutoClose(False)
        dialog.setAutoReset(False)
        dialog.canceled.connect(self._cancel.set)
        relay.changed.connect(lambda done, total: self._on_progress(dialog, done, total))
        dialog.setValue(0)
        self._dialog = dialog
        database, scheduler, now, cancel = (
            self._database,
            self._scheduler,
            self._clock(),
            self._cancel,
        )

        def work() -> list[importing.ImportReport]:
            return importing.import_files(
                database,
                scheduler,
                list(files),
                now,
                progress=relay.changed.emit,
                cancelled=cancel.is_set,
            )

        self._tasks.run(work, self._on_imported, self._on_failed)

    def export_deck(self, deck_key: str, deck_name: str) -> None:
        """Ask where to, then write the deck as Recall JSON or an Anki package."""
        suggested = str(Path.home() / f"{deck_key}.json")
        name, chosen = QFileDialog.getSaveFileName(
            self._window, f"Export {deck_name}", suggested, ";;".join(DECK_EXPORT_FILTERS)
        )
        if not name:
            return
        target = Path(name)
        if target.suffix.lower() not in exporting.EXPORT_SUFFIXES:
            target = target.with_suffix(DECK_EXPORT_FILTERS.get(chosen, ".json"))
        try:
            cards = exporting.export_deck(self._database, deck_key, target)
        except RecallError as error:
            self._prompts.tell("Export failed", str(error), warning=True)
            return
        self._prompts.tell("Export", f"Wrote {cards} cards of {deck_name} to {target}.")

    def export_reviews(self) -> None:
        """Ask where to, then write the review history as an FSRS review-log CSV."""
        name, _filter = QFileDialog.getSaveFileName(
            self._window,
            "Export Review History",
            str(Path.home() / "recall-reviews.csv"),
            "FSRS review log (*.csv)",
        )
        if not name:
            return
        try:
            count = library.write_review_log(self._database, Path(name))
        except (OSError, RecallError) as error:
            self._prompts.tell("Export failed", f"Cannot write {name}: {error}", warning=True)
            return
        self._prompts.tell("Export", f"Wrote {count} reviews to {name}.")

    def _on_progress(self, dialog: QProgressDialog, done: int, total: int) -> None:
        dialog.setMaximum(max(total, 1))
        dialog.setValue(min(done, max(total, 1)))

    def _finish(self) -> None:
        if self._dialog is not None:
            self._dialog.close()
            self._dialog.deleteLater()
            self._dialog = None
        self.busy = False
        self.busy_changed.emit(False)

    def _on_imported(self, reports: list[importing.ImportReport]) -> None:
        self._finish()
        self.imported.emit(reports)
        sections = [
            "\n".join([Path(report.source).name, *(f"  {line}" for line in report.lines(False))])
            for report in reports
        ]
        self._prompts.tell("Import finished", "\n\n".join(sections) or "Nothing to import.")

    def _on_failed(self, error: Exception) -> None:
        self._finish()
        if isinstance(error, ImportCancelledError):
            self._prompts.tell(
                "Import cancelled", "The import was cancelled; nothing was imported."
            )
        elif isinstance(error, RecallError):
            self._prompts.tell(
                "Import failed",
                f"Nothing was imported; the file has problems:\n\n{error}",
                warning=True,
            )
        else:
            raise error
