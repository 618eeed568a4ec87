"""PySide6.QtSvg as PyInstaller collects it, less the Qt files Recall omits (see qt_trim)."""

from PyInstaller.utils.hooks.qt import add_qt6_dependencies
from qt_trim import trim

hiddenimports, binaries, datas = add_qt6_dependencies(__file__)
binaries, datas = trim(binaries, datas)
