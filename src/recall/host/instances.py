"""Whether a Recall window has a data folder open, found through its local socket.

The window listens on a local socket (a Unix domain socket, or a named pipe on Windows)
named from the user and the data folder (``ui/single_instance.py``). The command line asks
here before a step that must not run under an open window, such as a restore.
"""

from __future__ import annotations

import getpass
import hashlib
import sys
import tempfile
from multiprocessing.connection import Client
from pathlib import Path

ACTIVATE = b"activate"
PING = b"ping"


def server_name(data_dir: Path) -> str:
    """A name for the local socket, unique to this user and data directory."""
    key = f"{getpass.getuser()}:{data_dir.resolve()}".encode()
    return f"recall-{hashlib.sha256(key).hexdigest()[:16]}"


def endpoint(name: str) -> tuple[str, str]:
    """The socket's address and family for ``multiprocessing.connection``."""
    if sys.platform == "win32":
        return rf"\\.\pipe\{name}", "AF_PIPE"
    return str(Path(tempfile.gettempdir()) / f"{name}.sock"), "AF_UNIX"


def authkey(name: str) -> bytes:
    """The key both ends prove they know, so only this user's Recall answers."""
    return hashlib.sha256(f"{getpass.getuser()}:{name}".encode()).digest()


def send(name: str, message: bytes) -> bool:
    """Send one message to the window listening under ``name``; False when none listens."""
    address, family = endpoint(name)
    try:
        connection = Client(address, family=family, authkey=authkey(name))
    except (OSError, EOFError):
        return False
    with connection:
        try:
            connection.send_bytes(message)
        except OSError:
            return False
    return True


def window_open(data_dir: Path) -> bool:
    """Whether a Recall window has ``data_dir`` open (it answers on its socket)."""
    return send(server_name(data_dir), PING)
