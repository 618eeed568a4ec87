"""A parsed search turned into an SQL condition with parameters, for storage to run.

The condition reads ``card_memory``, and ``card`` and ``deck`` only where a term needs their
columns (a card's texts, flag and times; a deck's name), and looks into ``card_tag`` and
``review`` through subqueries; a card is named by ``card_memory.card_id`` and the sort by
deck name reads the deck of ``card_memory.deck_id`` (kept equal to the card's, which
``recall check`` verifies).
``source`` gives the FROM clause a condition and its sort need: a search on the schedules
reads their narrow rows alone, the sort by due a card's position kept beside its schedule
(schema 18), never the wide card row with its content and search text.
Every value from the query travels as a parameter; the SQL text holds only fixed pieces.

SQLite's parser gives up on SQL nested more than about 30 parentheses deep, so the tree is
flattened first: negations are moved down to the terms (``-(a or b)`` is ``-a -b``) and
nested groups of the same kind are merged, so the SQL nests only where ``and`` and ``or``
alternate.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

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
from recall.core.memory import CardState, ReviewKind

_DAY_MICROS = 86_400_000_000
_REVIEWED = f"({int(CardState.LEARNING)}, {int(CardState.REVIEW)}, {int(CardState.RELEARNING)})"
_ANSWER = int(ReviewKind.ANSWER)
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
# Past any time a datetime can hold in microseconds (year 9999 is about 2.5e17).
_NO_DUE = 2**63 - 1


@dataclass(frozen=True, slots=True)
class SearchContext:
    """What a search's meaning depends on besides the cards.

    Attributes:
        now: The current time, aware UTC.
        day_start: The start of today's study day, aware UTC (``rated:1`` means since then).
        day_end: The end of today's study day (``is:due`` means due before it).
        decay: FSRS's forgetting-curve decay (negative), for ``prop:retrievability``.
        factor: FSRS's forgetting-curve factor, for ``prop:retrievability``.
    """

    now: datetime
    day_start: datetime
    day_end: datetime
    decay: float
    factor: float


@dataclass(frozen=True, slots=True)
class _Term:
    """A term of a flattened query, maybe negated."""

    node: Node
    negated: bool


@dataclass(frozen=True, slots=True)
class _Group:
    """Terms and groups that must all match (``every``), or one of which must."""

    every: bool
    members: tuple[_Term | _Group, ...]


@dataclass(frozen=True, slots=True)
class Condition:
    """An SQL boolean expression and its parameters, in order."""

    sql: str
    parameters: tuple[object, ...]


TRUE = Condition("1", ())
# A read of the card's own row, and of its deck's row: the SQL text
# holds only this module's fixed pieces, so the column references name the tables read.
_CARD_ROW = re.compile(r"\bcard\.")
_DECK_ROW = re.compile(r"\bdeck\.")


def compile_query(node: Node | None, context: SearchContext) -> Condition:
    """The SQL condition a parsed query stands for (every card for None)."""
    if node is None:
        return TRUE
    return _Compiler(context).compile(node)


def micros(moment: datetime) -> int:
    """An aware time as the database stores it: microseconds since the epoch."""
    return (moment - _EPOCH) // timedelta(microseconds=1)


def retrievability_sql(now_parameter: str = "?") -> str:
    """FSRS's retrievability of a reviewed card at a time, as SQL over ``card_memory``.

    Takes three parameters in order: factor, the time (stored form) and decay. Elapsed time
    counts whole days, as fsrs does.
    """
    return (
        "(CASE WHEN card_memory.stability > 0 AND card_memory.last_review IS NOT NULL THEN "
        f"pow(1 + ? * max(0, ({now_parameter} - card_memory.last_review) / {_DAY_MICROS}) "
        "/ card_memory.stability, ?) END)"
    )


def reps_sql() -> str:
    """How many times a card was answered, as SQL."""
    return (
        "(SELECT count(*) FROM review WHERE review.card_id = card_memory.card_id "
        f"AND review.kind = {_ANSWER})"
    )


def lapses_sql() -> str:
    """How many times a card in review was answered wrong (forgotten), as SQL."""
    return (
        "(SELECT count(*) FROM review WHERE review.card_id = card_memory.card_id "
        f"AND review.kind = {_ANSWER} AND review.rating = 1 "
        f"AND review.state_before = {int(CardState.REVIEW)})"
    )


def interval_days_sql() -> str:
    """A reviewed card's interval in whole days (last review to due), as SQL."""
    return (
        f"(CASE WHEN card_memory.state IN {_REVIEWED} THEN "
        f"round((card_memory.due - card_memory.last_review) * 1.0 / {_DAY_MICROS}) END)"
    )


