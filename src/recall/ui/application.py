"""Starting the window: the QApplication, its look, the database, and the crash dialog."""

from __future__ import annotations

import sys
import traceback
from datetime import UTC, datetime
from pathlib import Path
from types import TracebackType

import PySide6
from PySide6.QtCore import QSettings, Qt
from PySide6.QtGui import QIcon, QPixmap
from PySide6.QtWidgets import QApplication, QMessageBox

from recall import __version__
from recall.collection import opening
from recall.core.errors import RecallError
from recall.core.i18n import number, tr, trn
from recall.host import paths
from recall.options import deck_options
from recall.safekeeping import backups, recovery
from recall.storage import (
    BUSY_TIMEOUT_MS,
    Database,
    MissingDatabaseError,
    NewerDatabaseError,
    is_unusable,
)
from recall.ui.appearance import apply_preferences, apply_style_sheet
from recall.ui.language import use_language
from recall.ui.main_window import MainWindow
from recall.ui.none_guard import guard_none
from recall.ui.prompts import Prompts
from recall.ui.single_instance import SingleInstance, server_name
from recall.ui.tasks import keep_out_of_full_collections

# The PNGs scripts/icons.py renders from resources/recall.svg: PNG needs no Qt plugin.
ICON_SIZES = (16, 24, 32, 48, 64, 128, 256, 512)


def now() -> datetime:
    """The current time, aware UTC: the window's clock."""
    return datetime.now(UTC)


def app_icon() -> QIcon:
    """Recall's icon, at every size it ships."""
    icon = QIcon()
    for size in ICON_SIZES:
        pixmap = QPixmap()
        if pixmap.loadFromData(paths.resource(f"recall-{size}.png").read_bytes(), "PNG"):
            icon.addPixmap(pixmap)
    return icon


def configure(app: QApplication) -> None:
    """Give the application Recall's name, icon and style sheet.

    The Fusion style draws with the palette, so the window follows the system's light or
    dark scheme; the style sheet only uses palette colours plus marks that work on both.
    """
    guard_none(PySide6.__version__)
    app.setApplicationName("Recall")
    app.setOrganizationName("Recall")
    app.setApplicationVersion(__version__)
    app.setDesktopFileName("recall")  # resources/recall.desktop: the desktop shows its icon
    app.setStyle("Fusion")
    apply_style_sheet(app)
    if not app.property("recallSchemeWatched"):
        # The sheet's palette() colours are resolved when it is applied: apply it again
        # when the scheme switches between light and dark (the desktop's or the learner's).
        app.styleHints().colorSchemeChanged.connect(lambda _scheme: apply_style_sheet(app))
        app.setProperty("recallSchemeWatched", True)
    app.setWindowIcon(app_icon())


def window_state(data_dir: Path) -> QSettings:
    """Window size and position, kept in the data directory beside the database."""
    return QSettings(str(data_dir / "window.ini"), QSettings.Format.IniFormat)


def application() -> QApplication:
    """The QApplication, created on first use, with Recall's name, icon and style sheet,
    in the language the system asks for (until the collection's preference is known)."""
    existing = QApplication.instance()
    app = existing or QApplication(sys.argv[:1])
    assert isinstance(app, QApplication)
    if existing is None:
        use_language(app)
    configure(app)
    return app


def show_window(
    database: Database, data_dir: Path, prompts: Prompts, minimized: bool = False
) -> MainWindow:
    """Show the main window on the deck list, with the keyboard on the deck table.

    Args:
        database: The open collection.
        data_dir: The data folder (the window keeps its size there).
        prompts: Asks and tells the learner.
        minimized: Start in the tray, or minimised when the desktop has no tray.
    """
    app = application()
    # The learner's choice of language, stored with the collection, applies from this start.
    use_language(app, deck_options.preferences(database).language)
    window = MainWindow(database, window_state(data_dir), now, prompts=prompts)
    apply_preferences(app, window.preferences)
    if not minimized:
        window.show()
    elif not window.presence.has_tray:
        window.showMinimized()
    # else only the tray icon shows: a click on it, or its menu, brings the window.
    window.deck_list.focus_table()
    return window


def run(data_dir: Path, minimized: bool = False) -> int:
    """Open the window on the database in ``data_dir``; returns the exit status.

    A second launch on the same data directory brings the first window to the front and
    exits at once.

    Args:
        data_dir: The data folder.
        minimized: Start in the tray (``--minimized``, as the autostart entry does).
    """
    app = application()
    instance = SingleInstance(server_name(data_dir))
    if instance.notify_running():
        print(
            tr("Recall is already running; its window was brought to the front."), file=sys.stderr
        )
        return 0
    instance.listen()
    sys.excepthook = _show_crash
    prompts = Prompts()
    database = open_database(data_dir, prompts)
    if database is None:
        return 1
    window = show_window(database, data_dir, prompts, minimized)
    keep_out_of_full_collections()
    instance.activation_requested.connect(window.bring_to_front)
    try:
        return app.exec()
    finally:
        window.tasks.wait()
        database.close()


