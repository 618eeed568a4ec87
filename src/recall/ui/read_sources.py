"""Letting go of the module sources PySide6's import hook reads.

Once PySide6 is imported it wraps ``__import__``: the first import of each module after
that reads the module's whole source (``inspect.getsource``) to see whether it names
PySide6, for PySide's ``__feature__`` switches, and ``linecache`` keeps every line it read.
At start that is the source of every Recall module and library imported after Qt, about
9 MB of the window's peak memory at 100,000 cards (tracemalloc: 11.6 MB in
``linecache``). Recall uses no ``__feature__`` switch and nothing reads those lines again
(a traceback reads the lines it shows anew), so the window drops them once the modules of
a screen are loaded, before the collection's rows are read for it.
"""

from __future__ import annotations

import linecache


def forget_read_sources() -> None:
    """Drop the source lines ``linecache`` holds; whatever shows one later reads it again."""
    linecache.clearcache()