class _Compiler:
    def __init__(self, context: SearchContext) -> None:
        self._context = context

    def compile(self, node: Node) -> Condition:
        sql, parameters = self._flat(_flattened(node, negated=False))
        return Condition(sql, tuple(parameters))

    def _flat(self, flat: _Term | _Group) -> tuple[str, list[object]]:
        if isinstance(flat, _Group):
            parts = [self._flat(member) for member in flat.members]
            joiner = " AND " if flat.every else " OR "
            return (
                "(" + joiner.join(sql for sql, _ in parts) + ")",
                [value for _, values in parts for value in values],
            )
        sql, parameters = self._node(flat.node)
        if flat.negated:
            # A NULL (a new card's due, say) counts as "not matched" on both sides: a term is
            # matched only where it is 1, and its negation everywhere else.
            return f"({sql}) IS NOT 1", parameters
        return sql, parameters

    def _node(self, node: Node) -> tuple[str, list[object]]:
        assert not isinstance(node, And | Or | Not), "flattened away"
        if isinstance(node, Text):
            return _text(node)
        if isinstance(node, InDeck):
            # The deck's cards from the card table's index by deck (which holds their ids),
            # so they are looked up in id order: through the schedules' index by deck they
            # came in queue order, each row looked up apart.
            return (
                "card_memory.card_id IN (SELECT id FROM card WHERE deck_id IN (SELECT id FROM "
                "deck WHERE name LIKE ? ESCAPE '\\' OR name LIKE ? ESCAPE '\\' "
                "OR key LIKE ? ESCAPE '\\'))",
                [node.pattern, node.pattern + "::%", node.pattern],
            )
        if isinstance(node, Tagged):
            if node.pattern.lower() == "none":
                return (
                    "NOT EXISTS (SELECT 1 FROM card_tag "
                    "WHERE card_tag.card_id = card_memory.card_id)",
                    [],
                )
            return (
                "card_memory.card_id IN (SELECT card_id FROM card_tag WHERE tag LIKE ? ESCAPE '\\' "
                "OR tag LIKE ? ESCAPE '\\')",
                [node.pattern, node.pattern + "::%"],
            )
        if isinstance(node, Is):
            return self._is(node.value)
        if isinstance(node, Flag):
            return "card.flag = ?", [node.value]
        if isinstance(node, CardIds):
            # One parameter however many ids: a selection of thousands stays under SQLite's
            # limit on parameters.
            return "card_memory.card_id IN (SELECT value FROM json_each(?))", [json.dumps(node.ids)]
        if isinstance(node, Prop):
            return self._prop(node)
        return self._days(node)

    def _is(self, value: str) -> tuple[str, list[object]]:
        now = micros(self._context.now)
        if value == "new":
            return f"card_memory.state = {int(CardState.NEW)}", []
        if value == "learn":
            return (
                f"card_memory.state IN ({int(CardState.LEARNING)}, {int(CardState.RELEARNING)})",
                [],
            )
        if value == "review":
            return (
                f"card_memory.state IN ({int(CardState.REVIEW)}, {int(CardState.RELEARNING)})",
                [],
            )
        if value == "due":
            return (
                f"(card_memory.state IN {_REVIEWED} AND card_memory.due < ? "
                "AND card_memory.suspended = 0 "
                "AND coalesce(card_memory.buried_until, 0) <= ?)",
                [micros(self._context.day_end), now],
            )
        if value == "suspended":
            return "card_memory.suspended = 1", []
        if value == "buried":
            return "coalesce(card_memory.buried_until, 0) > ?", [now]
        assert value == "leech"
        return "card_memory.card_id IN (SELECT card_id FROM card_tag WHERE tag = 'leech')", []

    def _prop(self, node: Prop) -> tuple[str, list[object]]:
        context = self._context
        parameters: list[object] = []
        if node.name == "ivl":
            return _interval(node)
        if node.name == "due":
            # Days from today's study day to the day the card is due (0 today, -1 overdue).
            delta = "(card_memory.due - ?)"
            expression = (
                f"(CASE WHEN card_memory.state IN {_REVIEWED} THEN "
                f"({delta} - (({delta} % {_DAY_MICROS}) + {_DAY_MICROS}) % {_DAY_MICROS}) "
                f"/ {_DAY_MICROS} END)"
            )
            start = micros(context.day_start)
            parameters += [start, start]
        elif node.name == "reps":
            expression = reps_sql()
        elif node.name == "lapses":
            expression = lapses_sql()
        elif node.name == "stability":
            expression = "card_memory.stability"
        elif node.name == "difficulty":
            expression = "card_memory.difficulty"
        else:
            expression = retrievability_sql()
            parameters += [context.factor, micros(context.now), context.decay]
        operator = "<>" if node.comparison == "!=" else node.comparison
        return f"({expression} {operator} ?)", [*parameters, node.value]

    def _days(self, node: Days) -> tuple[str, list[object]]:
        since = micros(self._context.day_start - timedelta(days=node.days - 1))
        if node.kind == "added":
            return "card.added_at >= ?", [since]
        if node.kind == "edited":
            return "card.updated_at >= ?", [since]
        condition = f"review.kind = {_ANSWER} AND review.reviewed_at >= ?"
        parameters: list[object] = [since]
        if node.kind == "missed":
            condition += " AND NOT review.correct"
        elif node.rating is not None:
            condition += " AND review.rating = ?"
            parameters.append(node.rating)
        return f"card_memory.card_id IN (SELECT card_id FROM review WHERE {condition})", parameters