def open_database(
    data_dir: Path, prompts: Prompts, busy_timeout_ms: int = BUSY_TIMEOUT_MS
) -> Database | None:
    """Open the database; offer the newest backup only if the file is damaged or missing.

    A database that cannot be opened right now (a full disk, a read-only folder, another
    program holding it) is never replaced: the learner is told why and Recall closes, so
    the same start works once the cause is gone. While a database set aside as damaged is
    kept in the folder, every start says so.

    Args:
        data_dir: The data folder.
        prompts: Where the learner is told and asked.
        busy_timeout_ms: How long to wait for another program holding the database.

    Returns:
        The open database, or None when it cannot be opened and the learner was told why.
    """
    notes: list[str] = []
    try:
        database = opening.open_library(
            data_dir, now(), busy_timeout_ms=busy_timeout_ms, notes=notes
        )
    except RecallError as error:
        return _offer_backup(data_dir, error, prompts)
    for note in notes:
        prompts.tell("Recall", note)
    aside = recovery.set_aside_files(data_dir)
    if aside:
        prompts.tell("Recall", recovery.set_aside_notice(aside), warning=True)
    return database


def _offer_backup(data_dir: Path, error: RecallError, prompts: Prompts) -> Database | None:
    path = paths.database_path(data_dir)
    newest = recovery.newest_backup(data_dir)
    if isinstance(error, NewerDatabaseError):
        prompts.tell(tr("Recall cannot start"), _sentence(error), warning=True)
        return None
    if not is_unusable(error):
        prompts.tell(
            tr("Recall cannot start"),
            tr(
                "Recall cannot open its database right now:\n{problem}\n\nThe database was "
                "not changed. Start Recall again once this is fixed."
            ).format(problem=_sentence(error)),
            warning=True,
        )
        return None
    missing = isinstance(error, MissingDatabaseError)
    if newest is None:
        text = str(error)
        if isinstance(error, MissingDatabaseError):
            text = recovery.missing_advice(data_dir, error)
        prompts.tell(tr("Recall cannot start"), text, warning=True)
        return None
    kept = (
        tr("Nothing is deleted.")
        if missing
        else tr("The damaged file is kept beside it (renamed), not deleted.")
    )
    question = tr(
        "Recall cannot open its database:\n{problem}\n\nRestore the newest backup, made "
        "{made} ({cards}, {reviews})? {kept}"
    ).format(
        problem=_sentence(error),
        made=f"{newest.made_at.astimezone():%Y-%m-%d %H:%M}",
        cards=trn("{count} card", "{count} cards", newest.cards).format(count=number(newest.cards)),
        reviews=trn("{count} review", "{count} reviews", newest.reviews).format(
            count=number(newest.reviews)
        ),
        kept=kept,
    )
    if not prompts.confirm(tr("Recall cannot start"), question):
        return None
    try:
        aside = backups.replace_damaged(path, newest.path, now())
        database = opening.open_library(data_dir, now())
    except RecallError as failure:
        prompts.tell(
            tr("Recall cannot start"),
            tr("Nothing was restored: {problem}").format(problem=failure),
            warning=True,
        )
        return None
    made = f"{newest.made_at.astimezone():%Y-%m-%d %H:%M}"
    restored = (
        tr("Restored the backup made {made}.").format(made=made)
        if aside is None
        else tr("Restored the backup made {made}. The damaged file is kept as {path}.").format(
            made=made, path=aside
        )
    )
    prompts.tell("Recall", restored)
    return database


def _sentence(error: RecallError) -> str:
    """An error as a sentence for a dialog: capitalised, without a trailing "nothing was
    changed" (the dialog says what happens next), ending with a full stop."""
    text = str(error).strip()
    for tail in ("; nothing was changed", ". Nothing was changed", "nothing was changed."):
        if text.lower().endswith(tail.lower()):
            text = text[: -len(tail)]
    text = text.rstrip(" .;")
    return f"{text[:1].upper()}{text[1:]}."


def _show_crash(
    kind: type[BaseException], error: BaseException, trace: TracebackType | None
) -> None:
    """Report a bug (any error that is not a RecallError) with its traceback."""
    text = "".join(traceback.format_exception(kind, error, trace))
    sys.stderr.write(text)
    if isinstance(error, RecallError):
        notice = QMessageBox(QMessageBox.Icon.Warning, "Recall", "")
        notice.setTextFormat(Qt.TextFormat.PlainText)
        notice.setText(str(error))
        notice.exec()
        return
    box = QMessageBox(QMessageBox.Icon.Critical, tr("Recall hit a bug"), "")
    box.setTextFormat(Qt.TextFormat.PlainText)
    box.setText(
        tr("Something went wrong inside Recall. Your reviews so far are saved.")
        + f"\n\n{kind.__name__}: {error}"
    )
    box.setDetailedText(text)
    box.exec()
