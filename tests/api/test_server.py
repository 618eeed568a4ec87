"""What the local API refuses, each with a clear error and nothing written."""

from __future__ import annotations

import socket
import urllib.request
from typing import Any

import pytest

from recall.api.actions import KEY_REFUSED, Api
from recall.api.protocol import MAX_BODY_BYTES, ApiError, host_allowed
from recall.api.server import ApiServer
from recall.storage import Database
from tests.conftest import Clock
from tests.helpers.api_server import ALLOWED, KEY, _open, call, card_count, post

NOTE = {
    "deckName": "Biology",
    "modelName": "Basic",
    "fields": {"Front": "What is a cell?", "Back": "The unit of life."},
}


def _add(key: str | None) -> dict[str, Any]:
    request: dict[str, Any] = {"action": "addNote", "version": 6, "params": {"note": NOTE}}
    if key is not None:
        request["key"] = key
    return request


@pytest.mark.parametrize("key", [None, "wrong", "", KEY + "x"])
def test_a_missing_or_wrong_key_is_refused(
    server: ApiServer, database: Database, key: str | None
) -> None:
    assert post(server, _add(key)) == (200, {"result": None, "error": KEY_REFUSED})
    assert card_count(database) == 0
    assert post(server, _add(KEY))[1]["error"] is None  # the same request with the key
    assert card_count(database) == 1


def test_an_oversize_body_is_refused_unread(server: ApiServer, database: Database) -> None:
    body = b'{"action": "addNote", "pad": "' + b"x" * MAX_BODY_BYTES + b'"}'
    status, answer = post(server, body)
    assert status == 413
    assert answer["error"] == f"the request is {len(body):,} bytes; at most {MAX_BODY_BYTES:,}"
    assert card_count(database) == 0


@pytest.mark.parametrize(
    ("body", "error"),
    [
        (b'{"action": "addNote",', "the request is not JSON: Expecting property name"),
        (b"\xff\xfe", "the request is not JSON: not UTF-8"),
        (b"[1, 2]", "the request must be a JSON object, not a list"),
        (b'{"action": 5}', "request.action must be a string, not a number"),
        (b'{"action": "version", "version": "6"}', "request.version must be a whole number"),
        (b'{"action": "deckNames", "params": []}', "request.params must be an object, not a list"),
        (b'{"action": "x", "version": NaN}', "the request is not JSON: NaN is not a JSON number"),
        (b"[" * 100_000 + b"]" * 100_000, "the request is not JSON: nested too deeply"),
    ],
)
def test_a_body_that_is_not_a_request_is_refused(
    server: ApiServer, body: bytes, error: str
) -> None:
    status, answer = post(server, body)
    assert status == 400
    assert answer["result"] is None
    assert answer["error"].startswith(error), answer


@pytest.mark.parametrize("host", ["evil.example", "evil.example:8765", "127.0.0.2", "[::1]"])
def test_a_foreign_host_header_is_refused(server: ApiServer, database: Database, host: str) -> None:
    status, answer = post(server, _add(KEY), {"Host": host})
    assert (status, answer["error"]) == (403, "the Host header must be 127.0.0.1 or localhost")
    assert card_count(database) == 0
    assert post(server, _add(KEY), {"Host": f"localhost:{server.port}"})[0] == 200


def test_host_names_for_this_computer() -> None:
    assert host_allowed("127.0.0.1:8765")
    assert host_allowed("LOCALHOST")
    assert host_allowed("localhost")
    assert not host_allowed(None)
    assert not host_allowed("localhost.evil.example:80")
    assert not host_allowed("127.0.0.1:x")
    assert not host_allowed("")


def test_only_an_allowed_origin_may_call_and_preflight(
    server: ApiServer, database: Database
) -> None:
    status, answer = post(server, _add(KEY), {"Origin": "https://evil.example"})
    assert status == 403
    assert answer["error"].startswith("the origin 'https://evil.example'")
    assert card_count(database) == 0
    request = urllib.request.Request(
        server.url, method="OPTIONS", headers={"Origin": "https://evil.example"}
    )
    assert _open(request)[0] == 403
    preflight = urllib.request.Request(server.url, method="OPTIONS", headers={"Origin": ALLOWED})
    with urllib.request.urlopen(preflight, timeout=30) as response:
        assert response.status == 204
        assert response.headers["Access-Control-Allow-Origin"] == ALLOWED
    call_request = urllib.request.Request(
        server.url, data=b'{"action": "version", "version": 6}', headers={"Origin": ALLOWED}
    )
    with urllib.request.urlopen(call_request, timeout=30) as response:
        assert response.headers["Access-Control-Allow-Origin"] == ALLOWED


