"""The local API's wire format, AnkiConnect's: a JSON request read and checked, a reply made.

A request is one JSON object ``{"action", "version", "params", "key"}`` of at most
``MAX_BODY_BYTES``; version 5 and up are answered ``{"result", "error"}`` (an older version
gets the bare result on success, as AnkiConnect does). Every value from outside is checked
for its type and size here before an action sees it, so an action reads ``Params`` and
never a raw object.
"""

from __future__ import annotations

import hmac
import json
import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from recall.core.errors import RecallError

API_VERSION = 6
"""The AnkiConnect protocol version Recall answers as."""

MAX_BODY_BYTES = 1024 * 1024
"""The largest request body read; a longer one is refused before it is read."""

MAX_TEXT_CHARS = 65_536
"""The longest string a parameter may hold (a card field's bound, ``card_limits``)."""

MAX_LIST_ITEMS = 10_000
"""The most items a list parameter may hold (card ids for ``cardsInfo``)."""

MAX_NAME_CHARS = 500
"""Action names and keys: far longer than any real one."""

ALLOWED_HOSTS = ("127.0.0.1", "localhost")


class ApiError(RecallError):
    """A request the API refuses; the message goes back to the caller as ``error``."""


@dataclass(frozen=True)
class Request:
    """One checked request: the action, the protocol version, its parameters and key."""

    action: str
    version: int
    params: Params
    key: str | None


@dataclass(frozen=True)
class Params:
    """An action's parameters, each read with its type and size checked.

    Attributes:
        values: The JSON object as sent.
        where: How error messages name the object (``params``, ``notes[2]``).
    """

    values: Mapping[str, Any] = field(default_factory=dict)
    where: str = "params"

    def _get(self, name: str, default: Any, kinds: tuple[type, ...], what: str) -> Any:
        if name not in self.values:
            if default is _REQUIRED:
                raise ApiError(f"{self.where}.{name} is missing; it must be {what}")
            return default
        value = self.values[name]
        # JSON true and false are Python ints too: a flag is not a number, nor the reverse.
        if isinstance(value, bool) != (bool in kinds) or not isinstance(value, kinds):
            raise ApiError(f"{self.where}.{name} must be {what}, not {_json_kind(value)}")
        return value

    def text(self, name: str, default: Any = None, limit: int = MAX_TEXT_CHARS) -> str:
        """A string parameter of at most ``limit`` characters.

        Raises:
            ApiError: Missing (with no default), not a string, or too long.
        """
        value = self._get(name, _REQUIRED if default is None else default, (str,), "a string")
        if len(value) > limit:
            raise ApiError(f"{self.where}.{name} is {len(value):,} characters; at most {limit:,}")
        return str(value)

    def flag(self, name: str, default: bool | None = None) -> bool:
        """A true/false parameter.

        Raises:
            ApiError: Missing (with no default) or not true/false.
        """
        fallback = _REQUIRED if default is None else default
        return bool(self._get(name, fallback, (bool,), "true or false"))

    def integer(self, name: str) -> int:
        """A whole-number parameter within SQLite's 64 bits.

        Raises:
            ApiError: Missing, not a whole number, or out of range.
        """
        value = int(self._get(name, _REQUIRED, (int,), "a whole number"))
        return _within_64_bits(value, f"{self.where}.{name}")

    def texts(self, name: str, default: Sequence[str] | None = None) -> list[str]:
        """A list of strings (tags, field values).

        Raises:
            ApiError: Missing (with no default), not a list of strings, or too long.
        """
        items = self._list(name, default)
        for index, item in enumerate(items):
            if not isinstance(item, str):
                raise ApiError(f"{self.where}.{name}[{index}] must be a string")
            if len(item) > MAX_TEXT_CHARS:
                raise ApiError(f"{self.where}.{name}[{index}] is too long")
        return [str(item) for item in items]

    def integers(self, name: str) -> list[int]:
        """A list of whole numbers (card ids).

        Raises:
            ApiError: Missing, not a list of whole numbers, or too long.
        """
        items = self._list(name, None)
        for index, item in enumerate(items):
            if isinstance(item, bool) or not isinstance(item, int):
                raise ApiError(f"{self.where}.{name}[{index}] must be a whole number")
            _within_64_bits(item, f"{self.where}.{name}[{index}]")
        return [int(item) for item in items]

    def objects(self, name: str, limit: int = MAX_LIST_ITEMS) -> list[Params]:
        """A list of JSON objects (notes, choices, actions), each as ``Params``.

        Raises:
            ApiError: Missing, not a list of objects, or longer than ``limit``.
        """
        items = self._list(name, None, limit)
        found = []
        for index, item in enumerate(items):
            if not isinstance(item, dict):
                raise ApiError(f"{self.where}.{name}[{index}] must be an object")
            found.append(Params(item, f"{self.where}.{name}[{index}]"))
        return found

    def mapping(self, name: str, default: Mapping[str, Any] | None = None) -> Params:
        """A JSON object parameter, as ``Params``.

        Raises:
            ApiError: Missing (with no default) or not an object.
        """
        value = self._get(name, _REQUIRED if default is None else default, (dict,), "an object")
        return Params(value, f"{self.where}.{name}")

    def _list(
        self, name: str, default: Sequence[Any] | None, limit: int = MAX_LIST_ITEMS
    ) -> list[Any]:
        value = self._get(name, _REQUIRED if default is None else list(default), (list,), "a list")
        if len(value) > limit:
            raise ApiError(f"{self.where}.{name} has {len(value):,} items; at most {limit:,}")
        return list(value)


