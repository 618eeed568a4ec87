"""Build ``dist/recall_VERSION_ARCH.deb`` from the one-folder app ``make package`` made.

Run with ``.venv/bin/python packaging/build_deb.py`` (``make deb`` does). The package holds
the frozen app in ``/usr/lib/recall/``, ``/usr/bin/recall`` (a link to its executable), the
desktop entry and the icon in the hicolor theme; its maintainer scripts refresh the desktop
and icon caches when those tools are installed. Nothing is rebuilt: the folder
``dist/Recall`` is packaged as it is.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from importlib import metadata
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
APP = ROOT / "dist" / "Recall"
STAGE = ROOT / "build" / "deb"
RESOURCES = ROOT / "resources"
ICON_SIZES = (16, 24, 32, 48, 64, 128, 256, 512)
# The X11, xcb and other system libraries the frozen app loads from the machine (README,
# "Quick start"); libglib was renamed on 64-bit time distributions (Ubuntu 24.04).
DEPENDS = (
    "libc6 (>= 2.36), libxcb1, libxcb-cursor0, libxcb-icccm4, libxcb-image0, libxcb-keysyms1, "
    "libxcb-randr0, libxcb-render0, libxcb-render-util0, libxcb-shape0, libxcb-shm0, "
    "libxcb-sync1, libxcb-util1, libxcb-xfixes0, libxcb-xkb1, libx11-6, libx11-xcb1, "
    "libxkbcommon0, libxkbcommon-x11-0, libegl1, libgl1, libfontconfig1, libfreetype6, "
    "libglib2.0-0 | libglib2.0-0t64, libdbus-1-3"
)
CACHES = """\
if command -v update-desktop-database >/dev/null 2>&1; then
    update-desktop-database -q /usr/share/applications || true
fi
if command -v gtk-update-icon-cache >/dev/null 2>&1; then
    gtk-update-icon-cache -q -t -f /usr/share/icons/hicolor || true
fi
"""


def control(version: str, architecture: str, installed_kib: int) -> str:
    """The package's ``DEBIAN/control``."""
    return (
        "Package: recall\n"
        f"Version: {version}\n"
        f"Architecture: {architecture}\n"
        "Maintainer: Recall <recall@localhost>\n"
        f"Installed-Size: {installed_kib}\n"
        f"Depends: {DEPENDS}\n"
        "Section: education\n"
        "Priority: optional\n"
        "Description: spaced-repetition quizzes, scheduled with FSRS\n"
        " Recall shows multiple-choice and basic cards when they are due, schedules them\n"
        " with FSRS, imports Anki packages and syncs through a shared folder. It shows\n"
        " today's due count in the tray and can remind once a day.\n"
    )


def build(app: Path = APP, stage: Path = STAGE, out_dir: Path = ROOT / "dist") -> Path:
    """Stage the package's files and run ``dpkg-deb``; returns the ``.deb``'s path."""
    if not (app / "recall").is_file():
        sys.exit(f"build_deb: {app / 'recall'} is missing: run `make package` first")
    version = metadata.version("recall")
    architecture = subprocess.run(
        ["dpkg", "--print-architecture"], check=True, capture_output=True, text=True
    ).stdout.strip()
    shutil.rmtree(stage, ignore_errors=True)
    usr = stage / "usr"
    shutil.copytree(app, usr / "lib" / "recall", symlinks=True)
    (usr / "bin").mkdir(parents=True)
    (usr / "bin" / "recall").symlink_to("../lib/recall/recall")
    _install(RESOURCES / "recall.desktop", usr / "share" / "applications" / "recall.desktop")
    icons = usr / "share" / "icons" / "hicolor"
    _install(RESOURCES / "recall.svg", icons / "scalable" / "apps" / "recall.svg")
    for size in ICON_SIZES:
        _install(RESOURCES / f"recall-{size}.png", icons / f"{size}x{size}" / "apps" / "recall.png")
    installed_kib = (
        sum(path.lstat().st_size for path in usr.rglob("*") if not path.is_dir()) // 1024
    )
    debian = stage / "DEBIAN"
    debian.mkdir()
    (debian / "control").write_text(control(version, architecture, installed_kib), "utf-8")
    for script in ("postinst", "postrm"):
        path = debian / script
        path.write_text(f"#!/bin/sh\nset -e\n{CACHES}", encoding="utf-8")
        path.chmod(0o755)
    for path in stage.rglob("*"):
        if not path.is_symlink():  # dpkg-deb refuses group- or world-writable control files
            path.chmod(path.stat().st_mode & 0o755)
    package = out_dir / f"recall_{version}_{architecture}.deb"
    subprocess.run(
        ["dpkg-deb", "--build", "--root-owner-group", "-Zgzip", str(stage), str(package)],
        check=True,
    )
    return package


def _install(source: Path, target: Path) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(source, target)
    target.chmod(0o644)


if __name__ == "__main__":
    print(build())
