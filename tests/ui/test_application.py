"""The application around the window: its icon, Help > About, and ``recall --self-test``."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import pytest
from PySide6.QtCore import QSize, QTimer, qVersion
from PySide6.QtWidgets import QApplication, QMessageBox
from pytestqt.qtbot import QtBot

from recall.storage import Database
from recall.ui.application import ICON_SIZES, app_icon
from recall.ui.main_window import MainWindow
from recall.ui.self_test import choose_platform


def test_the_icon_comes_in_every_size(qapp: QApplication) -> None:
    sizes = app_icon().availableSizes()
    assert sizes == [QSize(size, size) for size in ICON_SIZES]


def test_the_window_has_the_icon(window: MainWindow) -> None:
    assert not window.windowIcon().isNull()
    assert window.windowIcon().availableSizes() == app_icon().availableSizes()


# The offscreen platform says so whenever a dialog is shown; it is not Recall's warning.
@pytest.mark.qt_log_ignore("^This plugin does not support propagateSizeHints")
def test_about_names_the_versions_of_recall_and_its_libraries(
    qtbot: QtBot, window: MainWindow
) -> None:
    seen: list[str] = []

    def read_and_close() -> None:
        box = QApplication.activeModalWidget()
        assert isinstance(box, QMessageBox)
        seen.append(box.text())
        box.accept()

    QTimer.singleShot(0, read_and_close)
    window.menus.about_action.trigger()
    (text,) = seen
    assert f"Recall {metadata.version('recall')}" in text
    assert f"Qt {qVersion()}" in text
    assert f"SQLite {sqlite3.sqlite_version}" in text
    assert f"fsrs {metadata.version('fsrs')}" in text


def test_no_display_means_offscreen_on_linux_only() -> None:
    bare: dict[str, str] = {}
    choose_platform(bare, "linux")
    assert bare == {"QT_QPA_PLATFORM": "offscreen"}
    for environ, system in (
        ({"DISPLAY": ":1"}, "linux"),
        ({"WAYLAND_DISPLAY": "wayland-0"}, "linux"),
        ({"QT_QPA_PLATFORM": "xcb"}, "linux"),
        ({}, "darwin"),
        ({}, "win32"),
    ):
        before = dict(environ)
        choose_platform(environ, system)
        assert environ == before


def _self_test(*args: str) -> subprocess.CompletedProcess[str]:
    """``python -m recall --self-test`` from source, with no display and no platform set."""
    environment = {
        name: value
        for name, value in os.environ.items()
        if name not in ("QT_QPA_PLATFORM", "DISPLAY", "WAYLAND_DISPLAY")
    }
    return subprocess.run(
        [sys.executable, "-m", "recall", *args, "--self-test"],
        env=environment,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def _reviews_in(data_dir: Path) -> int:
    database = Database(data_dir / "recall.sqlite3")
    try:
        with database.transaction() as tx:
            return len(list(tx.history.all()))
    finally:
        database.close()


def test_self_test_studies_one_card_and_stores_it(tmp_path: Path) -> None:
    result = _self_test("--data-dir", str(tmp_path))
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].endswith("on the offscreen platform")
    assert "self-test: first card on screen" in lines
    assert lines[-1] == "self-test: passed"
    assert _reviews_in(tmp_path) == 1
    assert (tmp_path / "window.ini").exists()  # the window closed the normal way
    again = _self_test("--data-dir", str(tmp_path))  # a folder with history works too
    assert again.returncode == 0, again.stderr
    assert _reviews_in(tmp_path) == 2


def test_self_test_without_data_dir_leaves_no_data_behind(tmp_path: Path) -> None:
    result = _self_test()
    assert result.returncode == 0, result.stderr
    assert not (tmp_path / "default-data").exists()  # RECALL_DATA_DIR, set by conftest


def test_self_test_failure_exits_1_and_says_why(tmp_path: Path) -> None:
    (tmp_path / "recall.sqlite3").write_bytes(b"not a database at all, just some bytes " * 40)
    result = _self_test("--data-dir", str(tmp_path))
    assert result.returncode == 1
    assert result.stderr.startswith("self-test failed: ")
    assert "not a Recall database" in result.stderr
    assert "self-test: passed" not in result.stdout
