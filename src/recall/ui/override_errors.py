"""Errors raised in Python overrides of Qt's virtual methods reach the crash dialog.

PySide6 6.12.0 crashes (a segmentation fault, no traceback, ``sys.excepthook`` never
called) when an exception raised by C code (datetime's ``OverflowError``, for one) leaves a
Python override of a Qt virtual method: ``keyPressEvent``, ``paintEvent``, a model's
``data``... Python 3.11 has not made such an exception an object yet, and Shiboken reads it
as one. Caught and raised again from Python it is an object, which Shiboken hands to
``sys.excepthook`` as it should. Signal slots are not affected.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T", bound=type)


def reports_errors(cls: T) -> T:
    """Make every Qt virtual method ``cls`` overrides raise its errors as objects.

    Args:
        cls: A subclass of a Qt class.

    Returns:
        The same class, its overrides wrapped.
    """
    qt_bases = [base for base in cls.__mro__[1:] if base.__module__.startswith("PySide6.")]
    for name, method in list(vars(cls).items()):
        if name.startswith("_") or not callable(method):
            continue
        if any(hasattr(base, name) for base in qt_bases):
            setattr(cls, name, _raising_objects(method))
    return cls


def _raising_objects(method: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(method)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return method(*args, **kwargs)
        except BaseException as error:
            raise error  # an object now: see the module's docstring

    return wrapper
