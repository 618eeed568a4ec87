"""The local API's preferences: checked when chosen, and its key made on first use.

Kept apart from the server, so Preferences can check them without loading what adding
cards needs.
"""

from __future__ import annotations

import dataclasses
from datetime import datetime

from recall.api.protocol import check_origins, new_key
from recall.core.errors import RecallError
from recall.core.preferences import Preferences
from recall.options import deck_options
from recall.storage import Database


def with_api(
    preferences: Preferences, enabled: bool, port: int, key: str, origins: str
) -> Preferences:
    """The preferences with the local API's settings changed, each checked; an API turned
    on without a key gets a new one.

    Raises:
        RecallError: The port is out of range or an origin is not one.
    """
    if not 1024 <= port <= 65535:
        raise RecallError(f"the local API's port must be from 1024 to 65535, not {port}")
    return dataclasses.replace(
        preferences,
        api_enabled=enabled,
        api_port=port,
        api_key=key or (new_key() if enabled else ""),
        api_origins=check_origins(origins),
    )


def ensure_key(database: Database, now: datetime) -> Preferences:
    """The stored preferences, with an API key made and stored if there was none."""
    preferences = deck_options.preferences(database)
    if preferences.api_key:
        return preferences
    preferences = dataclasses.replace(preferences, api_key=new_key())
    deck_options.save_preferences(database, preferences, now)
    return preferences
