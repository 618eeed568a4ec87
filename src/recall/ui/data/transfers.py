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
from recall.core import i18n
from recall.core.errors import CancelledError, RecallError
from recall.core.i18n import mark, number, tr, trn
from recall.core.progress import Cancelled, Progress
from recall.ui.context import WindowContext, WindowPart

if TYPE_CHECKING:
    # Importing and exporting (the deck format's models, the importers, genanki) load
    # when first used, on the worker thread where they run: not at start.
    from recall.collection.import_report import ImportReport

# The import dialog's filters, each a name (translated) and its file patterns (not).
IMPORT_FILTERS = (
    (mark("Decks"), "*.json *.apkg *.colpkg *.txt *.csv *.tsv *.gift *.xml *.zip"),
    (mark("Recall decks"), "*.json"),
    (mark("Anki packages"), "*.apkg *.colpkg"),
    (mark("Anki text exports"), "*.txt *.csv *.tsv"),
    (mark("Moodle question banks"), "*.gift *.xml"),
    (mark("QTI 2.1 items and content packages"), "*.xml *.zip"),
    (mark("All files"), "*"),
)
IMPORT_FILTER = ";;".join(f"{name} ({patterns})" for name, patterns in IMPORT_FILTERS)
# The export dialog's filters: name, patterns, and the suffix a file of that kind takes.
DECK_EXPORT_FILTERS = (
    (mark("Recall deck"), "*.json", ".json"),
    (mark("Anki package"), "*.apkg", ".apkg"),
    (mark("Moodle GIFT"), "*.gift", ".gift"),
)


def import_filter() -> str:
    """The import dialog's filters in the learner's language."""
    return ";;".join(f"{i18n.tr(name)} ({patterns})" for name, patterns in IMPORT_FILTERS)


def export_filters() -> dict[str, str]:
    """The export dialog's filters in the learner's language, each with its suffix."""
    return {
        f"{i18n.tr(name)} ({patterns})": suffix for name, patterns, suffix in DECK_EXPORT_FILTERS
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
            self._window, tr("Import Decks"), str(Path.home()), import_filter()
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
            tr("Importing..."),
            work,
            self._on_imported,
            failure=tr("Import failed"),
            preface=(
                tr("Nothing was imported; the file has problems:\n\n")
                if len(files) == 1
                else tr("Nothing was imported; these files have problems:\n\n")
            ),
            cancellable=True,
            on_error=self._on_import_failed,
            writes_cards=True,
        )

    def export_deck(self, deck_key: str, deck_name: str) -> None:
        """Ask where to, then write the deck as Recall JSON or an Anki package."""
        suggested = str(Path.home() / f"{deck_key}.json")
        filters = export_filters()
        name, chosen = QFileDialog.getSaveFileName(
            self._window,
            tr("Export {deck}").format(deck=deck_name),
            suggested,
            ";;".join(filters),
        )
        if not name:
            return
        from recall.collection.exporting import EXPORT_SUFFIXES

        target = Path(name)
        if target.suffix.lower() not in EXPORT_SUFFIXES:
            target = target.with_suffix(filters.get(chosen, ".json"))
        self.export_deck_to(deck_key, deck_name, target)

    def export_deck_to(self, deck_key: str, deck_name: str, target: Path) -> None:
        """Write the deck to ``target`` (.json or .apkg) in the background, then say so."""
        database = self._database

        def work(_progress: Progress, _cancelled: Cancelled) -> int:
            from recall.collection import exporting

            return exporting.export_deck(database, deck_key, target)

        self._operations.run(
            tr("Exporting {deck}...").format(deck=deck_name),
            work,
            lambda cards: self._prompts.tell(
                tr("Export"),
                trn(
                    "Wrote {count} card of {deck} to {path}.",
                    "Wrote {count} cards of {deck} to {path}.",
                    cards,
                ).format(count=number(cards), deck=deck_name, path=target),
            ),
            failure=tr("Export failed"),
        )

    def export_reviews(self) -> None:
        """Ask where to, then write the review history as an FSRS review-log CSV."""
        name, _filter = QFileDialog.getSaveFileName(
            self._window,
            tr("Export Review History"),
            str(Path.home() / "recall-reviews.csv"),
            tr("FSRS review log") + " (*.csv)",
        )
        if name:
            self.export_reviews_to(Path(name))

    def export_reviews_to(self, target: Path) -> None:
        """Write the review history to ``target`` in the background, all or nothing."""
        database = self._database

        def work(progress: Progress, cancelled: Cancelled) -> int:
            return review_log.write_review_log(database, target, progress=progress)

        self._operations.run(
            tr("Exporting the review history..."),
            work,
            lambda count: self._prompts.tell(
                tr("Export"),
                trn(
                    "Wrote {count} review to {path}.", "Wrote {count} reviews to {path}.", count
                ).format(count=number(count), path=target),
            ),
            failure=tr("Export failed"),
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
        self._prompts.tell(tr("Import finished"), "\n\n".join(sections) or tr("Nothing to import."))

    def _on_import_failed(self, error: RecallError) -> None:
        if isinstance(error, CancelledError):
            self._prompts.tell(
                tr("Import cancelled"), tr("The import was cancelled; nothing was imported.")
            )