_REQUIRED: Any = object()


def _json_kind(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true/false"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    return "an object"


def _within_64_bits(value: int, where: str) -> int:
    if not -(2**63) <= value < 2**63:
        raise ApiError(f"{where} is out of range")
    return value


def parse_request(body: bytes) -> Request:
    """A request body read as AnkiConnect's JSON object, every part of it checked.

    Raises:
        ApiError: Too long, not UTF-8 JSON, not an object, or a part of the wrong type.
    """
    if len(body) > MAX_BODY_BYTES:
        raise ApiError(f"the request is {len(body):,} bytes; at most {MAX_BODY_BYTES:,}")
    try:
        data = json.loads(body.decode("utf-8"), parse_constant=_no_constant)
    except (UnicodeDecodeError, ValueError, RecursionError) as error:
        raise ApiError(f"the request is not JSON: {_reason(error)}") from None
    if not isinstance(data, dict):
        raise ApiError(f"the request must be a JSON object, not {_json_kind(data)}")
    return request_from(Params(data, "request"))


def request_from(data: Params, key: str | None = None, version: int = 4) -> Request:
    """One request (or one of ``multi``'s actions, which takes the outer key and version)
    checked; a request without a version is AnkiConnect's version 4.

    Raises:
        ApiError: A part of the wrong type.
    """
    action = data.text("action", limit=MAX_NAME_CHARS)
    if "version" in data.values:
        version = data.integer("version")
    params = data.mapping("params", {})
    if "key" in data.values and data.values["key"] is not None:
        key = data.text("key", limit=MAX_NAME_CHARS)
    return Request(action, version, Params(params.values, "params"), key)


def _no_constant(name: str) -> object:
    raise ValueError(f"{name} is not a JSON number")


def _reason(error: Exception) -> str:
    if isinstance(error, RecursionError):
        return "nested too deeply"
    if isinstance(error, UnicodeDecodeError):
        return "not UTF-8"
    return str(error).split(":")[0]


def reply(
    request_version: int, result: Any, error: str | None, warnings: Sequence[str] = ()
) -> Any:
    """The answer to one request, shaped for the version it asked for.

    Version 5 and up get ``{"result", "error"}``; older ones get the bare result, or the
    same object when there is an error. Lint warnings ride beside them under ``warnings``,
    which AnkiConnect's clients ignore.
    """
    if error is None and request_version <= 4:
        return result
    answer: dict[str, Any] = {"result": result, "error": error}
    if warnings:
        answer["warnings"] = list(warnings)
    return answer


def new_key() -> str:
    """A new API key: 32 random bytes, URL-safe."""
    return secrets.token_urlsafe(32)


def key_matches(given: str | None, expected: str) -> bool:
    """Whether a request's key is the learner's, compared in constant time."""
    if given is None or not expected:
        return False
    return hmac.compare_digest(given.encode(), expected.encode())


def host_allowed(host: str | None) -> bool:
    """Whether a ``Host`` header names this computer (``127.0.0.1`` or ``localhost``, any
    port): a web page that re-points its own name at 127.0.0.1 (DNS rebinding) sends its own
    name, so it is refused."""
    if not host:
        return False
    name, _, port = host.strip().partition(":")
    return name.lower() in ALLOWED_HOSTS and (port == "" or port.isdigit())


def allowed_origins(text: str) -> frozenset[str]:
    """The origins the learner allowed, from the preference's space-separated text."""
    return frozenset(origin.rstrip("/") for origin in text.split() if origin)


def check_origins(text: str) -> str:
    """The origins preference, each origin checked to be a scheme and a host.

    Raises:
        ApiError: An entry is not an origin like ``http://localhost:3000``.
    """
    for origin in text.split():
        scheme, separator, rest = origin.partition("://")
        if not separator or not scheme.isascii() or not scheme.isalpha() or not rest.strip("/"):
            raise ApiError(
                f"{origin!r} is not a web origin; write it as http://localhost:3000 or "
                "chrome-extension://id"
            )
        if "/" in rest.rstrip("/"):
            raise ApiError(f"{origin!r} has a path; an origin is only a scheme and a host")
    return " ".join(text.split())
