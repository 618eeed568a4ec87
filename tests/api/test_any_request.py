"""Any request body, however made, is answered with a result or an error, never a crash."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from recall.api.actions import Api
from recall.api.protocol import ApiError, parse_request
from recall.changes import decks
from recall.storage import Database
from tests.conftest import Clock
from tests.helpers.api_server import KEY

ACTIONS = [
    "version", "requestPermission", "deckNames", "deckNamesAndIds", "createDeck", "addNote",
    "addNotes", "canAddNotes", "addChoiceCard", "findCards", "findNotes", "cardsInfo", "guiBrowse",
    "multi",
]  # fmt: skip
NAMES = st.sampled_from(
    ["note", "notes", "deck", "deckName", "modelName", "fields", "tags", "options", "query",
     "cards", "actions", "question", "choices", "text", "correct", "why", "Front", "Back",
     "Text", "action", "params", "allowDuplicate"]
)  # fmt: skip
JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=30)
    | st.sampled_from(["Basic", "Cloze", "Biology", "{{c1::x}}", "deck:Biology", "is:new"]),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(NAMES, inner, max_size=5),
    max_leaves=25,
)


NOW = datetime(2026, 1, 15, 9, 0, tzinfo=UTC)


@pytest.fixture(scope="module")
def api(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Api]:
    """One collection for every example: what one example adds, the next may meet."""
    database = Database(tmp_path_factory.mktemp("any") / "recall.sqlite3")
    decks.new_deck(database, "Biology", NOW)
    yield Api(database, Clock(NOW), KEY)
    database.close()


@settings(max_examples=300, deadline=None)
@given(
    action=st.sampled_from(ACTIONS) | st.text(max_size=10),
    params=st.dictionaries(NAMES, JSON, max_size=5),
    version=st.integers(min_value=3, max_value=7),
)
def test_any_request_gets_a_result_or_an_error(
    api: Api, action: str, params: dict[str, Any], version: int
) -> None:
    body = json.dumps({"action": action, "version": version, "params": params, "key": KEY})
    try:
        request = parse_request(body.encode())
    except ApiError:
        return  # refused as a whole, with its message
    answer = api.answer(request)  # anything but a RecallError inside would raise here
    if version >= 5:
        assert set(answer) <= {"result", "error", "warnings"}
        assert answer["error"] is None or isinstance(answer["error"], str)
