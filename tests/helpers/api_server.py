"""Real HTTP requests to a local API server, as a tool sends them."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Any, Protocol

from recall.storage import Database

KEY = "test-key-0123456789"
ALLOWED = "http://allowed.example"


class Served(Protocol):
    """Where a local API answers: an ``ApiServer``, or the address another process printed."""

    @property
    def url(self) -> str: ...


def post(
    server: Served, body: bytes | object, headers: dict[str, str] | None = None
) -> tuple[int, Any]:
    """POST a request (JSON-encoded unless bytes); the status and the decoded answer."""
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    request = urllib.request.Request(server.url, data=data, headers=headers or {}, method="POST")
    return _open(request)


def _open(request: urllib.request.Request) -> tuple[int, Any]:
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        with error:
            return error.code, json.loads(error.read())


def call(server: Served, action: str, key: str | None = KEY, **params: Any) -> Any:
    """One action at version 6, with the test key; the ``{"result", "error"}`` answer."""
    request: dict[str, Any] = {"action": action, "version": 6, "params": params}
    if key is not None:
        request["key"] = key
    status, answer = post(server, request)
    assert status == 200, answer
    return answer


def card_count(database: Database) -> int:
    with database.reading() as transaction:
        deck_ids = [deck.id for deck in transaction.browsing.decks()]
        return len(transaction.browsing.card_ids_of_decks(deck_ids)) if deck_ids else 0
