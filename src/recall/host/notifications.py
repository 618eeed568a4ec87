"""A desktop notification through the freedesktop notification service, without a tray.

Stock GNOME shows no tray icons, but every freedesktop desktop runs the
``org.freedesktop.Notifications`` service. Recall reaches it through ``notify-send``
(libnotify) when installed, else through ``gdbus`` (GLib, present wherever GNOME is): the
packaged app leaves Qt's D-Bus bindings out (docs/packaging.md), and a program that is
started and not waited for never holds up the window.
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Callable, Sequence

APP_NAME = "Recall"
ICON_NAME = "recall"
SERVICE = "org.freedesktop.Notifications"
OBJECT_PATH = "/org/freedesktop/Notifications"

Which = Callable[[str], str | None]


def notify_command(title: str, body: str, which: Which = shutil.which) -> list[str] | None:
    """The command that shows ``title`` and ``body`` as a notification; None if none can.

    Args:
        title: The notification's summary line.
        body: Its text (plain; the service may read markup, so ``<`` and ``&`` are escaped).
        which: Finds a program on PATH (tests pass their own).
    """
    body = body.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    notify_send = which("notify-send")
    if notify_send is not None:
        return [notify_send, f"--app-name={APP_NAME}", f"--icon={ICON_NAME}", "--", title, body]
    gdbus = which("gdbus")
    if gdbus is not None:
        # Notify(app_name, replaces_id, app_icon, summary, body, actions, hints, timeout)
        return [
            gdbus,
            "call",
            "--session",
            "--dest",
            SERVICE,
            "--object-path",
            OBJECT_PATH,
            "--method",
            f"{SERVICE}.Notify",
            APP_NAME,
            "0",
            ICON_NAME,
            _gvariant_string(title),
            _gvariant_string(body),
            "[]",
            "{}",
            "-1",
        ]
    return None


def notify(title: str, body: str, which: Which = shutil.which) -> subprocess.Popen[bytes] | None:
    """Show a desktop notification, not waiting for it; None when there is no way to.

    Args:
        title: The notification's summary line.
        body: Its text.
        which: Finds a program on PATH (tests pass their own).

    Returns:
        The notifier's process (Recall does not wait for it), or None.
    """
    command = notify_command(title, body, which)
    if command is None:
        return None
    return _start(command)


def _start(command: Sequence[str]) -> subprocess.Popen[bytes] | None:
    try:
        process = subprocess.Popen(
            command,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
    except OSError:
        return None
    _started[:] = [running for running in _started if running.poll() is None]
    _started.append(process)
    return process


# Started notifiers, kept until they end so that each is reaped (no zombie processes).
_started: list[subprocess.Popen[bytes]] = []


def _gvariant_string(text: str) -> str:
    """A string in GVariant text form, as ``gdbus call`` reads its arguments."""
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return f'"{escaped}"'
