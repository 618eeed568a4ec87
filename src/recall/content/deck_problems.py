"""A deck file's problems in a deck author's words: where (``cards[3] (id 'x'): front``)
and what, from pydantic's validation errors."""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Mapping, Sequence

from pydantic_core import ErrorDetails

from recall.core.errors import printable
from recall.core.i18n import tr


class HugeNumber:
    """A whole number too long to be anything in a deck (Python refuses past 4,300 digits).

    It stays in the parsed value in its place, so validation names where it is.
    """

    def __init__(self, digits: str) -> None:
        self.digits = len(digits.lstrip("-"))

    def __repr__(self) -> str:
        return tr("a number of {count} digits").format(count=f"{self.digits:,}")


def describe(detail: ErrorDetails, raw: object, field_names: Mapping[str, set[str]]) -> str:
    """One validation problem as ``where: what``, in a deck author's words."""
    location = list(detail["loc"])
    place = where(location, raw)
    what = _what(detail, location, field_names)
    return f"{place}: {what}" if place else what


def describe_in_card(
    detail: ErrorDetails, index: int, card: object, field_names: Mapping[str, set[str]]
) -> str:
    """``describe`` for a problem of ``cards[index]``, validated on its own (``detail``'s
    location starts inside the card)."""
    location = ["cards", index, *detail["loc"]]
    place = card_where(index, card, location[2:])
    return f"{place}: {_what(detail, location, field_names)}"


def where(location: Sequence[int | str], raw: object) -> str:
    """``cards[3] (id 'x'): choices[1].text`` for a pydantic error location."""
    if len(location) >= 2 and location[0] == "cards" and isinstance(location[1], int):
        index = location[1]
        cards = raw.get("cards") if isinstance(raw, dict) else None
        card = cards[index] if isinstance(cards, list) and index < len(cards) else None
        return card_where(index, card, location[2:])
    return _within(location, "")


def card_where(index: int, card: object, location: Sequence[int | str]) -> str:
    """``where`` for a ``location`` inside ``cards[index]``, whose parsed JSON is ``card``."""
    prefix = f"cards[{index}]"
    card_id = card.get("id") if isinstance(card, dict) else None
    if isinstance(card_id, str) and card_id:
        prefix += f" (id {card_id!r})"
    return _within(location, prefix)


def _within(location: Sequence[int | str], prefix: str) -> str:
    steps = [step for step in location if step not in ("choice", "basic")]
    rest = "".join(_step(step) for step in steps)
    rest = rest.removeprefix(".")
    if prefix and rest:
        return f"{prefix}: {rest}"
    return prefix or rest


def _step(step: int | str) -> str:
    """``[3]`` for a list index, ``.front`` for a field, ``['odd name']`` for any other key."""
    if isinstance(step, int):
        return f"[{step}]"
    return f".{step}" if step.isidentifier() else f"['{printable(step)}']"


