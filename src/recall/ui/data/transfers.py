"""Importing and exporting from the window: file dialogs, drag and drop, reports.

Every import and export runs through ``Operations``: off the window's thread, with a
progress dialog after half a second; an import's Cancel stops it with nothing written.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QFileDialog, QWidget

from recall.collection import review_log
from recall.core.errors import CancelledError, RecallError
from recall.core.progress import Cancelled, Progress
from recall.ui.context import WindowContext, WindowPart

if TYPE_CHECKING:
    # Importing and exporting (the deck format's models, the importers, genanki) load
    # when first used, on the worker thread where they run: not at start.
    from recall.collection.importing import ImportReport

IMPORT_FILTER = (
    "Decks (*.json *.apkg *.colpkg *.txt *.csv *.tsv *.gift *.xml *.zip);;"
    "Recall decks (*.json);;"
    "Anki packages (*.apkg *.colpkg);;"
    "Anki text exports (*.txt *.csv *.tsv);;"
    "Moodle question banks (*.gift *.xml);;"
    "QTI 2.1 items and content packages (*.xml *.zip);;All files (*)"
)
DECK_EXPORT_FILTERS = {
    "Recall deck (*.json)": ".json",
    "Anki package (*.apkg)": ".apkg",
    "Moodle GIFT (*.gift)": ".gift",
}


def importable(path: Path) -> bool:
    """Whether a dropped file looks like something Recall imports."""
    from recall.collection import importing

    return path.is_file() and path.suffix.lower() in importing.SUPPORTED_SUFFIXES


class Transfers(WindowPart):
    """Import and export on behalf of the main window.

    Args:
        database: The open database.
        schedulers: Replay imported history.
        clock: The current time, aware UTC.
        operations: Runs the work off the window's thread, with progress.
        prompts: Asks and tells the learner.
        window: The parent for dialogs.
    """

    imported = Signal(list)  # list[ImportReport]

    def __init__(
        self,
        context: WindowContext,
        window: QWidget,
    ) -> None:
        super().__init__(context, window)

    @property
    def busy(self) -> bool:
        """Whether an operation (an import, an export...) is running."""
        return self._operations.busy

    def choose_and_import(self) -> None:
        """Ask for files, then import them."""
        names, _filter = QFileDialog.getOpenFileNames(
            self._window, "Import Decks", str(Path.home()), IMPORT_FILTER
        )
        if names:
            self.import_files([Path(name) for name in names])

    def import_files(self, files: Sequence[Path]) -> None:
        """Import files in the background, with progress and Cancel after half a second."""
        if not files:
            return
        database, schedulers, now = self._database, self._schedulers, self._clock()

        def work(progress: Progress, cancelled: Cancelled) -> list[ImportReport]:
            from recall.collection import importing

            return importing.import_files(
                database, schedulers, list(files), now, progress=progress, cancelled=cancelled
            )

        self._operations.run(
            "Importing...",
            work,
            self._on_imported,
            failure="Import failed",
            preface=(
                "Nothing was imported; the file has problems:\n\n"
                if len(files) == 1
                else "Nothing was imported; these files have problems:\n\n"
            ),
            cancellable=True,
            on_error=self._on_import_failed,
            writes_cards=True,
        )

    def export_deck(self, deck_key: str, deck_name: str) -> None:
        """Ask where to, then write the deck as Recall JSON or an Anki package."""
        suggested = str(Path.home() / f"{deck_key}.json")
        name, chosen = QFileDialog.getSaveFileName(
            self._window, f"Export {deck_name}", suggested, ";;".join(DECK_EXPORT_FILTERS)
        )
        if not name:
            return
        from recall.collection.exporting import EXPORT_SUFFIXES

        target = Path(name)
        if target.suffix.lower() not in EXPORT_SUFFIXES:
            target = target.with_suffix(DECK_EXPORT_FILTERS.get(chosen, ".json"))
        self.export_deck_to(deck_key, deck_name, target)

    def export_deck_to(self, deck_key: str, deck_name: str, target: Path) -> None:
        """Write the deck to ``target`` (.json or .apkg) in the background, then say so."""
        database = self._database

        def work(_progress: Progress, _cancelled: Cancelled) -> int:
            from recall.collection import exporting

            return exporting.export_deck(database, deck_key, target)

        self._operations.run(
            f"Exporting {deck_name}...",
            work,
            lambda cards: self._prompts.tell(
                "Export", f"Wrote {cards} cards of {deck_name} to {target}."
            ),
            failure="Export failed",
        )

    def export_reviews(self) -> None:
        """Ask where to, then write the review history as an FSRS review-log CSV."""
        name, _filter = QFileDialog.getSaveFileName(
            self._window,
            "Export Review History",
            str(Path.home() / "recall-reviews.csv"),
            "FSRS review log (*.csv)",
        )
        if name:
            self.export_reviews_to(Path(name))

    def export_reviews_to(self, target: Path) -> None:
        """Write the review history to ``target`` in the background, all or nothing."""
        database = self._database

        def work(progress: Progress, cancelled: Cancelled) -> int:
            return review_log.write_review_log(database, target, progress=progress)

        self._operations.run(
            "Exporting the review history...",
            work,
            lambda count: self._prompts.tell("Export", f"Wrote {count} reviews to {target}."),
            failure="Export failed",
        )

    def _on_imported(self, reports: list[ImportReport]) -> None:
        self.imported.emit(reports)
        sections = [
            "\n".join(
                [
                    Path(report.source).name,
                    *(f"  {line}" for line in report.lines(False, with_keys=False)),
                ]
            )
            for report in reports
        ]
        self._prompts.tell("Import finished", "\n\n".join(sections) or "Nothing to import.")

    def _on_import_failed(self, error: RecallError) -> None:
        if isinstance(error, CancelledError):
            self._prompts.tell(
                "Import cancelled", "The import was cancelled; nothing was imported."
            )
