"""Schema versions: the current one, and the step that brings each older one forward.

Every schema change adds a step here, keyed by the version it upgrades from, and keeps
``tests/test_migrations.py`` (which opens a database made by an older Recall) passing.
"""

from __future__ import annotations

from collections.abc import Callable

from sqlalchemy import Connection

SCHEMA_VERSION = 1

# MIGRATIONS[n] upgrades a schema-n database to schema n + 1, inside the upgrade's one
# transaction. Schema 1 is the first released schema, so there is nothing to upgrade yet.
MIGRATIONS: dict[int, Callable[[Connection], None]] = {}
