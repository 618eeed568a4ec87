"""The time-off commands: postpone, advance and away move due dates, and --dry-run does not."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from recall.changes.cards import Changes
from recall.collection.browse import Finder
from recall.core.memory import ReviewKind
from recall.core.preferences import Preferences
from recall.scheduling import Scheduler, Schedulers
from recall.storage import Database
from tests.cli.test_cli import run
from tests.cli.test_cli_cards import TINY


@pytest.fixture
def data_dir(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    folder = tmp_path / "data"
    assert run(capsys, "--data-dir", str(folder), "import", str(TINY))[0] == 0
    return folder


def _set_due(folder: Path, spec: str) -> None:
    database = Database(folder / "recall.sqlite3")
    try:
        moment = datetime.now(UTC)
        ids = Finder(database, Scheduler(), Preferences()).find("deck:tiny", moment).card_ids
        Changes(database, Schedulers(), Preferences()).set_due(ids, spec, moment)
    finally:
        database.close()


def _due_days(folder: Path, capsys: pytest.CaptureFixture[str], days: int) -> int:
    out = run(capsys, "--data-dir", str(folder), "search", f"prop:due={days}", "--json")[1]
    return len(json.loads(out))


def test_postpone_then_advance_move_due_cards_and_dry_run_changes_nothing(
    data_dir: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    folder = str(data_dir)
    _set_due(data_dir, "0")
    status, out, _ = run(capsys, "--data-dir", folder, "postpone", "--days", "3", "--dry-run")
    assert status == 0
    assert out.splitlines()[0].split() == ["ID", "DUE", "BEFORE", "DUE", "NOW", "RECALL"]
    assert "Postpone 2 cards" in out
    assert "Nothing changed" in out
    assert _due_days(data_dir, capsys, 0) == 2
    status, out, _ = run(capsys, "--data-dir", folder, "postpone", "--days", "3", "--count", "1")
    assert status == 0
    assert "Postpone 1 card:" in out
    assert (_due_days(data_dir, capsys, 0), _due_days(data_dir, capsys, 3)) == (1, 1)
    status, out, _ = run(capsys, "--data-dir", folder, "advance", "--within", "5")
    assert status == 0
    assert "Advance 1 card:" in out
    assert _due_days(data_dir, capsys, 0) == 2
    database = Database(data_dir / "recall.sqlite3")
    try:
        ids = Finder(database, Scheduler(), Preferences()).find("deck:tiny", datetime.now(UTC))
        with database.reading() as transaction:
            kinds = [
                entry.kind
                for card_id in ids.card_ids
                for entry in transaction.history.of_card(card_id)
            ]
    finally:
        database.close()
    assert kinds.count(ReviewKind.SET_DUE) == 4  # two set by hand, one postponed, one advanced
    assert run(capsys, "--data-dir", folder, "check")[0] == 0


def test_away_spreads_the_reviews_due_while_away(
    data_dir: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    _set_due(data_dir, "2")
    # Today's study day, as the dates of `recall away` are read: before the rollover hour
    # it is still yesterday's.
    database = Database(data_dir / "recall.sqlite3")
    try:
        with database.reading() as reading:
            days = reading.options.deck_presets().days
    finally:
        database.close()
    today = (datetime.now(ZoneInfo(days.zone)) - timedelta(hours=days.hour)).date()
    leave, back = today + timedelta(days=1), today + timedelta(days=3)
    status, out, _ = run(capsys, "--data-dir", str(data_dir), "away", str(leave), str(back))
    assert status == 0
    assert "Spread the time away of 2 cards" in out
    assert _due_days(data_dir, capsys, 2) == 0
    assert _due_days(data_dir, capsys, 4) + _due_days(data_dir, capsys, 5) == 2
    status, _, err = run(capsys, "--data-dir", str(data_dir), "away", str(back), str(leave))
    assert status != 0
    assert "the return is before leaving" in err
