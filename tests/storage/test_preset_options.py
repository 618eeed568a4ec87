"""Presets stored before an option existed read it with its default."""

from __future__ import annotations

import json
import sqlite3

from recall.core import fields
from recall.core.presets import Preset
from recall.storage import Database


def test_a_preset_stored_before_load_balancing_and_easy_days_reads_their_defaults(
    database: Database,
) -> None:
    with database.transaction() as transaction:
        preset_id = transaction.options.save_preset(None, Preset(name="Old", new_per_day=7))
    stored = fields.to_stored(Preset(name="Old", new_per_day=7))
    older = {
        key: value
        for key, value in stored.items()
        if key != "load_balancing" and not key.startswith("easy_")
    }
    connection = sqlite3.connect(database.path)
    with connection:
        connection.execute(
            "UPDATE preset SET config = ? WHERE id = ?", (json.dumps(older), preset_id)
        )
    connection.close()
    with database.reading() as transaction:
        read = transaction.options.deck_presets().presets[preset_id]
    assert read.new_per_day == 7
    assert read.load_balancing is True
    assert read.easy_days == ("normal",) * 7


def test_load_balancing_and_easy_days_are_stored_and_read_back(database: Database) -> None:
    preset = Preset(
        name="Weekend", load_balancing=False, easy_saturday="reduced", easy_sunday="minimum"
    )
    with database.transaction() as transaction:
        preset_id = transaction.options.save_preset(None, preset)
    with database.reading() as transaction:
        read = transaction.options.deck_presets().presets[preset_id]
    assert read == preset
    assert read.easy_days == ("normal",) * 5 + ("reduced", "minimum")
