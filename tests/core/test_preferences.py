"""Preferences and presets are stored with the data: restart, backup and restore, upgrade."""

from __future__ import annotations

import json
import re
import shutil
import sqlite3
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from recall.cli.main import main
from recall.core import fields
from recall.core.fields import OptionError
from recall.core.preferences import Preferences
from recall.core.presets import (
    DEFAULT_PRESET_ID,
    PARAMETER_COUNT,
    LeechPolicy,
    Preset,
    leech_policy,
)
from recall.options import deck_options
from recall.safekeeping import backups
from recall.scheduling import DEFAULT_PARAMETERS, Schedulers
from recall.storage import Database
from tests.conftest import DATA, Clock

DECK = "activation-recompute"


def test_defaults_are_the_documented_ones(database: Database) -> None:
    chosen = deck_options.preferences(database)
    assert chosen == Preferences()
    assert (chosen.theme, chosen.day_rollover_hour, chosen.learn_ahead) == (
        "system",
        4,
        timedelta(minutes=20),
    )
    assert (chosen.answer_time_grading, chosen.slow_answer_factor, chosen.fast_answer_factor) == (
        True,
        2.0,
        0.5,
    )
    assert chosen.show_next_intervals
    assert chosen.backup_interval == timedelta(minutes=30)


def test_every_option_has_a_label_and_one_line_of_help() -> None:
    for cls in (Preferences, Preset):
        for item in fields.describe(cls):
            assert item.label, item.key
            assert item.help.endswith("."), item.key
            assert "\n" not in item.help, item.key


def test_preferences_and_presets_survive_a_restart(tmp_path: Path, clock: Clock) -> None:
    path = tmp_path / "recall.sqlite3"
    first = Database(path)
    deck_options.save_preferences(first, Preferences(theme="dark", text_size=120), clock())
    preset_id = deck_options.add_preset(first, "Exam", Preset(desired_retention=0.95))
    first.close()
    second = Database(path)
    assert deck_options.preferences(second) == Preferences(theme="dark", text_size=120)
    with second.reading() as tx:
        assert tx.options.deck_presets().presets[preset_id].desired_retention == 0.95
    second.close()


def test_backup_and_restore_carry_them(bundled: Database, clock: Clock) -> None:
    schedulers = Schedulers(fuzz=False)
    deck_options.save_preferences(bundled, Preferences(day_rollover_hour=6), clock())
    deck_options.change_preset(bundled, schedulers, DEFAULT_PRESET_ID, {"new_per_day": 7}, clock())
    saved = backups.make_backup(bundled, clock())
    deck_options.save_preferences(bundled, Preferences(theme="light"), clock())
    deck_options.change_preset(bundled, schedulers, DEFAULT_PRESET_ID, {"new_per_day": 1}, clock())
    report = backups.restore(bundled, saved, schedulers, clock.advance(minutes=1))
    assert report.check.healthy
    assert deck_options.preferences(bundled) == Preferences(day_rollover_hour=6)
    assert deck_options.deck_options(bundled, DECK).preset.new_per_day == 7


def test_unknown_stored_options_are_kept_and_bad_ones_fall_back(database: Database) -> None:
    connection = sqlite3.connect(database.path)
    connection.execute(
        "INSERT INTO preference (key, value) VALUES ('preferences', ?)",
        (json.dumps({"theme": "neon", "text_size": 130, "from_a_newer_recall": 1}),),
    )
    connection.commit()
    connection.close()
    loaded = deck_options.preferences(database)
    assert (loaded.theme, loaded.text_size) == ("system", 130)
    saved_at = datetime(2026, 1, 1, tzinfo=UTC)
    deck_options.save_preferences(database, Preferences(theme="dark"), saved_at)
    with sqlite3.connect(database.path) as connection:
        query = "SELECT value FROM preference WHERE key = 'preferences'"
        (stored,) = connection.execute(query).fetchone()
    assert json.loads(stored)["from_a_newer_recall"] == 1


def test_a_stored_preset_with_too_few_parameters_keeps_the_rest(database: Database) -> None:
    connection = sqlite3.connect(database.path)
    connection.execute(
        "INSERT INTO preset (id, name, config) VALUES (1, 'Default', ?)",
        (json.dumps({"new_per_day": 7, "parameters": [1.0, 2.0]}),),
    )
    connection.commit()
    connection.close()
    with database.reading() as tx:
        preset = tx.options.deck_presets().presets[DEFAULT_PRESET_ID]
    assert (preset.new_per_day, preset.parameters) == (7, ())


@pytest.mark.parametrize("version", [2, 3, 4, 5])
def test_an_older_database_upgrades_to_default_presets(tmp_path: Path, version: int) -> None:
    target = tmp_path / "data" / "recall.sqlite3"
    target.parent.mkdir()
    shutil.copyfile(DATA / f"schema-{version}.sqlite3", target)
    database = Database(target)
    assert deck_options.preferences(database) == Preferences()
    options = deck_options.deck_options(database, "tiny")
    assert (options.preset_id, options.preset) == (DEFAULT_PRESET_ID, Preset())
    database.close()


