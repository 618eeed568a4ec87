"""The events sync writes and reads: one JSON object a line, checked as they are read.

Field events set some fields of a deck, card or preset (each field's latest stamp wins);
``deleted`` among them is a tombstone, final for that key. A review event carries
everything a review row holds; ``unreview`` takes one back. The format is docs/sync.md's.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from recall.core.memory import ReviewKind, memory_in_bounds
from recall.storage.cards import SEED_LIMIT
from recall.sync import validation
from recall.sync.validation import BoundsError

FORMAT = 2
"""The newest format this Recall reads and writes. Format 2: a card may carry the Anki note
it is (``content.anki``), which a Recall reading only format 1 cannot show."""
FORMAT_WITHOUT_NOTES = 1
"""The format of a file written while the collection holds no Anki note type (so no card
with a note), which a Recall from before format 2 reads."""
FIELD_TYPES = ("preset", "deck", "card")
TYPES = frozenset({*FIELD_TYPES, "review", "unreview"})
DEFAULT_PRESET = "default"
_LOWEST, _HIGHEST = -(2**63), 2**63 - 1

# What each field of a card, deck or preset may hold; content.* and config.* hold [value]
# (or [] when the key is absent).
_CARD_FIELDS: dict[str, type | tuple[type, ...]] = {
    "kind": str,
    "position": int,
    "flag": int,
    "edited": bool,
    "suspended": bool,
    "buried_until": (int, type(None)),
    "seed": int,
}
_DECK_FIELDS: dict[str, type | tuple[type, ...]] = {
    "name": str,
    "description": str,
    "preset": str,
    "exam": str,  # the exam day, YYYY-MM-DD, or "" once taken away
}
_PRESET_FIELDS: dict[str, type | tuple[type, ...]] = {"name": str}
_WRAPPED = {"card": "content.", "preset": "config.", "deck": None}
_BOUNDS = {
    "card": validation.card_field,
    "deck": validation.deck_field,
    "preset": validation.preset_field,
}


class EventError(ValueError):
    """A line that is not an event this Recall can use; its message says why."""


class UnknownEventError(EventError):
    """An event of a type a newer Recall writes."""


@dataclass(frozen=True, slots=True)
class FieldEvent:
    """Fields of one deck, card or preset set at one stamp by one device."""

    id: str
    type: str
    stamp: int
    device: str
    key: tuple[str, str]  # (deck key or preset id, card key or '')
    fields: dict[str, Any]


@dataclass(frozen=True, slots=True)
class ReviewEvent:
    """A review, named by its card's keys."""

    id: str
    deck: str
    card: str
    at: int
    kind: int
    rating: int
    duration_ms: int
    state_before: int
    picked: list[str] | None
    correct: bool
    set_due: int | None
    proposed: int | None
    # A memory entry's (kind 4) stability and difficulty; written only for one.
    stability: float | None = None
    difficulty: float | None = None


@dataclass(frozen=True, slots=True)
class Unreview:
    """A review taken back."""

    id: str
    review: str


Event = FieldEvent | ReviewEvent | Unreview


def field_event(
    event_id: str, type_: str, stamp: int, device: str, key: tuple[str, str], fields: dict[str, Any]
) -> dict[str, Any]:
    """A field event as written."""
    out: dict[str, Any] = {"type": type_, "id": event_id, "stamp": stamp, "device": device}
    if type_ == "preset":
        out["preset"] = key[0]
    else:
        out["deck"] = key[0]
        if type_ == "card":
            out["card"] = key[1]
    out["fields"] = fields
    return out


def encode(event: dict[str, Any]) -> bytes:
    """One event as one line."""
    return json.dumps(event, ensure_ascii=False, separators=(",", ":")).encode() + b"\n"


def parse(line: bytes) -> Event:
    """One line read back.

    Raises:
        UnknownEventError: The type is one a newer Recall writes.
        EventError: The line is not a usable event.
    """
    try:
        data = validation.loads(line)
    except (ValueError, UnicodeDecodeError) as error:
        raise EventError(f"not JSON ({error})") from None
    if not isinstance(data, dict):
        raise EventError("not a JSON object")
    type_ = data.get("type")
    if type_ not in TYPES:
        raise UnknownEventError(f"unknown event type {type_!r}")
    try:
        if type_ == "review":
            return _review(data)
        if type_ == "unreview":
            return Unreview(id=_text(data, "id"), review=_text(data, "review"))
        return _fields(type_, data)
    except (KeyError, TypeError) as error:
        raise EventError(f"a {type_} event without a usable {error}") from None
    except BoundsError as error:
        raise EventError(f"a {type_} event whose {error}") from None


def _text(data: dict[str, Any], key: str) -> str:
    value = data[key]
    if not isinstance(value, str):
        raise TypeError(key)
    return validation.key(key, value)


