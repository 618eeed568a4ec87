"""Options declared once: each dataclass field carries its label, help and limits.

Preferences and deck presets are frozen dataclasses whose fields are made with ``option``.
Everything else (checking a value, reading one from text, storing and loading them, the
window's labels and the command line's keys) reads those declarations, so an option's
default, limits and wording live in exactly one place.
"""

from __future__ import annotations

import dataclasses
import math
import re
import typing
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, time, timedelta
from typing import Any, TypeVar

from recall.core import i18n
from recall.core.errors import RecallError
from recall.core.i18n import tr

T = TypeVar("T")

_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400}
_STEP = re.compile(r"^(\d+(?:\.\d+)?)([smhd]?)$")
# A learning step is a wait before the card is seen again, not an interval: a year is far
# beyond any use, and keeps every due date a step gives within what dates can hold.
LONGEST_STEP = timedelta(days=365)
EARLIEST_TIME = datetime(1970, 1, 1, tzinfo=UTC)
LATEST_TIME = datetime(9000, 1, 1, tzinfo=UTC)
"""The times an option (and a synced stamp) may hold: a century of intervals after the
latest still fits in a date, and nothing before the epoch is a time Recall recorded."""


class OptionError(RecallError):
    """A value an option cannot take, with the option's key and its limits."""


@dataclass(frozen=True)
class OptionInfo:
    """What one option is: its key, label, help, type, default and limits."""

    key: str
    label: str
    help: str
    kind: str  # "int", "float", "bool", "choice", "steps", "numbers", "text", "time", "daytime"
    default: Any
    low: float | None = None
    high: float | None = None
    choices: tuple[str, ...] = ()
    warn_above: float | None = None
    warning: str = ""
    editable: bool = True


def option(
    default: Any,
    label: str,
    help: str,
    *,
    low: float | None = None,
    high: float | None = None,
    choices: tuple[str, ...] = (),
    warn_above: float | None = None,
    warning: str = "",
    editable: bool = True,
) -> Any:
    """Declare an option: a dataclass field with its label, one-line help and limits."""
    metadata = {
        "label": label,
        "help": help,
        "low": low,
        "high": high,
        "choices": choices,
        "warn_above": warn_above,
        "warning": warning,
        "editable": editable,
    }
    return dataclasses.field(default=default, metadata=metadata)


def describe(cls: type[Any]) -> list[OptionInfo]:
    """Every option of a dataclass, in declaration order, its label, help and warning in the
    learner's language (declared with ``mark``)."""
    hints = typing.get_type_hints(cls)
    infos = []
    for item in dataclasses.fields(cls):
        meta = item.metadata
        infos.append(
            OptionInfo(
                key=item.name,
                label=i18n.tr(meta.get("label", item.name)),
                help=i18n.tr(meta["help"]) if meta.get("help") else "",
                kind=_kind(hints[item.name], bool(meta.get("choices"))),
                default=item.default,
                low=meta.get("low"),
                high=meta.get("high"),
                choices=meta.get("choices", ()),
                warn_above=meta.get("warn_above"),
                warning=i18n.tr(meta["warning"]) if meta.get("warning") else "",
                editable=meta.get("editable", True),
            )
        )
    return infos


def info(cls: type[Any], key: str) -> OptionInfo:
    """One option of a dataclass.

    Raises:
        OptionError: No option has that key; the message lists the keys there are.
    """
    for item in describe(cls):
        if item.key == key and item.editable:
            return item
    keys = ", ".join(item.key for item in describe(cls) if item.editable)
    raise OptionError(
        tr("there is no option {key}; the options are: {keys}").format(key=repr(key), keys=keys)
    )


def checked(value: Any, item: OptionInfo) -> Any:
    """``value`` if the option can take it, else an ``OptionError`` saying why."""
    if item.kind == "bool":
        if not isinstance(value, bool):
            raise OptionError(_expected_on_or_off(item, repr(value)))
        return value
    if item.kind == "choice":
        if value not in item.choices:
            raise OptionError(
                tr("{option}: {value} is not one of {choices}").format(
                    option=item.label, value=repr(value), choices=", ".join(item.choices)
                )
            )
        return value
    if item.kind in ("int", "float"):
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise OptionError(_expected(item, "float", repr(value)))
        if item.kind == "int" and value != int(value):
            raise OptionError(_expected(item, "int", str(value)))
        if not math.isfinite(value):
            raise OptionError(_expected(item, "float", str(value)))
        _within(item, value)
        return int(value) if item.kind == "int" else float(value)
    if item.kind == "steps":
        steps = tuple(value)
        for step in steps:
            if not isinstance(step, timedelta) or step <= timedelta(0):
                raise OptionError(_step_not_positive(item.label, str(step)))
            if step > LONGEST_STEP:
                raise OptionError(_step_too_long(item.label, format_steps([step])))
        if item.high is not None and len(steps) > item.high:
            raise OptionError(
                tr("{option}: at most {most} steps, got {count}").format(
                    option=item.label, most=f"{item.high:g}", count=len(steps)
                )
            )
        return steps
    if item.kind == "daytime":
        if value is not None and (not isinstance(value, time) or value.tzinfo is not None):
            raise OptionError(
                tr("{option}: expected a time of day such as 09:30, got {value}").format(
                    option=item.key, value=repr(value)
                )
            )
        return None if value is None else value.replace(second=0, microsecond=0)
    if item.kind == "numbers":
        numbers = tuple(float(number) for number in value)
        if not all(math.isfinite(number) for number in numbers):
            raise OptionError(
                tr("{option}: every value must be a finite number").format(option=item.label)
            )
        return numbers
    return value


