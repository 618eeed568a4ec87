"""Shared fixtures: a fixed clock, a database under tmp_path, schedulers with fuzz off."""

from __future__ import annotations

import os

# Before any QApplication exists: tests never need a display.
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import sqlite3
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from recall.collection import opening
from recall.scheduling import Scheduler, Schedulers
from recall.storage import Database
from recall.study.session import StudySession
from tests.helpers.sync_devices import ChangeClock, Device

DATA = Path(__file__).parent / "data"
ZONE = ZoneInfo("Europe/Berlin")


class Clock:
    """A clock the test moves by hand."""

    def __init__(self, start: datetime) -> None:
        self.now = start

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **delta: float) -> datetime:
        self.now += timedelta(**delta)
        return self.now


@pytest.fixture
def clock() -> Clock:
    """10:00 in Berlin on a winter day (09:00 UTC)."""
    return Clock(datetime(2026, 1, 15, 9, 0, tzinfo=UTC))


@pytest.fixture
def schedulers() -> Schedulers:
    return Schedulers(fuzz=False)


@pytest.fixture(autouse=True)
def _isolated_data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Nothing a test runs may touch the real user data directory."""
    monkeypatch.setenv("RECALL_DATA_DIR", str(tmp_path / "default-data"))
    # Nor the learner's autostart folder (Preferences > Start when you log in).
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))


@pytest.fixture
def database(tmp_path: Path) -> Iterator[Database]:
    db = Database(tmp_path / "data" / "recall.sqlite3")
    yield db
    db.close()


@pytest.fixture
def bundled(database: Database, clock: Clock) -> Database:
    """A database with the bundled deck installed."""
    opening.install_bundled_decks(database, clock())
    return database


def sqlite_limit(database: Database, pragma: str) -> Callable[[], None]:
    """Make every connection of ``database`` hit a real SQLite limit; returns the undo.

    Used to put a database in the states a disk can: read-only, full.
    """
    connections = database._connections

    def apply(connection: sqlite3.Connection) -> None:
        connection.execute(pragma)

    connections.hooks.append(apply)
    connections.close()
    database.watched().close()  # the study session's own connection reopens with it too

    def lift() -> None:
        connections.hooks.remove(apply)
        connections.close()
        database.watched().close()

    return lift


def review_count(path: Path) -> int:
    """How many reviews the database file holds, read without Recall's code."""
    connection = sqlite3.connect(path)
    try:
        return int(connection.execute("SELECT count(*) FROM review").fetchone()[0])
    finally:
        connection.close()


def answer_cards(database: Database, clock: Clock, count: int, fuzz: bool = True) -> StudySession:
    """Answer ``count`` cards of the bundled deck, each with its first shown choice, 5 s apart."""
    session = StudySession(database, Schedulers(fuzz=fuzz), "activation-recompute")
    for _ in range(count):
        shown = session.next_card(clock())
        assert shown is not None
        answer = session.answer_choice(shown, {shown.order[0]}, clock.advance(seconds=5))
        session.record(answer, answer.proposed, clock())
    return session


@pytest.fixture
def scheduler() -> Scheduler:
    """The default preset's scheduler, fuzz off: FSRS's exact intervals."""
    return Scheduler(fuzz=False)


@pytest.fixture
def shared(tmp_path: Path) -> Path:
    """A sync folder the devices of a sync test share."""
    path = tmp_path / "shared"
    path.mkdir()
    return path


@pytest.fixture
def pair(tmp_path: Path, shared: Path) -> Iterator[tuple[Device, Device]]:
    """Two devices, "laptop" and "desktop", syncing through ``shared``, on one clock."""
    clock = ChangeClock()
    first = Device(tmp_path, "laptop", shared, clock=clock)
    second = Device(tmp_path, "desktop", shared, clock=clock)
    yield first, second
    first.close()
    second.close()


@pytest.fixture
def trio(tmp_path: Path, shared: Path) -> Iterator[tuple[Device, Device, Device]]:
    """Three devices, "laptop", "desktop" and "tablet", syncing through ``shared``, on one
    clock."""
    clock = ChangeClock()
    names = ("laptop", "desktop", "tablet")
    devices = tuple(Device(tmp_path, name, shared, clock=clock) for name in names)
    yield devices  # type: ignore[misc]
    for device in devices:
        device.close()
