"""The frozen app's entry point: the same command line as the installed ``recall``."""

from __future__ import annotations

import sys

from recall.cli.main import main

if __name__ == "__main__":
    sys.exit(main())
