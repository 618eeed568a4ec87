"""A deck file's bytes read as JSON: UTF-8 with its byte named when it is not, repeated keys
refused, whole numbers too long to be numbers kept in their place for the error to name."""

from __future__ import annotations

import codecs
import json
from typing import Any

from recall.content.deck_problems import HugeNumber
from recall.core.errors import DeckError
from recall.core.i18n import tr


def decode_text(data: bytes, source: str) -> str:
    """A deck file's bytes as text: UTF-8, with or without a byte order mark.

    Raises:
        DeckError: The bytes are not UTF-8; the message names the line and the byte.
    """
    body = data.removeprefix(codecs.BOM_UTF8)
    try:
        return body.decode("utf-8")
    except UnicodeDecodeError as error:
        # Counted in the file without its byte order mark, as an editor shows it.
        line = body[: error.start].count(b"\n") + 1
        column = error.start - (body.rfind(b"\n", 0, error.start) + 1) + 1
        raise DeckError(source, [utf8_problem(body[error.start], line, column)]) from None


def utf8_problem(byte: int, line: int, column: int) -> str:
    """The problem of a ``byte`` that is not UTF-8, at a line and column (bytes, from 1)."""
    return tr(
        "line {line}: not UTF-8 text (byte 0x{byte}, the {ordinal} byte of the "
        "line); save it as UTF-8"
    ).format(line=line, byte=f"{byte:02x}", ordinal=_ordinal(column))


def _ordinal(number: int) -> str:
    shown = f"{number:,}"
    if 10 <= number % 100 <= 20 or number % 10 not in (1, 2, 3):
        return tr("{number}th").format(number=shown)
    if number % 10 == 1:
        return tr("{number}st").format(number=shown)
    if number % 10 == 2:
        return tr("{number}nd").format(number=shown)
    return tr("{number}rd").format(number=shown)


def decode_json(text: str, source: str) -> object:
    """Parse deck JSON, refusing repeated keys and keeping over-long numbers in their place.

    Raises:
        DeckError: The text is not JSON, repeats a key or nests too deeply.
    """
    try:
        return json.loads(text, object_pairs_hook=reject_duplicate_keys, parse_int=whole_number)
    except json.JSONDecodeError as error:
        raise DeckError(
            source,
            [
                tr("line {line}, column {column}: not valid JSON ({reason})").format(
                    line=error.lineno, column=error.colno, reason=error.msg
                )
            ],
        ) from None
    except DuplicateKeyError as error:
        raise DeckError(source, [str(error)]) from None
    except RecursionError:
        raise DeckError(source, [tr("the JSON is nested too deeply to be a deck")]) from None


class DuplicateKeyError(ValueError):
    """A key appears twice in one JSON object."""


def whole_number(digits: str) -> int | HugeNumber:
    """A JSON whole number, or a ``HugeNumber`` in its place when it is too long to be one."""
    return int(digits) if len(digits) <= 20 else HugeNumber(digits)


def reject_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object's pairs as a dict (``object_pairs_hook``).

    Raises:
        DuplicateKeyError: A key appears twice.
    """
    result = dict(pairs)
    if len(result) == len(pairs):  # the common case, without a Python loop over the keys
        return result
    seen: set[str] = set()
    for key, _value in pairs:
        if key in seen:
            raise DuplicateKeyError(
                tr("the key {key} appears twice in the same object").format(key=repr(key))
            )
        seen.add(key)
    raise AssertionError("a shorter dict has a repeated key")
