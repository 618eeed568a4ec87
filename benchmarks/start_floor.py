"""Child process: the floor of a Qt app, an empty window painted once.

``python -m benchmarks.start_floor`` imports PySide6, sqlmodel and fsrs, as Recall must,
and shows an empty main window; ``--bare`` imports PySide6 alone. At the window's first
paint it prints ``painted <peak RSS in kB>`` and exits at once.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from PySide6.QtCore import QEvent, QObject
from PySide6.QtWidgets import QApplication, QMainWindow


def peak_rss_kb() -> int:
    """The process's peak resident memory so far (VmHWM), in kB."""
    for line in Path("/proc/self/status").read_text(encoding="ascii").splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    return 0


class _FirstPaint(QObject):
    def __init__(self, window: QMainWindow) -> None:
        super().__init__()
        self._window = window

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Paint and watched is self._window:
            print(f"painted {peak_rss_kb()}", flush=True)
            os._exit(0)
        return False


def main() -> None:
    if "--bare" not in sys.argv:
        import fsrs  # noqa: F401
        import sqlmodel  # noqa: F401
    app = QApplication(sys.argv[:1])
    window = QMainWindow()
    window.setWindowTitle("Floor")
    window.resize(800, 600)
    watcher = _FirstPaint(window)
    window.installEventFilter(watcher)
    window.show()
    sys.exit(app.exec())


if __name__ == "__main__":
    main()
