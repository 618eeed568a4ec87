"""PySide6.QtNetwork without its TLS and network-information plugins, and without OpenSSL.

PyInstaller's own hook also collects the system's OpenSSL libraries for the TLS plugin.
Recall imports QtNetwork at most for local sockets between its own processes.
"""

from PyInstaller.utils.hooks.qt import add_qt6_dependencies
from qt_trim import trim

hiddenimports, binaries, datas = add_qt6_dependencies(__file__)
binaries, datas = trim(binaries, datas)
