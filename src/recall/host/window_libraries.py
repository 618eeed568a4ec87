"""Before the window opens on Linux: are the X11 libraries Qt's xcb plugin needs installed?

When one is missing, Qt stops with a generic "could not load the Qt platform plugin xcb"
and aborts the process. Recall looks first (in the folders the dynamic linker searches,
loading with ``ctypes`` only a library not found there) and names the Debian/Ubuntu
packages to install instead.

The list is what ``ldd`` shows for PySide6's ``libqxcb.so``, ``libQt6XcbQpa``, ``libQt6Gui``
and ``libQt6Widgets`` outside the wheel, less the C and C++ runtime every system has;
``tests/host/test_window_libraries.py`` compares it with ``ldd`` on the installed wheel. This
module imports no Qt.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from contextlib import suppress
from pathlib import Path

from recall.core.i18n import tr

# Each shared library, with the Debian/Ubuntu package that provides it.
X11_LIBRARIES: dict[str, str] = {
    "libxcb.so.1": "libxcb1",
    "libxcb-cursor.so.0": "libxcb-cursor0",
    "libxcb-icccm.so.4": "libxcb-icccm4",
    "libxcb-image.so.0": "libxcb-image0",
    "libxcb-keysyms.so.1": "libxcb-keysyms1",
    "libxcb-randr.so.0": "libxcb-randr0",
    "libxcb-render.so.0": "libxcb-render0",
    "libxcb-render-util.so.0": "libxcb-render-util0",
    "libxcb-shape.so.0": "libxcb-shape0",
    "libxcb-shm.so.0": "libxcb-shm0",
    "libxcb-sync.so.1": "libxcb-sync1",
    "libxcb-util.so.1": "libxcb-util1",
    "libxcb-xfixes.so.0": "libxcb-xfixes0",
    "libxcb-xkb.so.1": "libxcb-xkb1",
    "libX11.so.6": "libx11-6",
    "libX11-xcb.so.1": "libx11-xcb1",
    "libxkbcommon.so.0": "libxkbcommon0",
    "libxkbcommon-x11.so.0": "libxkbcommon-x11-0",
    "libEGL.so.1": "libegl1",
    "libGL.so.1": "libgl1",
    "libfontconfig.so.1": "libfontconfig1",
    "libfreetype.so.6": "libfreetype6",
    "libglib-2.0.so.0": "libglib2.0-0",
    "libgthread-2.0.so.0": "libglib2.0-0",
    "libdbus-1.so.3": "libdbus-1-3",
}


def uses_xcb(environ: Mapping[str, str] | None = None, platform: str | None = None) -> bool:
    """Whether Qt will draw through X11 (xcb) here: Linux, and not told or led elsewhere."""
    environ = os.environ if environ is None else environ
    if not (platform or sys.platform).startswith("linux"):
        return False
    chosen = environ.get("QT_QPA_PLATFORM", "").strip().lower()
    if chosen:
        return chosen.split(":")[0].split(";")[0] == "xcb"
    return environ.get("XDG_SESSION_TYPE", "").lower() != "wayland"


def missing(libraries: Mapping[str, str] = X11_LIBRARIES) -> dict[str, str]:
    """The libraries that cannot be loaded, each with its package.

    A library found as a file in the linker's usual folders counts as there (a few stat
    calls); only one that is not is loaded with ``ctypes`` to be sure, so the check costs
    the start next to nothing.
    """
    folders = _library_folders()
    absent = {}
    for name, package in libraries.items():
        if any((folder / name).exists() for folder in folders):
            continue
        import ctypes  # only for a library not found as a file

        try:
            ctypes.CDLL(name)
        except OSError:
            absent[name] = package
    return absent


def _library_folders() -> list[Path]:
    """Where the dynamic linker looks: LD_LIBRARY_PATH, ld.so.conf's folders, the defaults."""
    folders = [part for part in os.environ.get("LD_LIBRARY_PATH", "").split(":") if part]
    with suppress(OSError):
        for conf in sorted(Path("/etc/ld.so.conf.d").glob("*.conf")):
            lines = conf.read_text(encoding="utf-8", errors="replace").splitlines()
            folders += [line.strip() for line in lines if line.startswith("/")]
    defaults = ["/lib", "/usr/lib", "/lib64", "/usr/lib64", "/usr/local/lib"]
    return [Path(folder) for folder in [*folders, *defaults]]


def problem(libraries: Mapping[str, str] = X11_LIBRARIES) -> str | None:
    """What to tell the learner when the window cannot open for lack of libraries."""
    absent = missing(libraries)
    if not absent:
        return None
    packages = " ".join(sorted(set(absent.values())))
    return tr(
        "Recall's window needs X11 libraries that are not installed: {libraries}.\nInstall "
        "them (Debian/Ubuntu): sudo apt-get install {packages}"
    ).format(libraries=", ".join(absent), packages=packages)