def test_an_unknown_action_is_refused_with_the_known_ones(server: ApiServer) -> None:
    answer = call(server, "deleteDecks", decks=["Biology"])
    assert answer["result"] is None
    assert answer["error"].startswith("unsupported action: 'deleteDecks'; Recall answers ")
    assert "addChoiceCard" in answer["error"]


@pytest.mark.parametrize(
    ("action", "params", "error"),
    [
        ("addNote", {"note": "a note"}, "params.note must be an object, not a string"),
        ("addNote", {"note": {**NOTE, "fields": ["a"]}}, "params.note.fields must be an object"),
        ("addNote", {"note": {**NOTE, "tags": "cells"}}, "params.note.tags must be a list"),
        ("addNote", {"note": {**NOTE, "deckName": 3}}, "params.note.deckName must be a string"),
        ("addNote", {"note": {**NOTE, "fields": {"Front": 1}}}, "params.note.fields.Front must"),
        ("addNote", {"note": {**NOTE, "fields": {"Face": "x"}}}, "params.note.fields has no "),
        ("addNote", {"note": {**NOTE, "modelName": "Japanese"}}, "model was not found: Japanese"),
        ("addNote", {"note": {**NOTE, "fields": {"Back": "x"}}}, "cannot create note because"),
        (
            "addNote",
            {"note": {**NOTE, "options": {"allowDuplicate": 1}}},
            "params.note.options.allowDuplicate must be true or false",
        ),
        ("addNote", {"note": {**NOTE, "fields": {"Front": "q" * 70_000}}}, "params.note.fields."),
        ("addNote", {"note": {**NOTE, "deckName": "B" * 600}}, "params.note.deckName is 600"),
        ("addNotes", {"notes": [NOTE, 5]}, "params.notes[1] must be an object"),
        ("addNotes", {"notes": [NOTE] * 1_001}, "params.notes has 1,001 items; at most 1,000"),
        ("cardsInfo", {"cards": ["1"]}, "params.cards[0] must be a whole number"),
        ("cardsInfo", {"cards": [True]}, "params.cards[0] must be a whole number"),
        ("cardsInfo", {"cards": [2**70]}, "params.cards[0] is out of range"),
        ("findCards", {}, "params.query is missing; it must be a string"),
        ("findCards", {"query": "x" * 70_000}, "params.query is 70,000 characters"),
        (
            "addChoiceCard",
            {"deck": "Biology", "question": "Q?", "choices": [[]]},
            "params.choices[0] must",
        ),
        (
            "addChoiceCard",
            {"deck": "Biology", "question": "Q" * 70_000, "choices": []},
            "params.question is 70",
        ),
        ("multi", {"actions": [{}] * 101}, "params.actions has 101 items; at most 100"),
    ],
)
def test_hostile_params_are_refused_and_nothing_is_written(
    server: ApiServer, database: Database, action: str, params: dict[str, Any], error: str
) -> None:
    answer = call(server, action, **params)
    assert answer["result"] is None
    assert answer["error"].startswith(error), answer["error"]
    assert card_count(database) == 0


def test_a_field_the_deck_format_refuses_is_named(server: ApiServer, database: Database) -> None:
    choices = [{"text": "yes", "correct": True}, {"text": "  "}]
    answer = call(server, "addChoiceCard", deck="Biology", question="Q?", choices=choices)
    assert answer["error"].startswith("the card breaks the deck format: Choice 2: ")
    assert card_count(database) == 0


def test_a_taken_port_is_refused_with_what_to_do(
    server: ApiServer, database: Database, clock: Clock
) -> None:
    other = ApiServer(Api(database, clock, KEY), server.port)
    with pytest.raises(ApiError, match=f"cannot listen on 127.0.0.1:{server.port}"):
        other.start()
    assert not other.running


def test_the_server_listens_only_on_127_0_0_1(server: ApiServer) -> None:
    """Linux routes all of 127.0.0.0/8 to this computer: a server listening on every
    address (0.0.0.0) would answer on 127.0.0.2 too."""
    with socket.socket() as probe:
        assert probe.connect_ex(("127.0.0.1", server.port)) == 0
    with socket.socket() as probe:
        assert probe.connect_ex(("127.0.0.2", server.port)) != 0


def test_an_api_needs_a_key(database: Database, clock: Clock) -> None:
    with pytest.raises(ApiError, match="needs a key"):
        Api(database, clock, "")


def test_a_stopped_server_closes_its_port(server: ApiServer) -> None:
    port = server.port
    server.stop()
    assert not server.running
    assert not server.ready.is_set()
    with socket.socket() as probe:
        assert probe.connect_ex(("127.0.0.1", port)) != 0