def warning(value: Any, item: OptionInfo) -> str:
    """The option's warning when ``value`` is in its warning range, else ''."""
    if item.warn_above is not None and isinstance(value, int | float) and value > item.warn_above:
        return tr("{option} {value}: {warning}").format(
            option=item.label, value=f"{value:g}", warning=item.warning
        )
    return ""


def parse(item: OptionInfo, text: str) -> Any:
    """Read an option's value from text, as the command line and the window give it.

    Raises:
        OptionError: The text is not a value of the option's kind, or is out of range.
    """
    text = text.strip()
    if item.kind == "bool":
        lowered = text.lower()
        if lowered in ("on", "yes", "true", "1"):
            return True
        if lowered in ("off", "no", "false", "0"):
            return False
        raise OptionError(_expected_on_or_off(item, repr(text)))
    if item.kind in ("int", "float"):
        try:
            number = int(text) if item.kind == "int" else float(text)
        except ValueError:
            raise OptionError(_expected(item, item.kind, repr(text))) from None
        return checked(number, item)
    if item.kind == "steps":
        return checked(parse_steps(text, item.label), item)
    if item.kind == "daytime":
        return parse_daytime(text, item.label)
    if item.kind == "numbers":
        parts = [part for part in re.split(r"[\s,]+", text) if part]
        try:
            return checked(tuple(float(part) for part in parts), item)
        except ValueError:
            raise OptionError(
                tr("{option}: expected numbers, got {value}").format(
                    option=item.label, value=repr(text)
                )
            ) from None
    return checked(text, item)


def parse_steps(text: str, key: str = "Steps") -> tuple[timedelta, ...]:
    """Steps as Anki writes them: ``1m 10m``, ``30s``, ``1h``, ``1d``; a bare number is minutes.

    Raises:
        OptionError: A step is not a number with one of the units s, m, h, d.
    """
    steps = []
    for part in text.replace(",", " ").split():
        match = _STEP.match(part.lower())
        if match is None:
            raise OptionError(
                tr(
                    "{option}: {value} is not a step (write them like 1m 10m 1h 1d; s m h d)"
                ).format(option=key, value=repr(part))
            )
        seconds = float(match.group(1)) * _UNITS[match.group(2) or "m"]
        if seconds <= 0:
            raise OptionError(_step_not_positive(key, repr(part)))
        if not seconds <= LONGEST_STEP.total_seconds():  # also true of an overflow to inf
            raise OptionError(_step_too_long(key, repr(part)))
        steps.append(timedelta(seconds=round(seconds)))
    return tuple(steps)


def parse_daytime(text: str, key: str = "time") -> time | None:
    """A time of day written ``HH:MM`` (24-hour clock); empty or ``off`` is none.

    Raises:
        OptionError: The text is not a time of day.
    """
    text = text.strip().lower()
    if text in ("", "off", "none"):
        return None
    match = re.fullmatch(r"(\d{1,2}):(\d{2})", text)
    if match is None or int(match.group(1)) > 23 or int(match.group(2)) > 59:
        raise OptionError(
            tr("{option}: {value} is not a time of day (write it like 09:30, or off)").format(
                option=key, value=repr(text)
            )
        )
    return time(int(match.group(1)), int(match.group(2)))


def format_steps(steps: Sequence[timedelta]) -> str:
    """Steps in Anki's notation: the largest unit that divides each one."""
    words = []
    for step in steps:
        seconds = round(step.total_seconds())
        for unit in ("d", "h", "m", "s"):
            size = _UNITS[unit]
            if seconds % size == 0:
                words.append(f"{seconds // size}{unit}")
                break
    return " ".join(words)


def format_value(value: Any, item: OptionInfo) -> str:
    """An option's value as text that ``parse`` reads back."""
    if item.kind == "bool":
        return "on" if value else "off"
    if item.kind == "steps":
        return format_steps(value)
    if item.kind == "numbers":
        return " ".join(f"{number:.4f}" for number in value)
    if item.kind == "float":
        return f"{value:g}"
    if item.kind == "time":
        return "" if value is None else value.isoformat()
    if item.kind == "daytime":
        return "off" if value is None else f"{value:%H:%M}"
    return str(value)


