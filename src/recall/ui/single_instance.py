"""One window per data directory: a second launch asks the first to come to the front."""

from __future__ import annotations

import getpass
import hashlib
from pathlib import Path

from PySide6.QtCore import QObject, Signal
from PySide6.QtNetwork import QLocalServer, QLocalSocket

_MESSAGE = b"activate\n"
_TIMEOUT_MS = 1000


def server_name(data_dir: Path) -> str:
    """A name for the local socket, unique to this user and data directory."""
    key = f"{getpass.getuser()}:{data_dir.resolve()}".encode()
    return f"recall-{hashlib.sha256(key).hexdigest()[:16]}"


class SingleInstance(QObject):
    """The running Recall listens; a new one tells it to come forward, then exits."""

    activation_requested = Signal()

    def __init__(self, name: str, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._name = name
        self._server = QLocalServer(self)
        self._server.newConnection.connect(self._on_new_connection)

    def notify_running(self) -> bool:
        """Ask a running Recall to come to the front; False when none is running."""
        socket = QLocalSocket()
        socket.connectToServer(self._name)
        if not socket.waitForConnected(_TIMEOUT_MS):
            return False
        socket.write(_MESSAGE)
        socket.flush()
        socket.waitForBytesWritten(_TIMEOUT_MS)
        socket.disconnectFromServer()
        return True

    def listen(self) -> bool:
        """Start answering later launches; True when listening."""
        if self._server.listen(self._name):
            return True
        # A socket file left by a Recall that crashed: nobody answered, so take it over.
        QLocalServer.removeServer(self._name)
        return self._server.listen(self._name)

    def close(self) -> None:
        """Stop answering later launches."""
        self._server.close()

    def _on_new_connection(self) -> None:
        while (socket := self._server.nextPendingConnection()) is not None:
            socket.readyRead.connect(self._on_ready_read)
            socket.disconnected.connect(socket.deleteLater)
            self._read(socket)  # the message may have arrived with the connection

    def _on_ready_read(self) -> None:
        socket = self.sender()
        if isinstance(socket, QLocalSocket):
            self._read(socket)

    def _read(self, socket: QLocalSocket) -> None:
        if socket.bytesAvailable() and bytes(socket.readAll().data()).startswith(_MESSAGE.strip()):
            self.activation_requested.emit()
