"""A bounded reader of the few protobuf messages Anki packages hold (wire format only).

Anki's current packages describe themselves (``meta``), their media (``media``) and, inside
the collection, note types, card templates and decks as protobuf messages. Recall needs a
handful of fields from each, so instead of generated classes this walks the wire format:
every varint is at most ten bytes, every length is checked against the bytes left, and
nesting is followed only where the caller asks, so no input can make it loop, recurse or
allocate beyond the message it was given.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

VARINT = 0
FIXED64 = 1
LENGTH = 2
FIXED32 = 5
_MAX_VARINT_BYTES = 10
_WIDTHS = {FIXED64: 8, FIXED32: 4}


class ProtobufError(ValueError):
    """The bytes are not a protobuf message of the expected shape; says what and where."""


@dataclass(frozen=True)
class Field:
    """One field as found on the wire: its number, wire type, and value.

    ``value`` is an int for varints and fixed-width fields, bytes for length-delimited ones.
    """

    number: int
    wire_type: int
    value: int | bytes


def _varint(data: bytes, position: int) -> tuple[int, int]:
    """The varint at ``position`` and the position after it."""
    result = 0
    for index in range(_MAX_VARINT_BYTES):
        if position + index >= len(data):
            raise ProtobufError(f"a number is cut short at byte {position}")
        byte = data[position + index]
        result |= (byte & 0x7F) << (7 * index)
        if not byte & 0x80:
            return result & 0xFFFF_FFFF_FFFF_FFFF, position + index + 1
    raise ProtobufError(f"a number at byte {position} is longer than ten bytes")


def fields(data: bytes) -> Iterator[Field]:
    """Every top-level field of a message, in the order written.

    Raises:
        ProtobufError: A tag, number or length is malformed or runs past the end.
    """
    position = 0
    while position < len(data):
        start = position
        key, position = _varint(data, position)
        number, wire_type = key >> 3, key & 7
        if number == 0:
            raise ProtobufError(f"field number 0 at byte {start}")
        value: int | bytes
        if wire_type == VARINT:
            value, position = _varint(data, position)
        elif wire_type == LENGTH:
            length, position = _varint(data, position)
            if length > len(data) - position:
                raise ProtobufError(f"field {number} at byte {start} runs past the end")
            value = data[position : position + length]
            position += length
        elif wire_type in _WIDTHS:
            width = _WIDTHS[wire_type]
            if width > len(data) - position:
                raise ProtobufError(f"field {number} at byte {start} runs past the end")
            value = int.from_bytes(data[position : position + width], "little")
            position += width
        else:
            raise ProtobufError(f"field {number} at byte {start} has wire type {wire_type}")
        yield Field(number, wire_type, value)


def last_int(data: bytes, number: int, default: int = 0) -> int:
    """The last varint written for field ``number`` (protobuf's rule for repeats), or default.

    Raises:
        ProtobufError: The message is malformed, or the field is not a varint.
    """
    found = default
    for item in fields(data):
        if item.number == number:
            if not isinstance(item.value, int) or item.wire_type != VARINT:
                raise ProtobufError(f"field {number} is not a number")
            found = item.value
    return found


def last_bytes(data: bytes, number: int) -> bytes | None:
    """The last length-delimited value of field ``number``, or None when absent.

    Raises:
        ProtobufError: The message is malformed, or the field is not length-delimited.
    """
    found: bytes | None = None
    for item in fields(data):
        if item.number == number:
            if not isinstance(item.value, bytes):
                raise ProtobufError(f"field {number} is not text or a message")
            found = item.value
    return found


def last_text(data: bytes, number: int) -> str:
    """The last string of field ``number`` as text, or "" when absent.

    Raises:
        ProtobufError: The message is malformed, or the value is not UTF-8.
    """
    value = last_bytes(data, number)
    if value is None:
        return ""
    try:
        return value.decode("utf-8")
    except UnicodeDecodeError:
        raise ProtobufError(f"field {number} is not UTF-8 text") from None
