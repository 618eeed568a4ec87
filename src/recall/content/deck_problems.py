"""A deck file's problems in a deck author's words: where (``cards[3] (id 'x'): front``)
and what, from pydantic's validation errors."""

from __future__ import annotations

import difflib
from collections.abc import Mapping, Sequence

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


def where(location: Sequence[int | str], raw: object) -> str:
    """``cards[3] (id 'x'): choices[1].text`` for a pydantic error location."""
    steps = [step for step in location if step not in ("choice", "basic")]
    prefix = ""
    if len(steps) >= 2 and steps[0] == "cards" and isinstance(steps[1], int):
        index = steps[1]
        prefix = f"cards[{index}]"
        cards = raw.get("cards") if isinstance(raw, dict) else None
        card = cards[index] if isinstance(cards, list) and index < len(cards) else None
        card_id = card.get("id") if isinstance(card, dict) else None
        if isinstance(card_id, str) and card_id:
            prefix += f" (id {card_id!r})"
        steps = steps[2:]
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
