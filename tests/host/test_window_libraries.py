"""The libraries Qt's xcb plugin needs: the list matches ldd, and a missing one is named."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import PySide6
import pytest

from recall.cli.main import main
from recall.host import window_libraries

QT = Path(PySide6.__file__).parent / "Qt"
# The C and C++ runtime and what every system has below X11: not worth naming.
BASE = {
    "linux-vdso.so.1",
    "libc.so.6",
    "libm.so.6",
    "libdl.so.2",
    "libpthread.so.0",
    "librt.so.1",
    "libstdc++.so.6",
    "libgcc_s.so.1",
    "libz.so.1",
}


@pytest.mark.skipif(
    not sys.platform.startswith("linux") or shutil.which("ldd") is None, reason="ldd is Linux's"
)
def test_the_list_names_every_library_the_xcb_plugin_loads_directly() -> None:
    needed: set[str] = set()
    for binary in (
        QT / "plugins" / "platforms" / "libqxcb.so",
        *sorted((QT / "lib").glob("libQt6XcbQpa.so.*"))[:1],
        *sorted((QT / "lib").glob("libQt6Gui.so.*"))[:1],
        *sorted((QT / "lib").glob("libQt6Widgets.so.*"))[:1],
    ):
        listing = subprocess.run(
            ["ldd", str(binary)], capture_output=True, text=True, check=True
        ).stdout
        for line in listing.splitlines():
            name = line.split()[0]
            if "=>" in line and "PySide6" not in line and name not in BASE:
                needed.add(name)
    direct = {name for name in needed if name.startswith(("libxcb", "libX11", "libxkb"))}
    assert direct <= set(window_libraries.X11_LIBRARIES), sorted(
        direct - set(window_libraries.X11_LIBRARIES)
    )
    assert {"libxcb-icccm.so.4", "libxcb-keysyms.so.1"} <= direct


def test_a_missing_library_is_named_with_its_package() -> None:
    libraries = {"libxcb.so.1": "libxcb1", "libnot-installed-here.so.9": "libnot-here9"}
    message = window_libraries.problem(libraries)
    assert message is not None
    assert "libnot-installed-here.so.9" in message
    assert "sudo apt-get install libnot-here9" in message
    assert "libxcb1" not in message  # only what is missing


@pytest.mark.skipif(
    not sys.platform.startswith("linux") or shutil.which("ldd") is None, reason="ldd is Linux's"
)
def test_the_check_finds_missing_exactly_what_the_dynamic_linker_cannot_find_here() -> None:
    # Whether this machine has the X11 libraries or not (the tests' own windows are
    # offscreen and need none of them), the check and ld.so agree on what is missing.
    listing = subprocess.run(
        ["ldd", str(QT / "plugins" / "platforms" / "libqxcb.so")],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    not_found = {line.split()[0] for line in listing.splitlines() if "not found" in line}
    assert set(window_libraries.missing()) == not_found & set(window_libraries.X11_LIBRARIES)
    message = window_libraries.problem()
    if not_found & set(window_libraries.X11_LIBRARIES):
        assert message is not None
        assert all(name in message for name in window_libraries.missing())
    else:
        assert message is None


def test_the_check_runs_only_where_qt_will_use_xcb() -> None:
    assert window_libraries.uses_xcb({}, "linux")
    assert window_libraries.uses_xcb({"QT_QPA_PLATFORM": "xcb"}, "linux")
    assert not window_libraries.uses_xcb({"QT_QPA_PLATFORM": "offscreen"}, "linux")
    assert not window_libraries.uses_xcb({"XDG_SESSION_TYPE": "wayland"}, "linux")
    assert not window_libraries.uses_xcb({}, "darwin")


def test_the_window_refuses_to_start_with_the_packages_to_install(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("QT_QPA_PLATFORM", "xcb")
    monkeypatch.setitem(window_libraries.X11_LIBRARIES, "libnot-installed-here.so.9", "libx9")
    assert main(["--data-dir", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert "sudo apt-get install libx9" in err
    assert not (tmp_path / "recall.sqlite3").exists()
