"""The local API in the window: started and stopped as Preferences say, its guiBrowse shown.

The server answers on a thread of its own; ``guiBrowse`` reaches the browser through a
queued signal, so the window's thread opens it and never waits for the server. The API
package (and what adding cards needs) loads only when the API is turned on.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Signal

from recall.core.errors import RecallError
from recall.core.i18n import tr
from recall.core.preferences import Preferences
from recall.storage import Database
from recall.ui.prompts import Prompts

if TYPE_CHECKING:
    from recall.api.server import ApiServer


class LocalApi(QObject):
    """Runs the local API while its preference is on.

    Args:
        database: The collection it serves.
        clock: The current time, aware UTC.
        browse: Opens the browser on a query (on the window's thread).
        prompts: Says why the server could not start (a taken port).
        parent: The main window.
    """

    browse_requested = Signal(str)

    def __init__(
        self,
        database: Database,
        clock: Callable[[], datetime],
        browse: Callable[[str], object],
        prompts: Prompts,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self._database = database
        self._clock = clock
        self._browse = browse
        self._prompts = prompts
        self.server: ApiServer | None = None
        self._serving: tuple[int, str, str] | None = None
        self._connect_signals()

    def _connect_signals(self) -> None:
        # Emitted on the server's thread, delivered on this object's: the window's.
        self.browse_requested.connect(self._on_browse_requested)

    def apply(self, preferences: Preferences) -> None:
        """Start, stop or restart the server as the preferences now say."""
        wanted = (preferences.api_port, preferences.api_key, preferences.api_origins)
        if not preferences.api_enabled or not preferences.api_key:
            self.stop()
            return
        if self.server is not None and self._serving == wanted:
            return
        self.stop()
        from recall.api import settings  # loads only when the API is turned on

        server = settings.server_for(
            self._database, preferences, self._clock, self.browse_requested.emit
        )
        try:
            server.start()
        except RecallError as error:
            self._prompts.refused(tr("Local API not started"), error)
            return
        self.server, self._serving = server, wanted

    def stop(self) -> None:
        """Stop the server, if it runs; the request being answered finishes first."""
        if self.server is not None:
            self.server.stop()
        self.server = self._serving = None

    def _on_browse_requested(self, query: str) -> None:
        self._browse(query)
