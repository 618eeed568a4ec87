"""The upgrade to the browser's schema: a database made before it is searchable afterwards."""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime
from pathlib import Path

import pytest

from recall.changes.cards import Changes
from recall.collection import browse, opening
from recall.core.preferences import Preferences
from recall.safekeeping import integrity
from recall.scheduling import Scheduler, Schedulers
from recall.storage import Database
from tests.conftest import DATA, ZONE
from tests.storage.test_migrations import copy_fixture

AFTER = datetime(2026, 4, 1, tzinfo=UTC)


# Every fixture made before the browser's schema (4); schema 3 is the one just before it.
BEFORE_BROWSING = [DATA / f"schema-{version}.sqlite3" for version in (1, 2, 3)]


@pytest.mark.parametrize("fixture", BEFORE_BROWSING, ids=lambda path: path.stem)
def test_an_older_database_gets_tags_texts_and_history_kinds(tmp_path: Path, fixture: Path) -> None:
    path = copy_fixture(tmp_path, fixture)
    old = sqlite3.connect(path)
    tagged = old.execute('SELECT count(*) FROM card WHERE content LIKE \'%"tags":["%\'').fetchone()[
        0
    ]
    old.close()
    database = Database(path)
    schedulers = Schedulers(fuzz=True)
    settings = Preferences()
    finder = browse.Finder(database, Scheduler(), settings, ZONE)
    assert len(finder.find("tag:none", AFTER).card_ids) == 10 - tagged
    assert len(finder.find("-tag:none", AFTER).card_ids) == tagged
    assert finder.find("is:suspended or is:buried or -flag:0", AFTER).card_ids == ()
    everything = finder.find("", AFTER).card_ids
    assert set(finder.find("checkpoint*", AFTER).card_ids) < set(everything)
    rows = finder.rows(everything)
    old = sqlite3.connect(path)
    reviews = old.execute("SELECT count(*) FROM review").fetchone()[0]
    old.close()
    answers = len(fixture.with_suffix(".reviews.csv").read_text().splitlines()) - 1
    assert sum(row.reps for row in rows) == reviews == answers > 100
    # The upgraded file takes the browser's changes, and check holds after them.
    changes = Changes(database, schedulers, settings, ZONE)
    changes.forget(finder.find("-is:new", AFTER).card_ids[:2], AFTER)
    changes.suspend(everything[:3])
    opening.upgrade_schedules(database, AFTER)  # as opening the library does
    report = integrity.check(database, schedulers, AFTER)
    assert report.healthy, report.problems
    database.close()
