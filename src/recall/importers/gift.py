"""Moodle's GIFT question format (``.gift``): a tokenizer with line and column, then cards.

A GIFT file holds questions separated by blank lines; lines starting with ``//`` are
comments. A question is ``::name::`` (optional), ``[html]``, ``[moodle]``, ``[plain]`` or
``[markdown]`` (optional), its text, and its answers between ``{`` and ``}``: ``=right``
and ``~wrong`` (``~%50%partly right`` with a weight), each with ``#feedback``, and
``####general feedback`` last. ``{T}``/``{FALSE#...#...}`` is true/false, ``{#3.14:0.01}``
or ``{#1..5}`` numerical, ``{=item -> match ...}`` matching, only ``=`` answers short
answer, and ``{}`` an essay (skipped). ``$CATEGORY: path`` starts a category (a deck).
``\\~ \\= \\# \\{ \\} \\: \\\\`` write those signs in text and ``\\n`` a line break.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, replace
from pathlib import Path

from recall.content.deck_json import decode_text
from recall.core import wording
from recall.core.errors import DeckError
from recall.core.i18n import tr, trn
from recall.importers import ImportedPackage
from recall.importers._question_bank import (
    NO_TEXT,
    Answer,
    BankBuilder,
    Question,
    Rich,
    file_deck_name,
)
from recall.importers._report import byte_size
from recall.importers._text_header import MAX_TEXT_BYTES

_SPECIALS = "~=#{}:\\"
# Escaped signs stand for themselves: each becomes a private-use character while parsing.
_HIDDEN = {sign: chr(0xE000 + index) for index, sign in enumerate(_SPECIALS)}
_SHOWN = {hidden: sign for sign, hidden in _HIDDEN.items()}
_FORMAT = re.compile(r"\s*\[(html|moodle|plain|markdown)\]", re.IGNORECASE)
_WEIGHT = re.compile(r"\s*%([^%]*)%")
_TRUE_FALSE = {"T": True, "TRUE": True, "F": False, "FALSE": False}
_COMMENT = re.compile(r"\s*//")


class _Where:
    """Turns an offset into the file's text into ``line N, column M``."""

    def __init__(self, text: str) -> None:
        self.starts = [0] + [match.end() for match in re.finditer(r"\r\n?|\n", text)]

    def line(self, offset: int) -> int:
        return bisect.bisect_right(self.starts, offset)

    def __call__(self, offset: int) -> str:
        line = self.line(offset)
        column = offset - self.starts[line - 1] + 1
        return tr("line {line}, column {column}").format(line=line, column=column)


@dataclass(frozen=True)
class _Span:
    """Text of the file with its escapes hidden, and the file offset of each character."""

    text: str
    offsets: tuple[int, ...]
    end: int

    def __getitem__(self, index: slice) -> _Span:
        start, stop, _ = index.indices(len(self.text))
        end = self.offsets[stop] if stop < len(self.offsets) else self.end
        return _Span(self.text[start:stop], self.offsets[start:stop], end)

    def at(self, index: int) -> int:
        """The file offset of character ``index`` (the span's end past its last one)."""
        return self.offsets[index] if index < len(self.offsets) else self.end

    def strip(self) -> _Span:
        left = len(self.text) - len(self.text.lstrip())
        right = len(self.text.rstrip())
        return self[left:right] if right > left else self[left:left]

    def find(self, sign: str, start: int = 0) -> int:
        return self.text.find(sign, start)

    def shown(self) -> str:
        """The text as written, escapes undone (``\\n`` is a line break)."""
        return "".join(_SHOWN.get(char, char) for char in self.text)


def _hide_escapes(text: str, start: int, end: int) -> _Span:
    chars: list[str] = []
    offsets: list[int] = []
    index = start
    while index < end:
        char = text[index]
        following = text[index + 1] if index + 1 < end else ""
        if char == "\\" and following in _HIDDEN:
            chars.append(_HIDDEN[following])
        elif char == "\\" and following == "n":
            chars.append("\n")
        else:
            chars.append(char)
            offsets.append(index)
            index += 1
            continue
        offsets.append(index)
        index += 2
    return _Span("".join(chars), tuple(offsets), end)


