"""A guard against PySide6 6.12.0 losing references to ``None`` on Python 3.11.

PySide6 6.12.0 drops one reference to ``None`` each time Python calls a Qt method that
returns nothing (``setText``, ``setAccessibleName``, ``show``...). From Python 3.12 ``None``
is immortal and this does no harm; on 3.11 its count falls by some thirty for every
answered card, and when it reaches zero Python aborts ("none_dealloc: deallocating None"),
after about a thousand answers in one run. PySide6 6.11 does not lose them. Until a
release fixes it, Recall gives ``None`` a reference count no run can use up.
"""

from __future__ import annotations

import ctypes
import sys

AFFECTED = frozenset({"6.12.0"})
_HEADROOM = 1 << 48  # references; each lost one costs nothing else


def guard_none(version: str) -> bool:
    """Raise ``None``'s reference count once per process where PySide6 loses references.

    Args:
        version: The PySide6 version (``PySide6.__version__``).

    Returns:
        Whether the count is guarded (now or earlier).
    """
    if sys.version_info >= (3, 12) or sys.implementation.name != "cpython":
        return False  # None is immortal there
    if version not in AFFECTED:
        return False
    count = ctypes.c_ssize_t.from_address(id(None))  # ob_refcnt, the object's first field
    if count.value < _HEADROOM:
        count.value += _HEADROOM
    return True
