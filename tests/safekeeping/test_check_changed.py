"""After a check that verified every card, the next replays only cards changed since, and
still catches every change made through SQLite, by Recall or by anything else."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from recall.cli.main import main
from recall.core.presets import Preset
from recall.safekeeping import integrity
from recall.scheduling import Schedulers
from recall.storage import Database
from tests.conftest import Clock, answer_cards


def _verified(database: Database, clock: Clock) -> None:
    answer_cards(database, clock, 10)
    first = integrity.check(database, Schedulers(), clock())
    assert first.healthy, first.problems
    assert first.replayed == first.cards == 8
    again = integrity.check(database, Schedulers(), clock())
    assert again.healthy
    assert again.replayed == 0


def _outside(database: Database, sql: str) -> None:
    """A change made by another program through SQLite, not through Recall."""
    connection = sqlite3.connect(database.path)
    connection.execute(sql)
    connection.commit()
    connection.close()


def test_a_schedule_changed_outside_recall_is_caught(bundled: Database, clock: Clock) -> None:
    _verified(bundled, clock)
    _outside(bundled, "UPDATE card_memory SET stability = stability * 2 WHERE card_id = 2")
    report = integrity.check(bundled, Schedulers(), clock())
    assert report.replayed == 1
    assert list(report.stale) == [2]


def test_a_review_removed_outside_recall_is_caught(bundled: Database, clock: Clock) -> None:
    _verified(bundled, clock)
    _outside(bundled, "DELETE FROM review WHERE id = (SELECT max(id) FROM review)")
    report = integrity.check(bundled, Schedulers(), clock())
    assert report.replayed == 1
    assert not report.healthy
    assert len(report.stale) == 1


def test_answers_are_replayed_once_and_then_trusted(bundled: Database, clock: Clock) -> None:
    _verified(bundled, clock)
    answer_cards(bundled, clock, 3)
    report = integrity.check(bundled, Schedulers(), clock())
    assert report.healthy
    assert 1 <= report.replayed <= 3
    assert integrity.check(bundled, Schedulers(), clock()).replayed == 0


def test_a_preset_change_replays_every_card(bundled: Database, clock: Clock) -> None:
    _verified(bundled, clock)
    with bundled.transaction() as transaction:
        preset_id = transaction.options.save_preset(None, Preset(name="Gentle"))
        deck = transaction.decks.by_key("activation-recompute")
        assert deck is not None
        transaction.options.set_deck_preset([deck.id], preset_id)
    report = integrity.check(bundled, Schedulers(), clock())
    # The same retention and steps as the default: still healthy, but verified again.
    assert report.healthy, report.problems
    assert report.replayed == report.cards


def test_full_replays_every_card(bundled: Database, clock: Clock) -> None:
    _verified(bundled, clock)
    assert integrity.check(bundled, Schedulers(), clock(), full=True).replayed == 8


def test_an_unhealthy_check_forgets_no_note(bundled: Database, clock: Clock) -> None:
    _verified(bundled, clock)
    _outside(bundled, "UPDATE card_memory SET due = due + 1 WHERE card_id = 1")
    assert not integrity.check(bundled, Schedulers(), clock()).healthy
    assert list(integrity.check(bundled, Schedulers(), clock()).stale) == [1]


def test_a_change_made_while_checking_keeps_its_note(bundled: Database, clock: Clock) -> None:
    _verified(bundled, clock)
    _outside(bundled, "UPDATE card_memory SET suspended = 1, due = due WHERE card_id = 3")
    with bundled.reading() as transaction:
        seen = transaction.verification.changed()
    assert list(seen) == [3]
    _outside(bundled, "UPDATE card_memory SET due = due + 5 WHERE card_id = 3")
    with bundled.transaction() as transaction:
        transaction.verification.record(seen, None, "test")
    with bundled.reading() as transaction:
        assert list(transaction.verification.changed()) == [3]
    assert list(integrity.check(bundled, Schedulers(), clock()).stale) == [3]


def test_suspending_a_card_is_no_change_to_replay(bundled: Database, clock: Clock) -> None:
    _verified(bundled, clock)
    _outside(bundled, "UPDATE card_memory SET suspended = 1 WHERE card_id = 4")
    assert integrity.check(bundled, Schedulers(), clock()).replayed == 0


def test_the_command_line_says_what_it_replayed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = tmp_path / "data"
    assert main(["--data-dir", str(data), "decks"]) == 0  # installs the bundled deck
    capsys.readouterr()
    assert main(["--data-dir", str(data), "check"]) == 0
    assert main(["--data-dir", str(data), "check"]) == 0
    assert main(["--data-dir", str(data), "check", "--full"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("healthy: ")
    assert out[2].startswith("(0 cards changed since the last check that verified every card were")
    assert out[3].startswith("healthy: ")
    assert len(out) == 4
