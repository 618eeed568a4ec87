"""The database watch skips a look while another thread holds the watched connection, and
never waits for it: a change made meanwhile is told at the first look once it is free,
never lost, and the watch's "seen" neither waits nor hides one."""

from __future__ import annotations

import random
import sqlite3
import threading
import time

from pytestqt.qtbot import QtBot

from recall.storage import Database
from recall.ui.database_watcher import DatabaseWatcher


class _Holder:
    """Another thread reading through the watched connection until let go."""

    def __init__(self, database: Database) -> None:
        self._holding, self._release = threading.Event(), threading.Event()
        self._thread = threading.Thread(target=self._hold, args=(database,))
        self._thread.start()
        assert self._holding.wait(10)

    def _hold(self, database: Database) -> None:
        with database.watched().reading() as transaction:
            transaction.sql.value("SELECT count(*) FROM card")
            self._holding.set()
            self._release.wait(30)

    def let_go(self) -> None:
        self._release.set()
        self._thread.join(10)
        assert not self._thread.is_alive()


def _outside(database: Database, flag: int) -> None:
    """A commit by another program (``recall flag`` in a terminal)."""
    connection = sqlite3.connect(database.path)
    try:
        connection.execute("UPDATE card SET flag = ? WHERE id = 1", (flag,))
        connection.commit()
    finally:
        connection.close()


def test_no_change_is_lost_however_the_looks_fall_between_holds_and_commits(
    qtbot: QtBot, bundled: Database
) -> None:
    watcher = DatabaseWatcher(bundled)
    watched = bundled.watched()
    emitted: list[int] = []
    watcher.changed.connect(lambda: emitted.append(1))
    rng = random.Random(11)
    holder: _Holder | None = None
    untold = reopened = False  # a change not yet told; a reopening (may be told once)
    try:
        for step in range(120):
            action = rng.choice(("hold", "let go", "outside", "own", "close", "look", "look"))
            if action == "hold" and holder is None:
                holder = _Holder(bundled)
            elif action == "let go" and holder is not None:
                holder.let_go()
                holder = None
            elif action == "outside":
                _outside(bundled, step % 7)
                untold = True
            elif action == "own" and holder is None:
                with watched.transaction() as transaction:
                    transaction.sql.run("UPDATE card SET flag = ? WHERE id = 2", (step % 7,))
                untold = True
            elif action == "close" and holder is None:
                watched.close()
                reopened = True
            elif action == "look":
                told = watcher.check()
                if holder is not None:
                    assert not told  # skipped, not waited for
                elif untold:
                    assert told, f"step {step}: a change was not told"
                    untold = reopened = False
                else:
                    assert reopened or not told, f"step {step}: told of no change"
                    if told:
                        reopened = False
        if holder is not None:
            holder.let_go()
            holder = None
        assert watcher.check() or not untold
        assert not watcher.check()
        assert emitted
    finally:
        if holder is not None:
            holder.let_go()


def test_seen_never_waits_for_another_thread_nor_hides_a_change(
    qtbot: QtBot, bundled: Database
) -> None:
    watcher = DatabaseWatcher(bundled)
    holder = _Holder(bundled)
    try:
        _outside(bundled, 3)
        started = time.monotonic()
        watcher.seen()  # on the window's thread, while a task holds the connection
        waited = time.monotonic() - started
    finally:
        holder.let_go()
    assert waited < 5
    # The window read before the change or not: the next look tells it (a refresh more).
    assert watcher.check()
    assert not watcher.check()
