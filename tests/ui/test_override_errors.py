"""An error raised by C code inside a Python override of a Qt virtual method is reported,
not a crash: and every override in recall.ui is made to report its errors so."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import subprocess
import sys

import PySide6
import pytest

import recall.ui
from recall.ui.none_guard import AFFECTED

OVERFLOW = """
import datetime, sys
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QWidget
from recall.ui.override_errors import reports_errors
app = QApplication([])
class Page(QWidget):
    def keyPressEvent(self, event):
        datetime.datetime.max + datetime.timedelta(days=1)  # OverflowError, raised in C
page = (reports_errors(Page) if sys.argv[1] == "reported" else Page)()
page.show()
try:
    QTest.keyClick(page, Qt.Key.Key_A)
except OverflowError as error:
    print("reported:", error)
"""


def _run(kind: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", OVERFLOW, kind],
        capture_output=True,
        text=True,
        env={"QT_QPA_PLATFORM": "offscreen"},
    )


def test_an_error_from_c_in_a_reported_override_reaches_python() -> None:
    result = _run("reported")
    assert result.returncode == 0, result.stderr
    assert "reported:" in result.stdout
    assert "date value out of range" in result.stdout


@pytest.mark.skipif(PySide6.__version__ not in AFFECTED, reason="this PySide6 reports it")
def test_pyside_crashes_on_an_error_from_c_in_a_bare_override() -> None:
    result = _run("bare")
    assert result.returncode == -11  # the defect itself: a segmentation fault
    assert "reported:" not in result.stdout


def _ui_classes() -> list[type]:
    found: list[type] = []
    for module in pkgutil.walk_packages(recall.ui.__path__, prefix="recall.ui."):
        loaded = importlib.import_module(module.name)
        found += [
            value
            for _, value in inspect.getmembers(loaded, inspect.isclass)
            if value.__module__ == module.name
        ]
    return found


def test_every_override_of_a_qt_method_in_the_window_reports_its_errors() -> None:
    bare: list[str] = []
    classes = _ui_classes()
    assert len(classes) > 50
    for cls in classes:
        qt_bases = [base for base in cls.__mro__[1:] if base.__module__.startswith("PySide6.")]
        for name, method in vars(cls).items():
            public = not name.startswith("_") and callable(method)
            overrides = public and any(hasattr(base, name) for base in qt_bases)
            if overrides and not hasattr(method, "__wrapped__"):
                bare.append(f"{cls.__module__}.{cls.__qualname__}.{name}")
    assert bare == [], "decorate these classes with @reports_errors"
