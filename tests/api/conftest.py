"""A real local API server on a free port, over a collection with two empty decks."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from recall.api.actions import Api
from recall.api.server import ApiServer
from recall.changes import decks
from recall.storage import Database
from tests.conftest import Clock
from tests.helpers.api_server import ALLOWED, KEY


@pytest.fixture
def server(database: Database, clock: Clock) -> Iterator[ApiServer]:
    """A server with the key ``KEY``, allowing the origin ``ALLOWED``, over a collection
    with the empty decks Biology and Chemistry."""
    decks.new_deck(database, "Biology", clock())
    decks.new_deck(database, "Chemistry", clock())
    served = ApiServer(Api(database, clock, KEY), 0, frozenset({ALLOWED}))
    served.start()
    assert served.ready.wait(30)
    yield served
    served.stop()
