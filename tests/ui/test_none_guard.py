"""The guard against PySide6 6.12.0 losing references to None on Python 3.11."""

from __future__ import annotations

import subprocess
import sys

import PySide6
import pytest

from recall.ui.none_guard import AFFECTED, guard_none

LOSS = """
import sys
from PySide6.QtWidgets import QApplication, QLabel
from recall.ui.none_guard import guard_none
app = QApplication([])
label = QLabel()
guarded = guard_none(sys.argv[1])
before = sys.getrefcount(None)
for _ in range(1000):
    label.setText("x")
print(guarded, before - sys.getrefcount(None), sys.getrefcount(None) > 1 << 40)
"""

AFFECTED_HERE = sys.version_info < (3, 12) and PySide6.__version__ in AFFECTED


@pytest.mark.skipif(not AFFECTED_HERE, reason="this PySide6 and Python do not lose None")
def test_pyside_loses_none_and_the_guard_gives_it_room() -> None:
    result = subprocess.run(
        [sys.executable, "-c", LOSS, PySide6.__version__],
        capture_output=True,
        text=True,
        check=True,
        env={"QT_QPA_PLATFORM": "offscreen"},
    )
    guarded, lost, roomy = result.stdout.split()
    assert (guarded, roomy) == ("True", "True")
    assert int(lost) == 1000  # the defect itself: one reference per call


def test_the_guard_leaves_unaffected_versions_alone() -> None:
    assert guard_none("6.11.3") is False
