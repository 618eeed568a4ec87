"""One window per data directory: a second launch asks the first to come to the front.

The running Recall listens on a local socket (a Unix domain socket, or a named pipe on
Windows) through the standard library's ``multiprocessing.connection``, with a key derived
from the user and the data directory; a new launch that reaches it sends one message and
exits; the command line sends another (`recall.host.instances`) to learn that a window is open.
The standard library keeps Qt's network module out of the standalone app.
"""

from __future__ import annotations

import threading
from multiprocessing.connection import Connection, Listener
from pathlib import Path

from PySide6.QtCore import QObject, Signal

from recall.host.instances import ACTIVATE, authkey, endpoint, send, server_name

__all__ = ["SingleInstance", "server_name"]


class SingleInstance(QObject):
    """The running Recall listens; a new one tells it to come forward, then exits."""

    activation_requested = Signal()

    def __init__(self, name: str, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._name = name
        self._address, self._family = endpoint(name)
        self._authkey = authkey(name)
        self._listener: Listener | None = None

    def notify_running(self) -> bool:
        """Ask a running Recall to come to the front; False when none is running."""
        return send(self._name, ACTIVATE)

    def listen(self) -> bool:
        """Start answering later launches (on a background thread); True when listening."""
        try:
            self._listener = Listener(self._address, family=self._family, authkey=self._authkey)
        except OSError:
            if self._family != "AF_UNIX":
                return False
            # A socket file left by a Recall that crashed: nobody answered, so take it over.
            Path(self._address).unlink(missing_ok=True)
            try:
                self._listener = Listener(self._address, family=self._family, authkey=self._authkey)
            except OSError:
                return False
        threading.Thread(target=self._serve, args=(self._listener,), daemon=True).start()
        return True

    def close(self) -> None:
        """Stop answering later launches."""
        if self._listener is not None:
            self._listener.close()
            self._listener = None

    def _serve(self, listener: Listener) -> None:
        """Accept launches until closed; runs on its own thread, so it only emits a signal."""
        while self._listener is listener:
            try:
                connection = listener.accept()
            except Exception:  # a caller that failed the handshake, or the listener closed
                continue  # the loop ends once close() has dropped the listener
            self._read(connection)

    def _read(self, connection: Connection) -> None:
        with connection:
            try:
                if connection.poll(1.0) and connection.recv_bytes(64) == ACTIVATE:
                    self.activation_requested.emit()  # queued to the window's thread
            except (OSError, EOFError):
                return
