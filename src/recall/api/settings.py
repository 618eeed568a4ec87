"""A local API server set up from the preferences (its key, port and allowed origins)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from recall.api.actions import Api, Browse
from recall.api.protocol import allowed_origins
from recall.api.server import ApiServer
from recall.core.preferences import Preferences
from recall.storage import Database


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
