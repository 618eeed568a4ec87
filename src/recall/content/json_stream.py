"""A JSON file read a piece at a time: whole values taken from a window over its text.

A deck of a million cards is hundreds of megabytes of JSON; parsed whole, it and its
objects take gigabytes. ``JsonStream`` keeps a window of the decoded text, tops it up
from the file in pieces as values are taken, and parses each value with the standard
library's scanner (so values, and the messages for bad JSON, are what ``json.loads``
gives). The caller walks the outer structure itself with ``skip`` and ``take``.

Positions in error messages count lines and columns over the whole file, as an editor
shows them, and bytes that are not UTF-8 are reported as ``deck_json.decode_text``
reports them, wherever in the file they are.
"""

from __future__ import annotations

import codecs
import json
import re
from collections.abc import Callable
from typing import BinaryIO

from recall.core.errors import DeckError

PIECE_CHARS = 1 << 20
"""How much text is read from the file at a time."""

_WHITESPACE = re.compile(r"[ \t\n\r]*")
_scanstring: Callable[[str, int, bool], tuple[str, int]] = json.decoder.scanstring  # type: ignore[attr-defined]
# A value that fails this close to the window's end may only be cut off by it.
_TAIL = 8


class JsonStream:
    """The text of one UTF-8 JSON file, a window at a time.

    Attributes:
        text: The window: the file's text from some point on.
        pos: Where in ``text`` reading stands.
        start: Where in ``text`` the value ``take`` gave last starts.
    """

    def __init__(
        self,
        file: BinaryIO,
        source: str,
        scan: Callable[[str, int], tuple[object, int]],
        utf8_problem: Callable[[int, int, int], str],
    ) -> None:
        """Start reading ``file``.

        Args:
            file: The file, opened for reading bytes.
            source: Names the file in error messages.
            scan: Parses one value at an index of a text (a ``JSONDecoder``'s
                ``scan_once``), returning it and the index after it.
            utf8_problem: The message for a byte that is not UTF-8, given the byte, its
                line and its position in the line (both from 1).
        """
        self.text = ""
        self.pos = 0
        self.start = 0
        self._file = file
        self._source = source
        self._scan = scan
        self._utf8_problem = utf8_problem
        self._decoder = codecs.getincrementaldecoder("utf-8")("strict")
        self._at_end = False
        self._started = False
        self._lines_before = 0  # newlines in the text before the window
        self._column_before = 0  # characters of the window's first line before it
        self._bytes_read = 0  # of the file after any byte order mark
        self._newlines_read = 0
        self._line_start = 0  # byte offset of the line being read

    @property
    def bytes_read(self) -> int:
        """How much of the file has been read so far, in bytes."""
        return self._bytes_read

    @property
    def at_end(self) -> bool:
        """Whether the whole file is in the window."""
        return self._at_end

    def fill(self) -> bool:
        """Read the next piece of the file into the window.

        Returns:
            False when the file was already all read.

        Raises:
            DeckError: The piece holds a byte that is not UTF-8.
        """
        if self._at_end:
            return False
        data = self._file.read(PIECE_CHARS)
        if not self._started:
            self._started = True
            data = data.removeprefix(codecs.BOM_UTF8)
        final = not data
        pending = self._decoder.getstate()[0]
        try:
            decoded = self._decoder.decode(data, final)
        except UnicodeDecodeError as error:
            raise self._not_utf8(pending + data, len(pending), error.start) from None
        self._count_bytes(data)
        self._drop_read()
        self.text += decoded
        self._at_end = final
        return True

    def skip(self) -> str:
        """Pass whitespace; the character after it, or "" at the end of the file."""
        while True:
            spaces = _WHITESPACE.match(self.text, self.pos)
            assert spaces is not None, "the pattern matches the empty string"
            self.pos = spaces.end()
            if self.pos < len(self.text) or not self.fill():
                return self.text[self.pos : self.pos + 1]

    def take(self) -> object:
        """Parse the value that starts at ``pos`` and move past it.

        Raises:
            DeckError: The JSON is not valid there (with its line and column).
            ValueError, RecursionError: From the parser's hooks, as ``json.loads`` would.
        """
        while True:
            try:
                value, end = self._scan(self.text, self.pos)
            except StopIteration as stop:
                if self._may_grow(int(stop.value)):
                    continue
                raise self.invalid("Expecting value", int(stop.value)) from None
            except json.JSONDecodeError as error:
                if self._may_grow(error.pos, error.msg):
                    continue
                raise self.invalid(error.msg, error.pos) from None
            if end >= len(self.text) - 1 and self.fill():
                continue  # a number or word may go on in the next piece
            self.start, self.pos = self.pos, end
            return value

    def key(self) -> str:
        """Parse the object key (a string) that starts at ``pos`` and move past it."""
        while True:
            try:
                key, end = _scanstring(self.text, self.pos + 1, True)
            except json.JSONDecodeError as error:
                if self._may_grow(error.pos, error.msg):
                    continue
                raise self.invalid(error.msg, error.pos) from None
            self.pos = end
            return str(key)

    def invalid(self, message: str, pos: int) -> DeckError:
        """The error for bad JSON at ``pos`` of the window, once the rest of the file is
        known to be UTF-8 (a byte that is not is the error then, as for a whole file)."""
        line, column = self._place(pos)
        self.finish()
        return DeckError(
            self._source, [f"line {line}, column {column}: not valid JSON ({message})"]
        )

    def finish(self) -> None:
        """Read the rest of the file, keeping none of it, for a byte that is not UTF-8.

        Raises:
            DeckError: The rest holds a byte that is not UTF-8.
        """
        while True:
            self.text, self.pos = "", 0
            if not self.fill():
                return

    def _may_grow(self, pos: int, message: str = "") -> bool:
        """Whether a failure at ``pos`` may be the window's end, and more was read.

        The text not yet taken at least doubles, so a value many pieces long is parsed
        again a few times, not once per piece.
        """
        if pos < len(self.text) - _TAIL and not message.startswith("Unterminated string"):
            return False
        wanted = 2 * max(len(self.text) - self.pos, 1)
        grew = False
        while len(self.text) - self.pos < wanted and self.fill():
            grew = True
        return grew

    def _place(self, pos: int) -> tuple[int, int]:
        """The line and column (from 1) of the window's ``pos`` in the whole file."""
        line = self._lines_before + self.text.count("\n", 0, pos) + 1
        newline = self.text.rfind("\n", 0, pos)
        column = pos - newline if newline >= 0 else self._column_before + pos + 1
        return line, column

    def _drop_read(self) -> None:
        """Let go of the text before ``pos``, keeping the count of its lines."""
        if self.pos == 0:
            return
        newline = self.text.rfind("\n", 0, self.pos)
        if newline >= 0:
            self._lines_before += self.text.count("\n", 0, self.pos)
            self._column_before = self.pos - newline - 1
        else:
            self._column_before += self.pos
        self.text = self.text[self.pos :]
        self.pos = 0

    def _count_bytes(self, data: bytes) -> None:
        newline = data.rfind(b"\n")
        if newline >= 0:
            self._newlines_read += data.count(b"\n")
            self._line_start = self._bytes_read + newline + 1
        self._bytes_read += len(data)

    def _not_utf8(self, data: bytes, held: int, start: int) -> DeckError:
        """The error for the byte at ``start`` of ``data``: the ``held`` bytes the
        decoder kept from the last piece (part of one character, never a newline), then
        the piece just read."""
        first_byte = self._bytes_read - held
        before = data[:start]
        newline = before.rfind(b"\n")
        line = self._newlines_read + before.count(b"\n") + 1
        line_start = first_byte + newline + 1 if newline >= 0 else self._line_start
        column = first_byte + start - line_start + 1
        return DeckError(self._source, [self._utf8_problem(data[start], line, column)])
