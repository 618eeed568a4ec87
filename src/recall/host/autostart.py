"""Starting with the desktop session: the XDG autostart entry that opens Recall in the tray.

Desktops that follow the freedesktop autostart specification (GNOME, KDE, Xfce, ...) start
every ``*.desktop`` file in ``$XDG_CONFIG_HOME/autostart`` (``~/.config/autostart``) when the
learner logs in. Recall's entry runs the same program that is running now with
``--minimized``, so the packaged app, the ``.deb``'s ``/usr/bin/recall`` and a source checkout
each start themselves.
"""

from __future__ import annotations

import os
import shlex
import shutil
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

from recall.core.errors import RecallError
from recall.core.i18n import tr

ENTRY_NAME = "recall.desktop"
MINIMIZED_ARGUMENT = "--minimized"


class AutostartError(RecallError):
    """The autostart entry could not be written or removed; the message names the file."""


def autostart_dir(environ: Mapping[str, str] | None = None) -> Path:
    """The folder the desktop starts entries from: ``$XDG_CONFIG_HOME/autostart``.

    Args:
        environ: The environment to read; None for this process's.
    """
    environ = os.environ if environ is None else environ
    config = environ.get("XDG_CONFIG_HOME", "")
    # The specification: a relative or empty value is ignored, as if it were not set.
    base = Path(config) if config and Path(config).is_absolute() else Path.home() / ".config"
    return base / "autostart"


def entry_path(environ: Mapping[str, str] | None = None) -> Path:
    """Where Recall's autostart entry lives."""
    return autostart_dir(environ) / ENTRY_NAME


def launch_command() -> list[str]:
    """The command that starts this Recall again: the frozen app, ``recall`` or ``python -m``."""
    if getattr(sys, "frozen", False):
        return [sys.executable]
    installed = shutil.which("recall")
    if installed is not None:
        return [installed]
    return [sys.executable, "-m", "recall"]


def entry_text(command: Sequence[str]) -> str:
    """The desktop entry that runs ``command`` with ``--minimized`` at login."""
    exec_line = " ".join(_exec_quoted(part) for part in (*command, MINIMIZED_ARGUMENT))
    return (
        "[Desktop Entry]\n"
        "Type=Application\n"
        "Name=Recall\n"
        "Comment=Spaced-repetition quizzes: today's due cards in the tray\n"
        f"Exec={exec_line}\n"
        "Icon=recall\n"
        "Terminal=false\n"
        "X-GNOME-Autostart-enabled=true\n"
    )


def is_enabled(environ: Mapping[str, str] | None = None) -> bool:
    """Whether Recall's autostart entry exists."""
    return entry_path(environ).is_file()


def enable(command: Sequence[str] | None = None, environ: Mapping[str, str] | None = None) -> Path:
    """Write the autostart entry (replacing an older one); returns its path.

    Args:
        command: The program and arguments to start; None for ``launch_command()``.
        environ: The environment to read ``XDG_CONFIG_HOME`` from; None for this process's.

    Raises:
        AutostartError: The folder or the file cannot be written.
    """
    path = entry_path(environ)
    text = entry_text(launch_command() if command is None else command)
    scratch = path.with_name(f".{ENTRY_NAME}.new")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        scratch.write_text(text, encoding="utf-8")
        scratch.replace(path)  # a login in between never reads half a file
    except OSError as error:
        raise AutostartError(
            tr("cannot write the autostart entry {path}: {reason}").format(
                path=path, reason=error.strerror or error
            )
        ) from None
    return path


def disable(environ: Mapping[str, str] | None = None) -> None:
    """Remove the autostart entry, if there is one.

    Raises:
        AutostartError: The file exists but cannot be removed.
    """
    path = entry_path(environ)
    try:
        path.unlink(missing_ok=True)
    except OSError as error:
        raise AutostartError(
            tr("cannot remove the autostart entry {path}: {reason}").format(
                path=path, reason=error.strerror or error
            )
        ) from None


def set_enabled(
    enabled: bool, environ: Mapping[str, str] | None = None, system: str = sys.platform
) -> None:
    """Write or remove the entry so that it exists exactly when ``enabled``.

    Raises:
        AutostartError: The entry cannot be written or removed, or this is Windows or macOS,
            whose login items are not XDG entries.
    """
    if enabled and system.startswith(("win", "darwin")):
        raise AutostartError(
            tr(
                "Recall starts with the session through the XDG autostart folder of Linux "
                "desktops; on Windows put a shortcut with --minimized in shell:startup, on macOS "
                "add Recall to System Settings > General > Login Items"
            )
        )
    if enabled:
        enable(environ=environ)
    else:
        disable(environ)


def _exec_quoted(argument: str) -> str:
    """One argument of an ``Exec`` key, quoted as the desktop entry specification asks."""
    if argument and not any(char in argument for char in " \t\n\"'\\><~|&;$*?#()`%="):
        return argument
    escaped = argument.replace("\\", "\\\\").replace('"', '\\"').replace("`", "\\`")
    escaped = escaped.replace("$", "\\$").replace("%", "%%")
    return f'"{escaped}"'


def exec_arguments(text: str) -> list[str]:
    """The command an entry's ``Exec`` key runs (for checking an entry): the inverse of quoting.

    Raises:
        AutostartError: The entry has no ``Exec`` key.
    """
    for line in text.splitlines():
        if line.startswith("Exec="):
            return [part.replace("%%", "%") for part in shlex.split(line[len("Exec=") :])]
    raise AutostartError(tr("the autostart entry has no Exec line"))
