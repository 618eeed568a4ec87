"""Notices changes another process made to the database (an import from the terminal).

Every couple of seconds it reads the watched connection's stamp (``PRAGMA data_version``,
one cheap query; skipped, never waited for, while another thread uses that connection);
when it moved, ``changed`` is emitted and the window reads its counts
again. Changes this process made move it too: a refresh more, never one missed.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, QTimer, Signal

from recall.storage import Database

INTERVAL_MS = 2_000


class DatabaseWatcher(QObject):
    """Emits ``changed`` when the database is no longer as it was last seen."""

    changed = Signal()

    def __init__(self, database: Database, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._watched = database.watched()
        with self._watched.reading():
            pass  # opened now, so the first stamp is a real one
        self._seen = self._watched.current()
        self.timer = QTimer(self)
        self.timer.setInterval(INTERVAL_MS)
        self.timer.timeout.connect(self.check)

    def start(self) -> None:
        """Look every couple of seconds from now on."""
        self.timer.start()

    def seen(self) -> None:
        """The window has just read the database: what is there now is not news.

        While another thread is using the watched connection, the stamp last seen stays
        (never waited for, as ``check``): the next look then tells a refresh more at worst.
        """
        stamp = self._watched.current_if_free()
        if stamp is not None:
            self._seen = stamp

    def check(self) -> bool:
        """Emit ``changed`` if the database changed since it was last seen; whether it did.

        While another thread is using the watched connection (a task reading through it,
        perhaps waiting for a restore to finish), nothing is read: the next look tells.
        """
        stamp = self._watched.current_if_free()
        if stamp is None or stamp == self._seen:
            return False
        self._seen = stamp
        self.changed.emit()
        return True
