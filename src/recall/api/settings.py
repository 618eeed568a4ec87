"""The local API's preferences: its key made on first use, and a server set up from them."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from datetime import datetime

from recall.api.actions import Api, Browse
from recall.api.protocol import allowed_origins, check_origins, new_key
from recall.api.server import ApiServer
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


def server_for(
    database: Database,
    preferences: Preferences,
    clock: Callable[[], datetime],
    browse: Browse | None = None,
    port: int | None = None,
) -> ApiServer:
    """A server (not yet started) as the preferences describe it.

    Args:
        database: The collection it serves.
        preferences: Its key, port and allowed origins.
        clock: The current time, aware UTC.
        browse: Opens the window's browser on a query; None without a window.
        port: Another port than the preference's (0 for any free one).
    """
    api = Api(database, clock, preferences.api_key, browse)
    chosen = preferences.api_port if port is None else port
    return ApiServer(api, chosen, allowed_origins(preferences.api_origins))
