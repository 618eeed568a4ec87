"""A library replayed by an older Recall, or on other study days, is replayed once on
opening, after a backup, and says how many schedules moved."""

from __future__ import annotations

import dataclasses
import random
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from recall.cli.main import main
from recall.collection import opening
from recall.content.deck_format import ChoiceCard
from recall.core.days import StudyDays
from recall.core.memory import Rating
from recall.options import deck_options
from recall.safekeeping import backups, integrity
from recall.scheduling import Schedulers, memory_of
from recall.storage import Database
from recall.study.session import StudySession
from tests.conftest import ZONE

DECK = "activation-recompute"
EVENING = datetime(2026, 3, 2, 19, 0, tzinfo=UTC)  # 20:00 in Berlin


def study_evenings(database: Database) -> None:
    """Answer every card each day, 20:00 the first evening, an hour earlier each next."""
    session = StudySession(database, Schedulers(), DECK, random.Random(1), ZONE)
    for day in range(6):
        now = EVENING + timedelta(days=day, hours=-day)
        while (shown := session.next_card(now)) is not None:
            assert isinstance(shown.card, ChoiceCard)
            right = next(i for i, c in enumerate(shown.card.choices) if c.correct)
            session.record(session.answer_choice(shown, {right}, now), Rating.GOOD, now)
            now += timedelta(minutes=11)


def outdated_library(tmp_path: Path) -> tuple[Path, int]:
    """A data folder as an older Recall left it, and how many schedules a replay moves."""
    data = tmp_path / "data"
    first = opening.open_library(data, EVENING - timedelta(days=1))
    chosen = deck_options.preferences(first)
    deck_options.save_preferences(
        first, dataclasses.replace(chosen, time_zone="Europe/Berlin"), EVENING
    )
    study_evenings(first)
    assert integrity.check(first, Schedulers(), EVENING + timedelta(days=7)).healthy
    # What an older Recall left: schedules replayed on other days, and its replay named.
    other = StudyDays(20, "Europe/Berlin")
    with first.transaction() as transaction:
        presets = dataclasses.replace(transaction.options.deck_presets(), days=other)
        rows = list(transaction.history.schedules_and_histories())
        for card_id, seed, deck_id, _stored, history in rows:
            scheduler = Schedulers().for_deck(presets, deck_id)
            memory = memory_of(scheduler.replay_raw(seed, history))
            transaction.cards.set_memory(card_id, memory)
        transaction.options.set_replayed_with("replay 1 (py-fsrs 6 formulas, last interval fuzzed)")
    first.close()
    database = Database(data / "recall.sqlite3")
    stale = integrity.check(database, Schedulers(), EVENING)
    database.close()
    assert stale.stale
    return data, len(stale.stale)


def test_schedules_on_other_study_days_are_replayed_once_after_a_backup(tmp_path: Path) -> None:
    data, moved = outdated_library(tmp_path)
    notes: list[str] = []
    later = EVENING + timedelta(days=8)
    second = opening.open_library(data, later, notes=notes)
    assert moved > 0
    assert notes == [deck_options.moved_note(moved)]
    assert [b.made_at for b in backups.list_backups(backups.backup_folder(second))][:1] == [later]
    assert integrity.check(second, Schedulers(), later).healthy
    second.close()
    again: list[str] = []
    opening.open_library(data, later + timedelta(minutes=1), notes=again).close()
    assert again == []


def test_a_new_rollover_hour_replays_every_schedule(tmp_path: Path) -> None:
    database = opening.open_library(tmp_path / "data", EVENING - timedelta(days=1))
    study_evenings(database)
    chosen = deck_options.preferences(database)
    assert chosen.time_zone  # named on first opening, never left to the machine's
    later = EVENING + timedelta(days=8)
    moved = deck_options.save_preferences(
        database, dataclasses.replace(chosen, day_rollover_hour=21), later
    )
    assert moved is not None
    assert moved > 0
    assert integrity.check(database, Schedulers(), later).healthy
    assert (
        deck_options.save_preferences(database, deck_options.preferences(database), later) is None
    )
    database.close()


def test_the_command_line_says_how_many_schedules_moved(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data, moved = outdated_library(tmp_path)
    assert main(["--data-dir", str(data), "check"]) == 0
    captured = capsys.readouterr()
    assert deck_options.moved_note(moved) in captured.err
    assert main(["--data-dir", str(data), "check"]) == 0
    assert "moved" not in capsys.readouterr().err