def _integer(data: dict[str, Any], key: str, optional: bool = False) -> Any:
    """An integer SQLite can store (or None when ``optional``)."""
    value = data.get(key) if optional else data[key]
    if value is None and optional:
        return None
    if not isinstance(value, int) or isinstance(value, bool) or not _LOWEST <= value <= _HIGHEST:
        raise TypeError(key)  # beyond what SQLite stores: one such line would stop every round
    return value


def _review(data: dict[str, Any]) -> ReviewEvent:
    picked = data.get("picked")
    if picked is not None and not (
        isinstance(picked, list) and all(isinstance(item, str) for item in picked)
    ):
        raise TypeError("picked")
    correct = data.get("correct")
    if not isinstance(correct, bool):
        raise TypeError("correct")
    for item in picked or ():
        validation.key("picked", item)
    event = ReviewEvent(
        id=_text(data, "id"),
        deck=_text(data, "deck"),
        card=_text(data, "card"),
        at=validation.time("at", _integer(data, "at")),
        kind=_integer(data, "kind"),
        rating=_integer(data, "rating"),
        duration_ms=validation.between(
            "duration_ms", _integer(data, "duration_ms"), 0, validation.MAX_DURATION_MS
        ),
        state_before=_integer(data, "state_before"),
        picked=picked,
        correct=correct,
        set_due=validation.time("set_due", _integer(data, "set_due", optional=True)),
        proposed=validation.between("proposed", _integer(data, "proposed", optional=True), 1, 4),
        stability=data.get("stability"),
        difficulty=data.get("difficulty"),
    )
    if event.kind == int(ReviewKind.MEMORY):
        if event.set_due is None or not memory_in_bounds(event.stability, event.difficulty):
            raise TypeError("memory state")
    elif event.stability is not None or event.difficulty is not None:
        raise TypeError("memory state")
    if (
        event.kind not in (0, 1, 2, 3, 4, 5)
        or not 0 <= event.rating <= 4
        or not 0 <= event.state_before <= 3
    ):
        raise TypeError("kind, rating or state")
    if event.kind in (0, 3, 5) and event.rating == 0:
        raise TypeError("rating")
    if event.kind == int(ReviewKind.FOLLOW_UP) and (event.set_due is not None or not event.picked):
        # A follow-up answers a choice card with no due date of its own: its schedule is
        # replayed from the history, never set.
        raise TypeError("follow-up answer")
    return event


def _fields(type_: str, data: dict[str, Any]) -> FieldEvent:
    fields = data["fields"]
    if not isinstance(fields, dict):
        raise TypeError("fields")
    allowed = {"card": _CARD_FIELDS, "deck": _DECK_FIELDS, "preset": _PRESET_FIELDS}[type_]
    wrapped = _WRAPPED[type_]
    checked: dict[str, Any] = {}
    for name, value in fields.items():
        if name in ("deleted", "gone"):
            if value is not True:
                raise TypeError(name)
        elif name in ("moved", "from") and type_ == "card":
            if not (
                isinstance(value, list)
                and len(value) == 2
                and all(isinstance(item, str) for item in value)
            ):
                raise TypeError(name)
        elif wrapped is not None and name.startswith(wrapped):
            if not isinstance(value, list) or len(value) > 1:
                raise TypeError(name)
        elif name in allowed:
            kinds = allowed[name]
            if not isinstance(value, kinds) or (isinstance(value, bool) and kinds is int):
                raise TypeError(name)
            if name == "seed" and not (isinstance(value, int) and 0 < value < SEED_LIMIT):
                raise TypeError(name)
        else:
            continue  # a field a newer Recall carries: kept in its file, not used here
        _BOUNDS[type_](name, value)
        checked[name] = value
    key = (
        (_text(data, "preset"), "")
        if type_ == "preset"
        else (
            _text(data, "deck"),
            _text(data, "card") if type_ == "card" else "",
        )
    )
    return FieldEvent(
        id=_text(data, "id"),
        type=type_,
        stamp=validation.time("stamp", _integer(data, "stamp")),
        device=_text(data, "device"),
        key=key,
        fields=checked,
    )


def review_dict(event: ReviewEvent) -> dict[str, Any]:
    """A review event as written."""
    return {
        "type": "review",
        "id": event.id,
        "deck": event.deck,
        "card": event.card,
        "at": event.at,
        "kind": event.kind,
        "rating": event.rating,
        "duration_ms": event.duration_ms,
        "state_before": event.state_before,
        "picked": event.picked,
        "correct": event.correct,
        "set_due": event.set_due,
        "proposed": event.proposed,
        **(
            {}
            if event.stability is None
            else {"stability": event.stability, "difficulty": event.difficulty}
        ),
    }