def read_gift(path: Path) -> ImportedPackage:
    """Read a GIFT file into decks, one per ``$CATEGORY`` (the file's name before any).

    Args:
        path: The ``.gift`` file (UTF-8, a byte order mark allowed).

    Raises:
        DeckError: The file cannot be read, is not UTF-8, breaks GIFT's syntax (the
            message names the line and column), or holds no question Recall asks.
    """
    source = str(path)
    try:
        with path.open("rb") as handle:
            data = handle.read(MAX_TEXT_BYTES + 1)
    except OSError as error:
        raise DeckError(
            source, [tr("cannot be read ({reason})").format(reason=error.strerror or error)]
        ) from None
    if len(data) > MAX_TEXT_BYTES:
        raise DeckError(
            source,
            [
                tr("the file is larger than GIFT imports take ({limit})").format(
                    limit=byte_size(MAX_TEXT_BYTES)
                )
            ],
        )
    text = decode_text(data, source).replace("\x00", "")
    builder = BankBuilder(source, file_deck_name(path), lambda _name: None)
    parser = _Parser(source, text, builder)
    for start, end in _blocks(text):
        parser.block(start, end)
    notes = []
    if parser.essays:
        notes.append(
            trn(
                "{count} essay question skipped: Recall has no card for written answers",
                "{count} essay questions skipped: Recall has no card for written answers",
                parser.essays,
            ).format(count=wording.number(parser.essays))
        )
    return builder.package([], notes)


def _blocks(text: str) -> list[tuple[int, int]]:
    """Each question's (start, end) in ``text``: runs of lines that are not blank; comment
    lines are left out (a block holding one is cut around it)."""
    blocks: list[tuple[int, int]] = []
    start: int | None = None
    end = 0
    for match in re.finditer(r"[^\r\n]*(?:\r\n?|\n|$)", text):
        line = match.group(0)
        if not line and match.start() == len(text):
            break
        if not line.strip() or _COMMENT.match(line):
            if start is not None:
                blocks.append((start, end))
                start = None
            continue
        if start is None:
            start = match.start()
        end = match.start() + len(line.rstrip("\r\n"))
    if start is not None:
        blocks.append((start, end))
    return blocks