# Past any difference of two stored times (year 1 to 9999 in microseconds, about 3.2e17).
_SPAN_LIMIT = 2**62


def _interval(node: Prop) -> tuple[str, list[object]]:
    """``prop:ivl`` as a range of the span from the last review to due, in microseconds.

    It matches the cards ``interval_days_sql`` compared with the number matches (a test holds
    the two equal at every boundary), but compares the span itself, found in the index by
    state and due, instead of working the whole days out per card (the walk of 100,000
    schedules: 22.5 ms rounding each, 12.7 ms comparing the span), and its term names the
    reviewed states, which the walk then seeks. The whole days round the span as SQLite's
    ``round`` does, which never falls as the span grows, so the spans whose days compare true
    are those from the least one whose days reach the number (or pass it) on, or those
    before it.
    """
    span = "(card_memory.due - card_memory.last_review)"
    reviewed = f"card_memory.state IN {_REVIEWED}"
    reached = _least_span(lambda days: days >= node.value)
    passed = _least_span(lambda days: days > node.value)
    comparison = node.comparison
    if comparison in (">=", ">"):
        return f"({reviewed} AND {span} >= ?)", [reached if comparison == ">=" else passed]
    if comparison in ("<", "<="):
        return f"({reviewed} AND {span} < ?)", [reached if comparison == "<" else passed]
    if comparison == "=":
        return f"({reviewed} AND {span} >= ? AND {span} < ?)", [reached, passed]
    return f"({reviewed} AND ({span} < ? OR {span} >= ?))", [reached, passed]


def _least_span(holds: Callable[[float], bool]) -> int:
    """The least span (microseconds) whose whole days ``holds`` is true of, the days rising
    with the span; one past ``_SPAN_LIMIT`` if none is."""
    low, high = -_SPAN_LIMIT, _SPAN_LIMIT + 1
    while low < high:
        middle = (low + high) // 2
        if holds(_whole_days(middle)):
            high = middle
        else:
            low = middle + 1
    return low


def _whole_days(span: int) -> float:
    """A span's whole days as ``interval_days_sql`` works them out in SQLite: the span times
    1.0 over a day's microseconds, rounded half away from zero by truncating (SQLite's
    ``round`` with no digits, for values that fit in 64 bits)."""
    days = span * 1.0 / _DAY_MICROS
    if days >= 0:
        return float(int(days + 0.5))
    return -float(int(-days + 0.5))


