"""A guard against PySide6 6.12.0 losing references to ``None`` and ``True`` on Python 3.11.

PySide6 6.12.0 drops one reference to ``None`` each time Python calls a Qt method that
returns nothing (``setText``, ``setAccessibleName``, ``show``...), and one reference to
``True`` each time a signal is emitted (``emit`` hands back ``True`` without owning it).
From Python 3.12 these objects are immortal and this does no harm; on 3.11 ``None``'s count
falls by a hundred or more for every answered card and ``True``'s by about seven (and by
one for every operation's ``busy_changed``, every sync round, every click). When either
reaches zero Python aborts ("none_dealloc: deallocating None", "bool_dealloc") or crashes
with no traceback at all, after some hundreds of answers for ``None`` and some 1,500 for
``True``. PySide6 6.11 does not lose them, and no release after 6.12.0 exists yet. Until one
fixes it, Recall gives each of ``None``, ``True`` and ``False`` a reference count no run can
use up.
"""

from __future__ import annotations

import ctypes
import sys

AFFECTED = frozenset({"6.12.0"})
_HEADROOM = 1 << 48  # references; each lost one costs nothing else
_SINGLETONS = (None, True, False)  # False is not seen to lose any, but is made the same way


def guard_none(version: str) -> bool:
    """Raise the reference counts of ``None``, ``True`` and ``False`` once per process where
    PySide6 loses references to them.

    Args:
        version: The PySide6 version (``PySide6.__version__``).

    Returns:
        Whether the counts are guarded (now or earlier).
    """
    if sys.version_info >= (3, 12) or sys.implementation.name != "cpython":
        return False  # None, True and False are immortal there
    if version not in AFFECTED:
        return False
    for singleton in _SINGLETONS:
        count = ctypes.c_ssize_t.from_address(id(singleton))  # ob_refcnt, the first field
        if count.value < _HEADROOM:
            count.value += _HEADROOM
    return True
