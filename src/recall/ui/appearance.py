"""How the window looks: the style sheet at the chosen text size, and the light or dark theme."""

from __future__ import annotations

import re

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QApplication

from recall.core.preferences import Preferences
from recall.host import paths

STYLE_SHEET = "style.qss"
_POINT_SIZE = re.compile(r"(\d+(?:\.\d+)?)pt")
_COLOR_SCHEMES = {
    "system": Qt.ColorScheme.Unknown,
    "light": Qt.ColorScheme.Light,
    "dark": Qt.ColorScheme.Dark,
}


def apply_preferences(app: QApplication, preferences: Preferences) -> None:
    """Apply the theme and the text size at once, to every open window.

    The theme sets Qt's colour scheme (the Fusion style then draws with a light or dark
    palette; "system" follows the desktop again); the text size scales every size in the
    style sheet.
    """
    app.setProperty("recallTextSize", preferences.text_size)
    app.styleHints().setColorScheme(_COLOR_SCHEMES[preferences.theme])
    # Not every platform theme follows a requested scheme (X11 without a desktop does
    # not), so the palette is set as well; an empty palette gives the system's back.
    if preferences.theme == "dark":
        app.setPalette(dark_palette())
    elif preferences.theme == "light":
        app.setPalette(app.style().standardPalette())
    else:
        app.setPalette(QPalette())
    apply_style_sheet(app)


def dark_palette() -> QPalette:
    """Fusion's palette in dark colours."""
    palette = QPalette()
    role = QPalette.ColorRole
    window, base, text = QColor(45, 45, 48), QColor(30, 30, 32), QColor(230, 230, 230)
    for what, colour in (
        (role.Window, window),
        (role.WindowText, text),
        (role.Base, base),
        (role.AlternateBase, QColor(40, 40, 43)),
        (role.ToolTipBase, window),
        (role.ToolTipText, text),
        (role.PlaceholderText, QColor(150, 150, 150)),
        (role.Text, text),
        (role.Button, QColor(55, 55, 58)),
        (role.ButtonText, text),
        (role.BrightText, QColor(255, 90, 90)),
        (role.Light, QColor(75, 75, 78)),
        (role.Midlight, QColor(62, 62, 65)),
        (role.Mid, QColor(50, 50, 52)),
        (role.Dark, QColor(25, 25, 27)),
        (role.Shadow, QColor(10, 10, 10)),
        (role.Highlight, QColor(53, 132, 228)),
        (role.HighlightedText, QColor(255, 255, 255)),
        (role.Link, QColor(110, 170, 255)),
        (role.LinkVisited, QColor(170, 140, 255)),
    ):
        palette.setColor(what, colour)
    disabled = QPalette.ColorGroup.Disabled
    for what in (role.WindowText, role.Text, role.ButtonText):
        palette.setColor(disabled, what, QColor(130, 130, 130))
    return palette


def style_sheet(text_size: int = 100) -> str:
    """Recall's style sheet with every point size scaled to ``text_size`` percent."""
    sheet = paths.resource(STYLE_SHEET).read_text(encoding="utf-8")
    if text_size == 100:
        return sheet
    return _POINT_SIZE.sub(lambda match: f"{float(match.group(1)) * text_size / 100:.1f}pt", sheet)


def apply_style_sheet(app: QApplication) -> None:
    """(Re)apply the style sheet: its palette() colours are resolved when it is applied."""
    size = app.property("recallTextSize")
    app.setStyleSheet(style_sheet(size if isinstance(size, int) else 100))