def _what(
    detail: ErrorDetails, location: Sequence[int | str], field_names: Mapping[str, set[str]]
) -> str:
    kind = detail["type"]
    context = detail.get("ctx") or {}
    if kind == "missing":
        return tr("missing (this field is required)")
    if kind == "extra_forbidden":
        name = str(location[-1]) if location else ""
        known = field_names[_model_at(location)]
        hint = difflib.get_close_matches(name, sorted(known), n=1)
        if hint:
            return tr("unknown field, not part of the deck format; did you mean {name}?").format(
                name=repr(hint[0])
            )
        return tr("unknown field, not part of the deck format")
    if kind in ("string_type", "str_type"):
        found = detail.get("input")
        if isinstance(found, HugeNumber):
            return tr("must be text (found {found})").format(found=repr(found))
        return tr("must be text")
    if kind == "bool_type" or kind == "bool_parsing":
        return tr("must be true or false")
    if kind == "list_type":
        return tr("must be a list")
    if kind in ("model_type", "dict_type", "model_attributes_type"):
        return tr("must be an object ({{...}})").format()
    if kind == "string_too_short":
        return tr("must not be empty")
    if kind == "string_pattern_mismatch":
        if context.get("pattern") == r"\S":
            return tr("must not be empty")
        if len(location) >= 2 and location[-2] == "tags":
            return tr("a tag is one word, without spaces")
        return tr(
            "must be lowercase letters, digits, '.', '_' or '-', starting with a letter or "
            "digit (like 'my-deck-2')"
        )
    if kind == "too_short":
        return tr("needs at least {least} (found {found})").format(
            least=context.get("min_length"), found=context.get("actual_length")
        )
    if kind == "too_long":
        return tr("allows at most {most} (found {found})").format(
            most=context.get("max_length"), found=context.get("actual_length")
        )
    if kind == "literal_error":
        return tr("must be {expected}").format(expected=context.get("expected"))
    if kind == "union_tag_invalid":
        return tr('\'type\' must be "choice" or "basic"')
    if kind == "union_tag_not_found":
        return tr('missing \'type\' ("choice" or "basic")')
    if kind == "value_error":
        return str(detail["msg"]).removeprefix("Value error, ")
    return str(detail["msg"])


def _model_at(location: Sequence[int | str]) -> str:
    """Which model a location's last key belongs to, for suggesting field names."""
    parents = [step for step in location[:-1] if isinstance(step, str)]
    if "choices" in parents:
        return "option"
    if "shapes" in parents:
        return "shape"
    if "occlusion" in parents:
        return "occlusion"
    if parents and parents[-1] in ("choice", "basic"):
        return parents[-1]
    return "deck"


_SURROGATE = re.compile(r"[\ud800-\udfff]")
# Where JSON text can give half a character: one itself, or a \\uD800-\\uDFFF escape.
_SURROGATE_SOURCE = re.compile(r"[\ud800-\udfff]|\\u[dD][89abcdefABCDEF]")


def may_hold_half_characters(text: str) -> bool:
    """Whether parsed ``text`` could hold a lone surrogate: one scan of the text, so the
    parsed tree is walked only when it holds a surrogate escape (a pair is one too)."""
    if text.isascii() and "\\u" not in text:
        return False  # the common case, two scans in C: no surrogate and no escape
    return _SURROGATE_SOURCE.search(text) is not None


MAX_HALF_CHARACTER_PROBLEMS = 10


def half_character_problems(
    value: object,
    place: Callable[[list[int | str]], str],
    problems: list[str],
    location: Sequence[int | str] = (),
) -> None:
    """Add to ``problems`` each text (or key) in ``value`` that holds half a character,
    in the file's order, until there are ``MAX_HALF_CHARACTER_PROBLEMS``.

    Args:
        value: Parsed JSON.
        place: Names a location (keys and indexes from the file's top) for a message.
        problems: Where the problems go; problems already there count to the limit.
        location: Where ``value`` is in the file.
    """
    pending: list[tuple[object, list[int | str]]] = [(value, list(location))]
    while pending and len(problems) < MAX_HALF_CHARACTER_PROBLEMS:
        value, location = pending.pop()
        if isinstance(value, dict):
            for key in value:
                if half := _SURROGATE.search(key):
                    where_key = place([*location, printable(key)])
                    problems.append(
                        tr("{place}: the field name {problem}").format(
                            place=where_key, problem=_half(half.group(0))
                        )
                    )
            pending += reversed([(item, [*location, key]) for key, item in value.items()])
        elif isinstance(value, list):
            pending += reversed([(item, [*location, i]) for i, item in enumerate(value)])
        elif isinstance(value, str) and (half := _SURROGATE.search(value)):
            problems.append(f"{place(location) or tr('the file')}: {_half(half.group(0))}")


def _half(character: str) -> str:
    return tr(
        "holds \\u{code}, half of a character (an unpaired UTF-16 surrogate escape), which is "
        "not text; remove it or give the whole character"
    ).format(code=f"{ord(character):04x}")
