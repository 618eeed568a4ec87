"""The search language: a query parsed into a small tree (``search_tree``), with errors that
say where.

The syntax follows Anki's (docs/search.md): words that must all match, ``"exact phrases"``,
``-negation``, ``or``, parentheses, ``*`` and ``_`` wildcards, and ``field:value`` terms
(``deck:``, ``tag:``, ``is:``, ``flag:``, ``prop:``, ``rated:``, ``missed:``, ``added:``,
``edited:``, ``question:``, ``front:``, ``back:``, ``choice:``, ``cid:``). ``search_sql`` turns
a tree into SQL; nothing here touches the database.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from recall.content.search_tree import (
    And,
    CardIds,
    Days,
    Flag,
    InDeck,
    Is,
    Node,
    Not,
    Or,
    Prop,
    Tagged,
    Text,
)
from recall.core.errors import RecallError
from recall.core.i18n import tr

TEXT_FIELDS = ("question", "front", "back", "choice")
IS_VALUES = ("new", "learn", "review", "due", "suspended", "buried", "leech")
PROPERTIES = ("ivl", "due", "reps", "lapses", "stability", "difficulty", "retrievability")
DAY_FIELDS = ("rated", "missed", "added", "edited")
FIELDS = (*TEXT_FIELDS, "deck", "tag", "is", "flag", "prop", *DAY_FIELDS, "cid")
COMPARISONS = ("<=", ">=", "!=", "=", "<", ">")
MAX_DAYS = 36500
# Bounds on one query, checked before any SQL is built (docs/search.md lists them). SQLite's
# parser gives up on SQL nested much deeper than about 30 parentheses, and builds older
# than 3.32 take at most 999 parameters (a term takes at most 4, the sort 6); a query of
# MAX_LENGTH characters makes LIKE patterns under SQLite's 50,000 bytes (4 bytes a
# character at most), whatever the query holds.
MAX_LENGTH = 10_000
MAX_TERMS = 200
MAX_DEPTH = 10


class SearchError(RecallError):
    """A query that cannot be understood, with the 1-based column where the problem is."""

    def __init__(self, message: str, column: int, hint: str = "") -> None:
        self.column = column
        if hint:
            text = tr("{problem} at column {column}; {hint}").format(
                problem=message, column=column, hint=hint
            )
        else:
            text = tr("{problem} at column {column}").format(problem=message, column=column)
        super().__init__(text)


@dataclass(frozen=True, slots=True)
class _Token:
    kind: Literal["open", "close", "not", "or", "and", "term"]
    column: int
    text: str = ""
    quoted: bool = False


def parse(query: str) -> Node | None:
    """Parse a query; None for an empty one (which matches every card).

    A run of ``-`` is one negation or none (``--a`` is ``a``). The query's length, its
    number of terms and how deep its parentheses nest are bounded (``MAX_LENGTH``,
    ``MAX_TERMS``, ``MAX_DEPTH``), so that any query that parses also runs.

    Raises:
        SearchError: The query cannot be understood or is beyond those bounds; the message
            says what and where.
    """
    _check_text(query)
    tokens = _tokenize(query)
    if not tokens:
        return None
    parser = _Parser(tokens, len(query) + 1)
    return parser.parse()


def like_escape(text: str) -> str:
    """Literal text as an SQL LIKE pattern with ``\\`` as the escape character."""
    return re.sub(r"([\\%_])", r"\\\1", text)


def quote(value: str) -> str:
    """A value as a query term would quote it, for building queries (deck names, tags)."""
    escaped = re.sub(r'([\\"*_])', r"\\\1", value)
    if value and escaped == value and not re.search(r"[\s():-]", value):
        return value
    return f'"{escaped}"'


def _check_text(query: str) -> None:
    if len(query) > MAX_LENGTH:
        raise SearchError(
            tr("the search is {count} characters long; at most {most} are read").format(
                count=f"{len(query):,}", most=f"{MAX_LENGTH:,}"
            ),
            MAX_LENGTH + 1,
        )
    surrogate = re.search("[\ud800-\udfff]", query)
    if surrogate is not None:
        # A command line's bytes that are not UTF-8 arrive as U+DC80-U+DCFF (surrogateescape).
        point = ord(surrogate.group())
        if 0xDC80 <= point <= 0xDCFF:
            what = tr("the search holds the byte 0x{byte}, which is not UTF-8 text").format(
                byte=f"{point - 0xDC00:02x}"
            )
        else:
            what = tr(
                "the search holds U+{code}, half of a character pair and not text by itself"
            ).format(code=f"{point:04X}")
        raise SearchError(what, surrogate.start() + 1)


def _tokenize(query: str) -> list[_Token]:
    tokens: list[_Token] = []
    terms = 0
    index = 0
    length = len(query)
    while index < length:
        char = query[index]
        column = index + 1
        if char.isspace():
            index += 1
        elif char == "(":
            tokens.append(_Token("open", column))
            index += 1
        elif char == ")":
            tokens.append(_Token("close", column))
            index += 1
        elif char == "-" and (index + 1 == length or not query[index + 1].isspace()):
            if index + 1 == length:
                raise SearchError(tr("'-' needs a search after it"), column)
            tokens.append(_Token("not", column))
            index += 1
        else:
            token, index = _read_term(query, index)
            lowered = token.text.lower()
            if not token.quoted and lowered in ("or", "and"):
                tokens.append(_Token("or" if lowered == "or" else "and", column))
            else:
                terms += 1
                if terms > MAX_TERMS:
                    raise SearchError(
                        tr("the search has more than {most} terms; this is term {term}").format(
                            most=MAX_TERMS, term=MAX_TERMS + 1
                        ),
                        column,
                    )
                tokens.append(token)
    return tokens


def _read_term(query: str, start: int) -> tuple[_Token, int]:
    """One term: runs of plain and quoted text up to a space or parenthesis outside quotes.

    The text keeps wildcards as written, with escaped characters marked by a backslash
    (``\\*`` is a literal star); quoted parts escape their wildcards too only when escaped.
    """
    parts: list[str] = []
    index = start
    quoted = False
    while index < len(query):
        char = query[index]
        if char.isspace() or char in "()":
            break
        if char == '"':
            quoted = True
            end = index + 1
            while end < len(query) and query[end] != '"':
                if query[end] == "\\" and end + 1 < len(query):
                    parts.append(query[end : end + 2])
                    end += 2
                    continue
                parts.append(query[end])
                end += 1
            if end >= len(query):
                raise SearchError(tr('this quote is never closed (add a closing ")'), index + 1)
            index = end + 1
            continue
        if char == "\\":
            if index + 1 == len(query):
                raise SearchError(tr("'\\' at the end escapes nothing"), index + 1)
            parts.append(query[index : index + 2])
            index += 2
            continue
        parts.append(char)
        index += 1
    text = "".join(parts)
    return _Token("term", start + 1, text=text, quoted=quoted), index


class _Parser:
    """Recursive descent: or-expression of and-expressions of (negated) atoms.

    Each level of parentheses takes three Python frames; ``MAX_DEPTH`` keeps that far
    below Python's recursion limit.
    """

    def __init__(self, tokens: list[_Token], end_column: int) -> None:
        self._tokens = tokens
        self._position = 0
        self._end_column = end_column
        self._depth = 0

    def parse(self) -> Node:
        node = self._or()
        if self._position < len(self._tokens):
            token = self._tokens[self._position]
            assert token.kind == "close"
            raise SearchError(tr("')' closes nothing"), token.column)
        return node

    def _peek(self) -> _Token | None:
        return self._tokens[self._position] if self._position < len(self._tokens) else None

    def _or(self) -> Node:
        operands = [self._and()]
        while (token := self._peek()) is not None and token.kind == "or":
            self._position += 1
            following = self._peek()
            if following is None or following.kind in ("close", "or", "and"):
                raise SearchError(tr("'or' needs a search on each side"), token.column)
            operands.append(self._and())
        return operands[0] if len(operands) == 1 else Or(tuple(operands))

    def _and(self) -> Node:
        operands: list[Node] = []
        while (token := self._peek()) is not None and token.kind not in ("close", "or"):
            if token.kind == "and":
                self._position += 1
                following = self._peek()
                if not operands or following is None or following.kind in ("close", "or", "and"):
                    raise SearchError(tr("'and' needs a search on each side"), token.column)
                continue
            operands.append(self._unary())
        if not operands:
            token = self._peek()
            column = token.column if token is not None else self._end_column
            if token is not None and token.kind == "or":
                raise SearchError(tr("'or' needs a search on each side"), column)
            raise SearchError(tr("a search was expected"), column)
        return operands[0] if len(operands) == 1 else And(tuple(operands))

    def _unary(self) -> Node:
        negated = False
        token = self._tokens[self._position]
        while token.kind == "not":  # a loop, not recursion: any run of '-' is one or none
            self._position += 1
            following = self._peek()
            if following is None or following.kind in ("close", "or", "and"):
                raise SearchError(tr("'-' needs a search after it"), token.column)
            negated = not negated
            token = following
        node = self._atom(token)
        return Not(node) if negated else node

    def _atom(self, token: _Token) -> Node:
        if token.kind == "open":
            self._position += 1
            following = self._peek()
            if following is not None and following.kind == "close":
                raise SearchError(tr("'()' holds no search"), token.column)
            if self._depth == MAX_DEPTH:
                raise SearchError(
                    tr("parentheses nest more than {most} deep here").format(most=MAX_DEPTH),
                    token.column,
                )
            self._depth += 1
            node = self._or()
            self._depth -= 1
            closing = self._peek()
            if closing is None or closing.kind != "close":
                raise SearchError(tr("this '(' is never closed"), token.column)
            self._position += 1
            return node
        self._position += 1
        return _term(token)


def _term(token: _Token) -> Node:
    text = token.text
    match = re.match(r"([A-Za-z]+):", text)
    if match is None:
        if not _unescaped(text).strip():
            raise SearchError(tr('"" holds nothing to search for'), token.column)
        return Text(pattern="%" + _like(text) + "%")
    field = match.group(1).lower()
    value = text[match.end() :]
    value_column = token.column + match.end()
    if field not in FIELDS and token.quoted:
        return Text(pattern="%" + _like(text) + "%")
    if field not in FIELDS:
        raise SearchError(
            tr("unknown search field '{field}'").format(field=match.group(1)),
            token.column,
            tr("expected one of {values} (put text with a colon in quotes)").format(
                values=", ".join(FIELDS)
            ),
        )
    if not value:
        raise SearchError(tr("'{field}:' needs a value after it").format(field=field), token.column)
    if field in TEXT_FIELDS:
        return Text(pattern=_like(value), field=field)
    if field == "deck":
        return InDeck(_like(value))
    if field == "tag":
        return Tagged(_like(value))
    plain = _unescaped(value).lower()
    if field == "is":
        if plain not in IS_VALUES:
            raise SearchError(
                tr("unknown `is:` value '{value}'").format(value=plain),
                value_column,
                _one_of(IS_VALUES),
            )
        return Is(plain)
    if field == "flag":
        if not re.fullmatch(r"[0-7]", plain):
            raise SearchError(
                tr("'flag:{value}' is not a flag; use 1 to 7, or 0 for no flag").format(
                    value=plain
                ),
                value_column,
            )
        return Flag(int(plain))
    if field == "prop":
        return _prop(plain, value_column)
    if field == "cid":
        return _card_ids(plain, value_column)
    return _days(field, plain, value_column)


def _prop(text: str, column: int) -> Prop:
    match = re.fullmatch(r"([a-z]+)(<=|>=|!=|=|<|>)(.*)", text)
    if match is None:
        raise SearchError(
            tr(
                "'prop:{value}' needs a property, a comparison and a number, like prop:ivl>=10"
            ).format(value=text),
            column,
        )
    name, comparison, number = match.groups()
    if name not in PROPERTIES:
        raise SearchError(
            tr("unknown property '{name}'").format(name=name), column, _one_of(PROPERTIES)
        )
    try:
        value = float(number)
    except ValueError:
        value = float("nan")
    if value != value or value in (float("inf"), float("-inf")):
        raise SearchError(
            tr("'{number}' is not a number (in prop:{value})").format(number=number, value=text),
            column + len(name) + len(comparison),
        )
    return Prop(name, comparison, value)  # type: ignore[arg-type]


def card_ids_term(card_ids: Sequence[int]) -> str:
    """The ``cid:`` term that finds exactly these cards (the browser's selection, say)."""
    return "cid:" + ",".join(str(card_id) for card_id in card_ids)


def _card_ids(text: str, column: int) -> CardIds:
    if not re.fullmatch(r"\d{1,18}(,\d{1,18})*", text):
        raise SearchError(
            tr("'cid:{value}' needs card ids separated by commas, like cid:12,40").format(
                value=text
            ),
            column,
        )
    return CardIds(tuple(dict.fromkeys(int(part) for part in text.split(","))))


def _days(field: str, text: str, column: int) -> Days:
    parts = text.split(":")
    allowed = 2 if field == "rated" else 1
    example = f"{field}:7" + (" or rated:7:1" if field == "rated" else "")
    if len(parts) > allowed or not re.fullmatch(r"\d{1,6}", parts[0]):
        raise SearchError(
            tr("'{field}:{value}' needs a number of days, like {example}").format(
                field=field, value=text, example=example
            ),
            column,
        )
    days = int(parts[0])
    if not 1 <= days <= MAX_DAYS:
        raise SearchError(
            tr("'{field}:' takes 1 to {most} days, not {days}").format(
                field=field, most=MAX_DAYS, days=days
            ),
            column,
        )
    rating = None
    if len(parts) == 2:
        if not re.fullmatch(r"[1-4]", parts[1]):
            raise SearchError(
                tr("'{rating}' is not a rating; use 1 (again) to 4 (easy)").format(rating=parts[1]),
                column + len(parts[0]) + 1,
            )
        rating = int(parts[1])
    return Days(field, days, rating)


def _like(text: str) -> str:
    """A term's text (backslash escapes, ``*`` and ``_`` wildcards) as an SQL LIKE pattern."""
    out: list[str] = []
    index = 0
    while index < len(text):
        char = text[index]
        if char == "\\" and index + 1 < len(text):
            out.append(like_escape(text[index + 1]))
            index += 2
            continue
        if char == "*":
            if not out or out[-1] != "%":  # ``**`` finds what ``*`` finds
                out.append("%")
        elif char == "_":
            out.append("_")
        else:
            out.append(like_escape(char))
        index += 1
    return "".join(out)


def _unescaped(text: str) -> str:
    return re.sub(r"\\(.)", r"\1", text)


def _one_of(values: Sequence[str]) -> str:
    return tr("expected one of {values}").format(values=", ".join(values))
