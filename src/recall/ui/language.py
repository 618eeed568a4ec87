"""The window's language: Recall's catalog, Qt's own translations and the layout direction.

``use_language`` runs before any window text is built: once when the application starts
(the language the system asks for) and again when the collection is open and the learner's
choice in Preferences is known. Qt's standard dialogs and buttons (file pickers, Save,
Cancel) are translated by Qt's ``qtbase_<language>.qm`` catalog, loaded with a
``QTranslator``; a right-to-left language mirrors the whole layout.
"""

from __future__ import annotations

from collections.abc import Mapping
from importlib.resources.abc import Traversable
from pathlib import Path

import PySide6
from PySide6.QtCore import QLibraryInfo, QLocale, Qt, QTranslator
from PySide6.QtWidgets import QApplication

from recall.core import i18n

# The preference value that leaves the choice to the system (LANGUAGE, LANG...).
AS_THE_SYSTEM_SAYS = "system"
_translators: dict[int, QTranslator] = {}  # keeps each application's translator alive


def qt_translations() -> list[Path]:
    """The folders Qt's own catalogs may be in: Qt's translations path, then PySide6's."""
    folders = [Path(QLibraryInfo.path(QLibraryInfo.LibraryPath.TranslationsPath))]
    bundled = Path(PySide6.__file__).parent / "Qt" / "translations"
    if bundled not in folders:
        folders.append(bundled)
    return folders


def use_language(
    app: QApplication,
    preference: str | None = None,
    environ: Mapping[str, str] | None = None,
    folder: Traversable | None = None,
) -> str:
    """Show Recall in the language chosen (``i18n.choose``) from now on.

    Args:
        app: The application whose Qt translator and layout direction follow the language.
        preference: The language chosen in Preferences; None, empty or "system" means
            the one the system asks for.
        environ: The environment to read (the process's by default).
        folder: Where Recall's catalogs are (the package's by default).

    Returns:
        The language's code (``en`` when Recall ships none of those asked for).
    """
    chosen = None if preference in (None, "", AS_THE_SYSTEM_SAYS) else preference
    language = i18n.start(chosen, environ, folder)
    _install_qt_translator(app, language)
    # Dates and numbers Qt formats (the calendar, date fields) follow the language too; the
    # system's own locale when it is of the same language (de_AT keeps Austrian forms).
    system = QLocale.system()
    same = system.name().partition("_")[0] == language.partition("_")[0]
    QLocale.setDefault(system if same else QLocale(language))
    direction = (
        Qt.LayoutDirection.RightToLeft
        if i18n.right_to_left(language)
        else Qt.LayoutDirection.LeftToRight
    )
    app.setLayoutDirection(direction)
    return language


def _install_qt_translator(app: QApplication, language: str) -> None:
    """Replace the Qt translator in use by the one for ``language`` (none for English)."""
    previous = _translators.pop(id(app), None)
    if previous is not None:
        app.removeTranslator(previous)
    if language == i18n.SOURCE_LANGUAGE:
        return
    translator = QTranslator(app)
    for candidate in (language, language.partition("_")[0]):
        if any(translator.load(f"qtbase_{candidate}", str(path)) for path in qt_translations()):
            app.installTranslator(translator)
            _translators[id(app)] = translator
            return
