"""Preferences, deck presets, which deck uses which preset, the bundled decks' hashes: queries.

Their tables are declared with the others in ``tables.py`` (schema 3).

Both are stored as JSON objects of the values ``fields.to_stored`` gives, so an option
added later needs no schema change, and a newer Recall's options are kept, not lost.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from recall.core import fields
from recall.core.errors import RecallError
from recall.core.preferences import Preferences
from recall.core.presets import DEFAULT_PRESET_ID, DeckPresets, Preset
from recall.storage.records import DeckRow
from recall.storage.rows import DECK_COLUMNS, deck_row
from recall.storage.sql import Sql


class PresetNameError(RecallError):
    """A preset name that is empty or already taken."""


class OptionQueries:
    """Reads and writes of preferences and presets, within the caller's transaction."""

    def __init__(self, sql: Sql) -> None:
        self._sql = sql
        self._rows = sql.rows

    def preferences(self) -> Preferences:
        """The stored preferences (defaults for anything never set)."""
        found = self._rows("SELECT value FROM preference WHERE key = 'preferences'", ())
        stored = json.loads(found[0][0]) if found else {}
        return fields.from_stored(Preferences, stored if isinstance(stored, dict) else {})

    def set_preferences(self, preferences: Preferences) -> None:
        """Store the preferences, keeping stored keys this Recall does not know."""
        found = self._rows("SELECT value FROM preference WHERE key = 'preferences'", ())
        stored = json.loads(found[0][0]) if found else {}
        merged = {**(stored if isinstance(stored, dict) else {}), **fields.to_stored(preferences)}
        self._rows(
            "INSERT INTO preference (key, value) VALUES ('preferences', ?) "
            "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            (json.dumps(merged),),
        )

    def bundled_deck_hashes(self) -> dict[str, str]:
        """The SHA-256 of each bundled deck file as last installed, by file name."""
        found = self._rows("SELECT value FROM preference WHERE key = 'bundled_decks'", ())
        try:
            stored = json.loads(found[0][0]) if found else {}
        except ValueError:  # unreadable: the decks are installed again, which changes nothing
            stored = {}
        if not isinstance(stored, dict):
            return {}
        return {str(name): digest for name, digest in stored.items() if isinstance(digest, str)}

    def set_bundled_deck_hash(self, name: str, digest: str) -> None:
        """Record that the bundled deck file ``name`` with this SHA-256 is installed."""
        hashes = {**self.bundled_deck_hashes(), name: digest}
        self._rows(
            "INSERT INTO preference (key, value) VALUES ('bundled_decks', ?) "
            "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            (json.dumps(hashes, sort_keys=True),),
        )

    def replayed_with(self) -> str | None:
        """What every schedule was last replayed with (``scheduling.replay_key``), if known."""
        found = self._rows("SELECT value FROM preference WHERE key = 'replayed_with'", ())
        return str(json.loads(found[0][0])) if found else None

    def set_replayed_with(self, key: str) -> None:
        """Record that every schedule is the replay of its history with ``key``."""
        self._rows(
            "INSERT INTO preference (key, value) VALUES ('replayed_with', ?) "
            "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            (json.dumps(key),),
        )

    def deck_presets(self) -> DeckPresets:
        """Every preset by id (the default one always among them) and each deck's choice."""
        presets = {DEFAULT_PRESET_ID: Preset()}
        for preset_id, name, config in self._rows("SELECT id, name, config FROM preset", ()):
            stored = json.loads(config)
            presets[int(preset_id)] = fields.from_stored(
                Preset, stored if isinstance(stored, dict) else {}, name=name
            )
        decks = {
            int(deck_id): int(preset_id)
            for deck_id, preset_id in self._rows("SELECT deck_id, preset_id FROM deck_preset", ())
        }
        return DeckPresets(presets=presets, decks=decks, days=self.preferences().study_days)

    def save_preset(self, preset_id: int | None, preset: Preset) -> int:
        """Store a preset (a new one when ``preset_id`` is None); returns its id.

        Raises:
            PresetNameError: The name is empty or another preset has it.
        """
        name = preset.name.strip()
        if not name:
            raise PresetNameError("a preset needs a name")
        clash = self._rows(
            "SELECT id FROM preset WHERE name = ? AND id IS NOT ?", (name, preset_id)
        )
        if clash or (preset_id != DEFAULT_PRESET_ID and name == self._default_name()):
            raise PresetNameError(f"there is already a preset named {name!r}")
        stored = fields.to_stored(preset)
        del stored["name"]
        if preset_id is None:
            self._ensure_default()
            return self._sql.run(
                "INSERT INTO preset (name, config) VALUES (?, ?)", (name, json.dumps(stored))
            )
        self._rows(
            "INSERT INTO preset (id, name, config) VALUES (?, ?, ?) ON CONFLICT (id) DO UPDATE "
            "SET name = excluded.name, config = excluded.config",
            (preset_id, name, json.dumps(stored)),
        )
        return preset_id

    def delete_preset(self, preset_id: int) -> list[int]:
        """Remove a preset; its decks go back to the default preset. Returns those decks.

        Raises:
            PresetNameError: ``preset_id`` is the default preset, which cannot go.
        """
        if preset_id == DEFAULT_PRESET_ID:
            raise PresetNameError("the default preset cannot be deleted")
        decks = [
            int(deck_id)
            for (deck_id,) in self._rows(
                "SELECT deck_id FROM deck_preset WHERE preset_id = ?", (preset_id,)
            )
        ]
        self._rows("DELETE FROM deck_preset WHERE preset_id = ?", (preset_id,))
        self._rows("DELETE FROM preset WHERE id = ?", (preset_id,))
        return decks

    def set_deck_preset(self, deck_ids: Sequence[int], preset_id: int) -> None:
        """Give decks a preset (the default one removes their choice)."""
        for deck_id in deck_ids:
            self._rows("DELETE FROM deck_preset WHERE deck_id = ?", (deck_id,))
            if preset_id != DEFAULT_PRESET_ID:
                self._rows(
                    "INSERT INTO deck_preset (deck_id, preset_id) VALUES (?, ?)",
                    (deck_id, preset_id),
                )

    def decks(self) -> list[DeckRow]:
        """Every deck, by name (the options window lists them to share a preset)."""
        rows = self._rows(f"SELECT {DECK_COLUMNS} FROM deck ORDER BY name, id", ())
        return [deck_row(row) for row in rows]

    def card_count(self, deck_ids: Sequence[int]) -> int:
        """How many cards the decks hold together."""
        if not deck_ids:
            return 0
        marks = ", ".join("?" for _ in deck_ids)
        return int(
            self._sql.value(f"SELECT count(*) FROM card WHERE deck_id IN ({marks})", deck_ids)
        )

    def rating_habits(self, deck_ids: Sequence[int]) -> list[tuple[int, int, int, float]]:
        """Per (state before, rating): how many reviews, and their mean seconds.

        Each duration counts at most 60 s, so a review left on screen over lunch does not
        make every review look slow.
        """
        if not deck_ids:
            return []
        marks = ", ".join("?" for _ in deck_ids)
        rows = self._rows(
            "SELECT review.state_before, review.rating, count(*), "
            "avg(min(review.duration_ms, 60000)) / 1000.0 FROM card CROSS JOIN review "
            f"ON review.card_id = card.id WHERE card.deck_id IN ({marks}) "
            "GROUP BY review.state_before, review.rating",
            deck_ids,
        )
        return [
            (int(state), int(rating), int(count), float(seconds))
            for state, rating, count, seconds in rows
        ]

    def _default_name(self) -> str:
        found = self._rows("SELECT name FROM preset WHERE id = ?", (DEFAULT_PRESET_ID,))
        return str(found[0][0]) if found else Preset().name

    def _ensure_default(self) -> None:
        """Give the default preset its row, so a new preset never takes id 1."""
        if not self._rows("SELECT 1 FROM preset WHERE id = ?", (DEFAULT_PRESET_ID,)):
            stored = fields.to_stored(Preset())
            del stored["name"]
            self._rows(
                "INSERT INTO preset (id, name, config) VALUES (?, ?, ?)",
                (DEFAULT_PRESET_ID, Preset().name, json.dumps(stored)),
            )