def _option_schema(path: Path) -> list[tuple[str, str]]:
    connection = sqlite3.connect(path)
    try:
        rows = connection.execute(
            "SELECT name, sql FROM sqlite_master WHERE tbl_name IN "
            "('preference', 'preset', 'deck_preset') AND type IN ('table', 'index') "
            "AND sql IS NOT NULL ORDER BY name"
        ).fetchall()
    finally:
        connection.close()
    # Compared as SQL, not as text: the declaration's writer puts spaces inside parentheses.
    return [(name, re.sub(r"\(\s+|\s+\)", _trim, " ".join(sql.split()))) for name, sql in rows]


def _trim(match: re.Match[str]) -> str:
    return match.group(0).strip()


def test_the_upgrade_makes_the_tables_a_new_database_has(tmp_path: Path) -> None:
    target = tmp_path / "old" / "recall.sqlite3"
    target.parent.mkdir()
    shutil.copyfile(DATA / "schema-5.sqlite3", target)
    Database(target).close()
    fresh = tmp_path / "new" / "recall.sqlite3"
    Database(fresh).close()
    assert _option_schema(target) == _option_schema(fresh)
    # Three tables and the index on deck_preset (the rest are sync's triggers on them).
    assert len([sql for _, sql in _option_schema(fresh) if "TRIGGER" not in sql]) == 4


def test_the_schema_6_fixture_keeps_its_preset_and_preferences(tmp_path: Path) -> None:
    target = tmp_path / "data" / "recall.sqlite3"
    target.parent.mkdir()
    shutil.copyfile(DATA / "schema-6.sqlite3", target)
    database = Database(target)
    assert deck_options.preferences(database) == Preferences(theme="dark", day_rollover_hour=3)
    preset = deck_options.deck_options(database, "tiny").preset
    assert (preset.name, preset.new_per_day, preset.desired_retention) == ("Small steps", 5, 0.85)
    assert deck_options.deck_options(database, DECK).preset == Preset()
    database.close()


def test_steps_read_and_write_as_anki_writes_them() -> None:
    steps = fields.parse_steps("30s 1m 10 1h 2d")
    assert steps == (
        timedelta(seconds=30),
        timedelta(minutes=1),
        timedelta(minutes=10),
        timedelta(hours=1),
        timedelta(days=2),
    )
    assert fields.format_steps(steps) == "30s 1m 10m 1h 2d"
    with pytest.raises(OptionError, match=r"'5x' is not a step"):
        fields.parse_steps("1m 5x", "learning_steps")


def test_retention_above_097_warns_and_parameters_need_21() -> None:
    assert Preset(desired_retention=0.98).warnings() == [
        "Desired retention 0.98: above 0.97 the workload grows steeply for little more memory "
        "(see the simulator)"
    ]
    assert Preset(desired_retention=0.97).warnings() == []
    assert len(DEFAULT_PARAMETERS) == PARAMETER_COUNT == 21
    with pytest.raises(OptionError, match="FSRS needs 21 numbers, got 3"):
        Preset(parameters=(1.0, 2.0, 3.0))


def test_leech_policy_comes_from_the_preset(bundled: Database, clock: Clock) -> None:
    policy = leech_policy(Preset(leech_threshold=8, leech_action="suspend"))
    assert policy == LeechPolicy(leech_threshold=8, leech_action="suspend")
    assert [lapses for lapses in range(1, 21) if policy.is_leech(lapses)] == [8, 12, 16, 20]
    deck = deck_options.deck_options(bundled, DECK).deck
    assert deck_options.leech_policy(bundled, deck.id) == LeechPolicy(8, "suspend")
    changes = {"leech_threshold": 4, "leech_action": "suspend"}
    deck_options.change_preset(bundled, Schedulers(), DEFAULT_PRESET_ID, changes, clock())
    assert deck_options.leech_policy(bundled, deck.id) == LeechPolicy(4, "suspend")


def test_cli_options_then_decks_shows_the_new_limit(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = ["--data-dir", str(tmp_path)]
    assert main([*data, "options", DECK, "--set", "new_per_day=3"]) == 0
    assert "new_per_day = 3" in capsys.readouterr().err
    assert main([*data, "decks", "--json"]) == 0
    (deck,) = json.loads(capsys.readouterr().out)
    assert deck["new"] == 3
    assert main([*data, "options", DECK, "--set", "desired_retention=1.2"]) == 1
    assert "Desired retention: 1.2 is outside 0.7-0.99" in capsys.readouterr().err
    assert main([*data, "options", DECK, "--json", "--preset", "Exam"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert (shown["preset"]["name"], shown["preset"]["new_per_day"]) == ("Exam", 3)
    assert main([*data, "check"]) == 0
