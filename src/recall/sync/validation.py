"""What a synced event may hold: every field within the bounds an import applies.

The sync folder is written by other programs and other computers, so every line in it is
as untrusted as a downloaded deck. A line that breaks a bound is set aside (``incoming``)
before it reaches the database: one such line must never stop a round, nor leave a value
that statistics, search, the browser or studying cannot handle.
"""

from __future__ import annotations

import json
import math
import re
from datetime import date
from typing import Any, TypeVar

from recall.content.card_limits import MAX_FIELD_CHARS, MAX_HTML_SIDE_CHARS, MAX_NAME_CHARS
from recall.core import fields as options
from recall.core.presets import Preset
from recall.scheduling import parameter_problem
from recall.storage.times import to_micros

MAX_JSON_DEPTH = 64
"""Arrays and objects inside one another in one line (Python's json recurses per level)."""

_EARLIEST = to_micros(options.EARLIEST_TIME)
_LATEST = to_micros(options.LATEST_TIME)
assert _EARLIEST is not None
assert _LATEST is not None
EARLIEST, LATEST = _EARLIEST, _LATEST
"""Stamps, review times, due dates and burials, in UTC microseconds (1970 to 9000)."""

MAX_KEY_CHARS = MAX_NAME_CHARS
"""An id, a device id, a deck or card key or a preset id, in characters."""

MAX_DURATION_MS = 86_400_000
"""How long one answer took: a day at most (summed over a history, it stays a number)."""

MAX_POSITION = 2**31 - 1
"""A card's place in its deck."""

MAX_FLAG = 7
"""Flags 1 to 7, 0 for none (``card_changes.FLAG_NAMES``)."""

Number = TypeVar("Number", bound=int | None)

_BRACKETS = re.compile(rb'[\[\]{}"\\]')


class BoundsError(ValueError):
    """A value outside what an event may hold; the message says which and why."""


def loads(line: bytes) -> Any:
    """One line of JSON, refused before parsing when it nests deeper than the bound.

    Raises:
        ValueError: Not JSON, not UTF-8, or nested deeper than ``MAX_JSON_DEPTH``.
    """
    depth = json_depth(line)
    if depth > MAX_JSON_DEPTH:
        raise BoundsError(f"nested {depth:,} levels deep (at most {MAX_JSON_DEPTH})")
    return json.loads(line)


def json_depth(line: bytes) -> int:
    """How deeply a line's arrays and objects nest at most, brackets in strings left out.

    One pass over the brackets, quotes and backslashes only, so a line of text costs
    little; a line with too few brackets to pass the bound is not scanned at all.
    """
    if line.count(b"[") + line.count(b"{") <= MAX_JSON_DEPTH:
        return 0
    depth = deepest = 0
    in_string = escaped = False
    last = -1
    for match in _BRACKETS.finditer(line):
        char = match.group()
        position = match.start()
        if escaped and position == last + 1:
            escaped = False
            last = position
            continue
        escaped = False
        last = position
        if in_string:
            if char == b"\\":
                escaped = True
            elif char == b'"':
                in_string = False
        elif char == b'"':
            in_string = True
        elif char in (b"[", b"{"):
            depth += 1
            deepest = max(deepest, depth)
        elif char in (b"]", b"}"):
            depth -= 1
    return deepest


def key(name: str, value: str) -> str:
    """An id or key, bounded in length."""
    if len(value) > MAX_KEY_CHARS:
        raise BoundsError(f"{name} is {len(value):,} characters long (at most {MAX_KEY_CHARS})")
    return value


def time(name: str, value: Number) -> Number:
    """A time in UTC microseconds within the years Recall can represent and compute with."""
    if value is not None and not EARLIEST <= value <= LATEST:
        raise BoundsError(f"{name} {value} is not a time between 1970 and 9000")
    return value


def between(name: str, value: Number, low: int, high: int) -> Number:
    """A whole number within ``low``-``high``."""
    if value is not None and not low <= value <= high:
        raise BoundsError(f"{name} is {value:,} (it must be {low:,} to {high:,})")
    return value


def text(name: str, value: str, limit: int) -> str:
    """Text of at most ``limit`` characters."""
    if len(value) > limit:
        raise BoundsError(f"{name} is {len(value):,} characters long (at most {limit:,})")
    return value


def card_field(name: str, value: Any) -> None:
    """A card field of the type the event parser already checked, within its bounds."""
    if name == "buried_until":
        time(name, value)
    elif name == "position":
        between(name, value, 0, MAX_POSITION)
    elif name == "flag":
        between(name, value, 0, MAX_FLAG)
    elif name == "kind":
        text(name, value, MAX_KEY_CHARS)
    elif name in ("moved", "from"):
        for part in value:
            key(name, part)
    elif name.startswith("content.") and value:
        _content(name, value[0])


def _content(name: str, value: Any) -> None:
    """A piece of a card's content: every text in it within an HTML side's length (a deck
    card is checked whole, each field against its own bound, when it is stored)."""
    pending = [value]
    while pending:
        item = pending.pop()
        if isinstance(item, str):
            text(name, item, MAX_HTML_SIDE_CHARS)
        elif isinstance(item, list):
            pending += item
        elif isinstance(item, dict):
            pending += item.values()
            pending += item.keys()
        elif isinstance(item, float) and not math.isfinite(item):
            raise BoundsError(f"{name} holds {item}")


def deck_field(name: str, value: Any) -> None:
    """A deck field, within the bounds a deck file's import applies."""
    if name == "name":
        text(name, value, MAX_NAME_CHARS)
    elif name == "description":
        text(name, value, MAX_FIELD_CHARS)
    elif name == "preset":
        key(name, value)
    elif name == "exam" and value != "":
        try:
            date.fromisoformat(value)
        except ValueError:
            raise BoundsError(f"exam: {value[:40]!r} is not a day like 2027-01-15") from None


_PRESET_OPTIONS = {item.key: item for item in options.describe(Preset)}


def preset_field(name: str, value: Any) -> None:
    """A preset field: its name, or one option, as the deck options would take it."""
    if name == "name":
        text(name, value, MAX_NAME_CHARS)
        return
    option = name.removeprefix("config.")
    item = _PRESET_OPTIONS.get(option)
    if item is None or not value:
        return  # an option a newer Recall has, or the option taken out: its default
    try:
        loaded = options.loaded(value[0], item)
    except options.OptionError as error:
        raise BoundsError(str(error)) from None
    if option == "parameters":
        problem = parameter_problem(loaded)
        if problem is not None:
            raise BoundsError(f"parameters: {problem}")
