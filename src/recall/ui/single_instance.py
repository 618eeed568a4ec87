"""One window per data directory: a second launch asks the first to come to the front.

The running Recall listens on a local socket (a Unix domain socket, or a named pipe on
Windows) through the standard library's ``multiprocessing.connection``, with a key derived
from the user and the data directory; a new launch that reaches it sends one message and
exits. The standard library keeps Qt's network module out of the standalone app.
"""

from __future__ import annotations

import getpass
import hashlib
import sys
import tempfile
import threading
from multiprocessing.connection import Client, Connection, Listener
from pathlib import Path

from PySide6.QtCore import QObject, Signal

_MESSAGE = b"activate"


def server_name(data_dir: Path) -> str:
    """A name for the local socket, unique to this user and data directory."""
    key = f"{getpass.getuser()}:{data_dir.resolve()}".encode()
    return f"recall-{hashlib.sha256(key).hexdigest()[:16]}"


def _endpoint(name: str) -> tuple[str, str]:
    if sys.platform == "win32":
        return rf"\\.\pipe\{name}", "AF_PIPE"
    return str(Path(tempfile.gettempdir()) / f"{name}.sock"), "AF_UNIX"


class SingleInstance(QObject):
    """The running Recall listens; a new one tells it to come forward, then exits."""

    activation_requested = Signal()

    def __init__(self, name: str, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._address, self._family = _endpoint(name)
        self._authkey = hashlib.sha256(f"{getpass.getuser()}:{name}".encode()).digest()
        self._listener: Listener | None = None

    def notify_running(self) -> bool:
        """Ask a running Recall to come to the front; False when none is running."""
        try:
            connection = Client(self._address, family=self._family, authkey=self._authkey)
        except (OSError, EOFError):
            return False
        with connection:
            connection.send_bytes(_MESSAGE)
        return True

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
                if connection.poll(1.0) and connection.recv_bytes(64) == _MESSAGE:
                    self.activation_requested.emit()  # queued to the window's thread
            except (OSError, EOFError):
                return