class _Parser:
    """Parses one block at a time, feeding the builder; errors name line and column."""

    def __init__(self, source: str, text: str, builder: BankBuilder) -> None:
        self._source = source
        self._text = text
        self._where = _Where(text)
        self._builder = builder
        self._fmt = "moodle"
        self.essays = 0

    def _fail(self, offset: int, what: str) -> DeckError:
        return DeckError(
            self._source,
            [tr("{where}: {problem}").format(where=self._where(offset), problem=what)],
        )

    def block(self, start: int, end: int) -> None:
        span = _hide_escapes(self._text, start, end).strip()
        if span.text.startswith("$CATEGORY:"):
            stop = span.find("\n")
            stop = len(span.text) if stop < 0 else stop
            self._builder.category(span[len("$CATEGORY:") : stop].shown().strip())
            span = span[stop:].strip()
            if not span.text:
                return
        self._question(span)

    def _question(self, span: _Span) -> None:
        line = self._where.line(span.at(0))
        name = ""
        if span.text.startswith("::"):
            close = span.find("::", 2)
            if close < 0:
                raise self._fail(span.at(0), tr("the name opened with :: is never closed by ::"))
            name = span[2:close].shown().strip()
            span = span[close + 2 :]
        opening = span.find("{")
        if opening < 0:
            raise self._fail(
                span.at(0),
                tr(
                    "a question without answers: put them between {{ and }} (write \\{{ for a "
                    "brace)"
                ).format(),
            )
        closing = span.find("}", opening)
        if closing < 0:
            raise self._fail(span.at(opening), "this { is never closed by }")
        inner = span.find("{", opening + 1)
        if 0 <= inner < closing:
            raise self._fail(span.at(inner), "a { inside the answers (write \\{ for a brace)")
        stray = span.find("}")
        if stray < opening:
            raise self._fail(span.at(stray), "a } before the answers (write \\} for a brace)")
        after = span[closing + 1 :].strip()
        if after.find("{") >= 0:
            raise self._fail(after.at(after.find("{")), tr("a question holds one set of answers"))
        before = span[:opening]
        fmt, text_span = _format(before, "moodle")
        text = text_span.shown().strip()
        if after.text:
            # Text on both sides of the answers: a "missing word" question.
            text = f"{text} _____ {after.shown().strip()}"
        self._fmt = fmt
        self._answers(
            Question(kind="shortanswer", name=name, text=_as_rich(text, fmt), line=line),
            span[opening + 1 : closing],
        )

    def _rich(self, span: _Span, default: str) -> Rich:
        found, rest = _format(span.strip(), default)
        return _as_rich(rest.shown().strip(), found)

    def _answers(self, question: Question, body: _Span) -> None:
        fmt = self._fmt
        general = NO_TEXT
        marker = body.find("####")
        if marker >= 0:
            general = self._rich(body[marker + 4 :], fmt)
            body = body[:marker]
        body = body.strip()
        question = replace(question, general_feedback=general)
        if not body.text:
            self.essays += 1
            return
        if body.text.startswith("#"):
            self._builder.add(self._numerical(question, body[1:]))
        elif body.find("~") >= 0:
            answers = self._split(body, fmt, default_right=100.0)
            self._builder.add(replace(question, kind="multichoice", answers=answers))
        elif body.find("=") >= 0 and "->" in body.text:
            self._builder.add(self._matching(question, body))
        elif body.text.split("#", 1)[0].strip().upper() in _TRUE_FALSE:
            self._builder.add(self._true_false(question, body))
        else:
            answers = self._split(body, fmt, default_right=100.0)
            self._builder.add(replace(question, kind="shortanswer", answers=answers))

    def _pieces(self, body: _Span) -> list[tuple[str, _Span]]:
        """The answers, each with its marker (``=`` or ``~``)."""
        starts = [index for index, char in enumerate(body.text) if char in "=~"]
        if not starts:
            raise self._fail(body.at(0), tr("no answer starts with = or ~"))
        if body[: starts[0]].strip().text:
            raise self._fail(body.at(0), tr("text before the first answer (start it with = or ~)"))
        pieces = []
        for index, begin in enumerate(starts):
            stop = starts[index + 1] if index + 1 < len(starts) else len(body.text)
            pieces.append((body.text[begin], body[begin + 1 : stop]))
        return pieces

    def _weight(self, span: _Span) -> tuple[float | None, _Span]:
        match = _WEIGHT.match(span.text)
        if match is None:
            return None, span
        try:
            weight = float(match.group(1))
        except ValueError:
            raise self._fail(
                span.at(match.start(1) - 1),
                tr("the weight %{weight}% is not a number").format(weight=match.group(1)[:20]),
            ) from None
        if not -100 <= weight <= 100:
            raise self._fail(
                span.at(match.start(1) - 1),
                tr("the weight {weight}% is not between -100 and 100").format(weight=f"{weight:g}"),
            )
        return weight, span[match.end() :]

    def _split(self, body: _Span, fmt: str, default_right: float) -> tuple[Answer, ...]:
        answers = []
        for marker, piece in self._pieces(body):
            weight, rest = self._weight(piece)
            fraction = weight if weight is not None else (default_right if marker == "=" else 0.0)
            feedback = NO_TEXT
            hash_at = rest.find("#")
            if hash_at >= 0:
                feedback = self._rich(rest[hash_at + 1 :], fmt)
                rest = rest[:hash_at]
            answers.append(Answer(self._rich(rest, fmt), fraction, feedback))
        return tuple(answers)

    def _matching(self, question: Question, body: _Span) -> Question:
        pairs = []
        for marker, piece in self._pieces(body):
            if marker != "=":
                raise self._fail(piece.at(0) - 1, tr("a matching question's pairs start with ="))
            arrow = piece.find("->")
            if arrow < 0:
                raise self._fail(piece.at(0), tr("this pair has no -> between item and match"))
            pairs.append(
                (
                    self._rich(piece[:arrow], self._fmt),
                    self._rich(piece[arrow + 2 :], "plain"),
                )
            )
        return replace(question, kind="matching", pairs=tuple(pairs))

    def _true_false(self, question: Question, body: _Span) -> Question:
        parts = body.text.split("#")
        truth = _TRUE_FALSE[parts[0].strip().upper()]
        feedbacks = []
        position = len(parts[0]) + 1
        for part in parts[1:3]:
            feedbacks.append(self._rich(body[position : position + len(part)], self._fmt))
            position += len(part) + 1
        wrong = feedbacks[0] if feedbacks else NO_TEXT
        right = feedbacks[1] if len(feedbacks) > 1 else NO_TEXT
        answers = (
            Answer(Rich("True", "plain"), 100.0 if truth else 0.0, right if truth else wrong),
            Answer(Rich("False", "plain"), 0.0 if truth else 100.0, wrong if truth else right),
        )
        return replace(question, kind="truefalse", answers=answers)

    def _numerical(self, question: Question, body: _Span) -> Question:
        body = body.strip()
        if body.text and body.text[0] not in "=~":
            pieces = [("=", body)]
            first = body.find("~")
            if first >= 0:
                pieces = [("=", body[:first]), *self._pieces(body[first:])]
        else:
            pieces = self._pieces(body)
        answers = []
        for marker, piece in pieces:
            weight, rest = self._weight(piece)
            fraction = weight if weight is not None else (100.0 if marker == "=" else 0.0)
            feedback = NO_TEXT
            hash_at = rest.find("#")
            if hash_at >= 0:
                feedback = self._rich(rest[hash_at + 1 :], self._fmt)
                rest = rest[:hash_at]
            value = rest.strip()
            if not value.text:
                continue  # feedback for any other number
            answers.append(Answer(Rich(self._number(value), "plain"), fraction, feedback))
        return replace(question, kind="numerical", answers=tuple(answers))

    def _number(self, value: _Span) -> str:
        """A numerical answer as shown: ``3.14 ± 0.01``, ``1 to 5``, or the number."""
        text = value.shown()
        if ".." in text:
            low, high = (self._float(value, part) for part in text.split("..", 1))
            return f"{low:g} to {high:g}"
        number, _, tolerance = text.partition(":")
        middle = self._float(value, number)
        spread = self._float(value, tolerance) if tolerance.strip() else 0.0
        return f"{middle:g} ± {spread:g}" if spread else f"{middle:g}"

    def _float(self, value: _Span, text: str) -> float:
        try:
            return float(text.strip())
        except ValueError:
            raise self._fail(
                value.at(0),
                tr("{text} is not a number (numerical answer)").format(
                    text=repr(text.strip()[:30])
                ),
            ) from None


def _format(span: _Span, default: str) -> tuple[str, _Span]:
    """The ``[format]`` a text starts with (``default`` without one), and the rest."""
    match = _FORMAT.match(span.text)
    if match is None:
        return default, span
    return match.group(1).lower(), span[match.end() :]


def _as_rich(text: str, fmt: str) -> Rich:
    """Text in a GIFT format: Moodle's own ("auto-format") is HTML whose line breaks show."""
    if not text:
        return NO_TEXT
    if fmt == "moodle":
        return Rich(text.replace("\n", "<br>"), "html")
    if fmt == "html":
        return Rich(text, "html")
    return Rich(text, "markdown" if fmt == "markdown" else "plain")