def _flattened(node: Node, negated: bool) -> _Term | _Group:
    """The query with negations moved down to its terms and same-kind groups merged.

    A term's NULL counts as false here as in SQL's WHERE, and a negated term is true for it;
    with that, ``-(a b)`` matches exactly what ``-a or -b`` does.
    """
    while isinstance(node, Not):
        node, negated = node.operand, not negated
    if not isinstance(node, And | Or):
        return _Term(node, negated)
    every = isinstance(node, And) != negated
    members: list[_Term | _Group] = []
    for operand in node.operands:
        member = _flattened(operand, negated)
        if isinstance(member, _Group) and member.every == every:
            members.extend(member.members)
        else:
            members.append(member)
    return _Group(every, tuple(members))


def _text(node: Text) -> tuple[str, list[object]]:
    if node.field is None:
        return "card.search_text LIKE ? ESCAPE '\\'", [node.pattern]
    if node.field in ("question", "front"):
        return (
            "coalesce(json_extract(card.content, '$.question'), "
            "json_extract(card.content, '$.front')) LIKE ? ESCAPE '\\'",
            [node.pattern],
        )
    if node.field == "back":
        return "json_extract(card.content, '$.back') LIKE ? ESCAPE '\\'", [node.pattern]
    return (
        "EXISTS (SELECT 1 FROM json_each(card.content, '$.choices') "
        "WHERE json_extract(value, '$.text') LIKE ? ESCAPE '\\')",
        [node.pattern],
    )


SORT_COLUMNS = (
    "question",
    "deck",
    "due",
    "interval",
    "stability",
    "retrievability",
    "reviews",
    "lapses",
    "last_answer",
    "tags",
    "added",
    "edited",
)


def sort_sql(column: str, descending: bool, context: SearchContext) -> Condition:
    """An ORDER BY expression for one of ``SORT_COLUMNS`` (cards without a value last).

    Raises:
        ValueError: ``column`` is not a sort column.
    """
    parameters: tuple[object, ...] = ()
    if column == "question":
        expression = (
            "coalesce(json_extract(card.content, '$.question'), "
            "json_extract(card.content, '$.front')) COLLATE NOCASE"
        )
    elif column == "deck":
        expression = "deck.name COLLATE NOCASE"
    elif column == "due":
        # New cards after the scheduled ones, in deck order, as Anki sorts them. A new
        # card's missing due sorts as a time past every real one (before every one, going
        # down): one key that tells nearly all cards apart, which sorts 90,000 matches in
        # about half the time of a first key (due IS NULL) equal for nearly all of them.
        if descending:
            expression = f"coalesce(card_memory.due, {-_NO_DUE}) DESC"
        else:
            expression = f"coalesce(card_memory.due, {_NO_DUE})"
        expression += ", card_memory.position"
    elif column == "interval":
        expression = interval_days_sql()
    elif column == "stability":
        expression = "card_memory.stability"
    elif column == "retrievability":
        expression = retrievability_sql()
        parameters = (context.factor, micros(context.now), context.decay)
    elif column == "reviews":
        expression = reps_sql()
    elif column == "lapses":
        expression = lapses_sql()
    elif column == "last_answer":
        expression = (
            "(SELECT correct FROM review WHERE review.card_id = card_memory.card_id "
            f"AND review.kind = {_ANSWER} ORDER BY review.id DESC LIMIT 1)"
        )
    elif column == "tags":
        expression = (
            "(SELECT group_concat(tag, ' ') FROM (SELECT tag FROM card_tag "
            "WHERE card_tag.card_id = card_memory.card_id ORDER BY tag)) COLLATE NOCASE"
        )
    elif column == "added":
        expression = "card.added_at"
    elif column == "edited":
        expression = "card.updated_at"
    else:
        raise ValueError(f"no sort column {column!r}")
    if column == "due":
        return Condition(expression, parameters)
    direction = " DESC" if descending else ""
    return Condition(f"({expression}) IS NULL, {expression}{direction}", parameters * 2)


def source(*conditions: Condition) -> str:
    """The FROM clause (without the word) that a search's condition and sort read.

    Every search reads ``card_memory``; ``card`` is joined only when a term reads the
    card's row (its texts, flag or times), ``deck`` only when the sort reads a deck's name.
    """
    text = " ".join(condition.sql for condition in conditions)
    tables = "card_memory"
    if _CARD_ROW.search(text):
        # Read along the cards' table, as their texts are: looking each row up from the
        # schedules' order would read the wide rows in no order.
        tables = "card JOIN card_memory ON card_memory.card_id = card.id"
    if _DECK_ROW.search(text):
        tables += " JOIN deck ON deck.id = card_memory.deck_id"
    return tables