def to_stored(instance: Any) -> dict[str, Any]:
    """An options dataclass as JSON-ready values (steps in seconds, times in ISO form)."""
    stored: dict[str, Any] = {}
    for item in describe(type(instance)):
        value = getattr(instance, item.key)
        if item.kind == "steps":
            value = [step.total_seconds() for step in value]
        elif item.kind == "numbers":
            value = list(value)
        elif item.kind == "time":
            value = None if value is None else value.isoformat()
        elif item.kind == "daytime":
            value = None if value is None else f"{value:%H:%M}"
        stored[item.key] = value
    return stored


def from_stored(cls: type[T], stored: dict[str, Any], **fixed: Any) -> T:
    """An options dataclass from stored values.

    Unknown keys (a newer Recall's options) are ignored, and a missing or unusable value
    falls back to its default, so a stored row never stops Recall from starting.
    """
    values: dict[str, Any] = {}
    for item in describe(cls):
        if item.key in fixed or item.key not in stored:
            continue
        try:
            values[item.key] = loaded(stored[item.key], item)
        except OptionError:
            continue
    try:
        return cls(**values, **fixed)
    except OptionError:
        # Values fine one by one but not together (a class-wide check): keep those that fit.
        kept: dict[str, Any] = {}
        for key, value in values.items():
            try:
                cls(**{**kept, key: value}, **fixed)
            except OptionError:
                continue
            kept[key] = value
        return cls(**kept, **fixed)


def replaced(instance: T, changes: dict[str, Any]) -> T:
    """A copy with ``changes`` applied, each checked against its option's limits.

    Raises:
        OptionError: A key is unknown or a value out of range; nothing is changed.
    """
    cls = type(instance)
    checked_changes = {key: checked(value, info(cls, key)) for key, value in changes.items()}
    return dataclasses.replace(instance, **checked_changes)  # type: ignore[type-var]


def loaded(value: Any, item: OptionInfo) -> Any:
    """An option's value from its stored form (``to_stored``'s), checked.

    Raises:
        OptionError: The value is not one the option can take, whatever is wrong with it
            (the wrong type, a number too large for a float or a time, out of range).
    """
    try:
        return _loaded(value, item)
    except OptionError:
        raise
    except (TypeError, ValueError, OverflowError) as error:
        raise OptionError(
            tr("{option}: {value} is not a value it takes ({error})").format(
                option=item.label, value=f"{value!r:.80}", error=error
            )
        ) from None


def _loaded(value: Any, item: OptionInfo) -> Any:
    if item.kind == "steps":
        return checked(tuple(timedelta(seconds=float(step)) for step in value), item)
    if item.kind == "time":
        if value is None:
            return None
        moment = datetime.fromisoformat(value)
        if moment.tzinfo is None:
            raise ValueError("naive time")
        if not EARLIEST_TIME <= moment <= LATEST_TIME:
            raise ValueError(f"not a time between {EARLIEST_TIME:%Y} and {LATEST_TIME:%Y}")
        return moment.astimezone(UTC)
    if item.kind == "daytime":
        if value is not None and not isinstance(value, str):
            raise TypeError("expected a time of day as text")
        return None if value is None else parse_daytime(value, item.key)
    if item.kind == "text":
        if not isinstance(value, str):
            raise TypeError("expected text")
        return value
    return checked(value, item)


def _within(item: OptionInfo, value: float) -> None:
    low, high = item.low, item.high
    if (low is not None and value < low) or (high is not None and value > high):
        raise OptionError(
            tr("{option}: {value} is outside {range}").format(
                option=item.label, value=f"{value:g}", range=_range(item)
            )
        )


def _range(item: OptionInfo) -> str:
    if item.low is not None and item.high is not None:
        return f"{item.low:g}-{item.high:g}"
    if item.low is not None:
        return tr("at least {low}").format(low=f"{item.low:g}")
    return tr("at most {high}").format(high=f"{item.high:g}")


def _expected_on_or_off(item: OptionInfo, got: str) -> str:
    return tr("{option}: expected on or off, got {value}").format(option=item.label, value=got)


def _expected(item: OptionInfo, kind: str, got: str) -> str:
    if kind == "int":
        message = tr("{option}: expected a whole number, got {value}")
    else:
        message = tr("{option}: expected a number, got {value}")
    return message.format(option=item.label, value=got)


def _step_not_positive(option: str, got: str) -> str:
    return tr("{option}: every step must be longer than 0, got {value}").format(
        option=option, value=got
    )


def _step_too_long(option: str, step: str) -> str:
    return tr("{option}: {value} is longer than {longest}, the longest step").format(
        option=option, value=step, longest=format_steps([LONGEST_STEP])
    )


def _kind(hint: Any, has_choices: bool) -> str:
    if has_choices:
        return "choice"
    if hint is bool:
        return "bool"
    if hint is int:
        return "int"
    if hint is float:
        return "float"
    if hint is str:
        return "text"
    args = typing.get_args(hint)
    if args and args[0] is timedelta:
        return "steps"
    if args and args[0] is float:
        return "numbers"
    if datetime in args:
        return "time"
    if time in args:
        return "daytime"
    raise TypeError(f"no option kind for {hint!r}")
