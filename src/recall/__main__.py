"""Entry point for ``python -m recall``."""

from __future__ import annotations

import sys

from recall.cli.main import main

sys.exit(main())
