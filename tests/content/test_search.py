"""The search language: parsing, errors with a column, and every operator against plain Python."""

from __future__ import annotations

import json
import re
import sqlite3
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from recall.collection import browse
from recall.content import search, search_tree
from recall.content.search import SearchError
from recall.core import days
from recall.core.preferences import Preferences
from recall.scheduling import Scheduler
from recall.storage import Database, search_sql
from recall.storage.times import from_micros
from tests.conftest import ZONE
from tests.helpers.collection import generate

NOW = datetime(2026, 3, 10, 9, 30, tzinfo=UTC)
DAY = timedelta(days=1)


@dataclass(frozen=True)
class Model:
    """One card as plain Python sees it, read from the tables without Recall's code."""

    id: int
    deck: str
    deck_key: str
    content: dict[str, object]
    tags: tuple[str, ...]
    state: int
    due: datetime | None
    last_review: datetime | None
    stability: float | None
    difficulty: float | None
    suspended: bool
    buried_until: datetime | None
    flag: int
    added: datetime
    edited: datetime
    reviews: tuple[tuple[datetime, int, bool, int], ...]  # time, rating, correct, state before

    def text(self) -> str:
        """Every text of the card in one, as plain words search them (``*`` may span two)."""
        return "\n".join(self.texts())

    def texts(self) -> list[str]:
        content = self.content
        out = [str(content.get(name, "")) for name in ("question", "front", "back")]
        out += [str(content.get("explanation", "")), str(content.get("source", ""))]
        for choice in content.get("choices", []):  # type: ignore[attr-defined]
            out += [choice["text"], choice.get("why", "")]
        return out


@pytest.fixture(scope="module")
def collection(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Database, list[Model]]]:
    path = tmp_path_factory.mktemp("search") / "recall.sqlite3"
    database = Database(path)
    generate(database, Scheduler(fuzz=True), NOW)
    yield database, _models(path)
    database.close()


def _models(path: Path) -> list[Model]:
    connection = sqlite3.connect(path)
    reviews: dict[int, list[tuple[datetime, int, bool, int]]] = {}
    for card_id, at, rating, correct, before in connection.execute(
        "SELECT card_id, reviewed_at, rating, correct, state_before FROM review WHERE kind = 0"
    ):
        moment = from_micros(at)
        assert moment is not None
        reviews.setdefault(card_id, []).append((moment, rating, bool(correct), before))
    models = []
    for row in connection.execute(
        "SELECT card.id, deck.name, deck.key, card.content, state, due, last_review, stability, "
        "difficulty, suspended, buried_until, flag, card.added_at, card.updated_at FROM card "
        "JOIN card_memory ON card_id = card.id JOIN deck ON deck.id = card.deck_id"
    ):
        content = json.loads(row[3])
        added, edited = from_micros(row[12]), from_micros(row[13])
        assert added is not None
        assert edited is not None
        models.append(
            Model(
                id=row[0],
                deck=row[1],
                deck_key=row[2],
                content=content,
                tags=tuple(content.get("tags", [])),
                state=row[4],
                due=from_micros(row[5]),
                last_review=from_micros(row[6]),
                stability=row[7],
                difficulty=row[8],
                suspended=bool(row[9]),
                buried_until=from_micros(row[10]),
                flag=row[11],
                added=added,
                edited=edited,
                reviews=tuple(reviews.get(row[0], [])),
            )
        )
    connection.close()
    return models


def _finder(database: Database) -> browse.Finder:
    return browse.Finder(database, Scheduler(fuzz=True), Preferences(), ZONE)


def _like(pattern: str) -> re.Pattern[str]:
    """An SQL LIKE pattern (backslash escapes) as a regular expression, ASCII case-insensitive."""
    out = []
    index = 0
    while index < len(pattern):
        char = pattern[index]
        if char == "\\":
            out.append(re.escape(pattern[index + 1]))
            index += 2
            continue
        out.append(".*" if char == "%" else "." if char == "_" else re.escape(char))
        index += 1
    return re.compile("".join(out), re.IGNORECASE | re.ASCII | re.DOTALL)


def _matches(pattern: str, text: str) -> bool:
    return _like(pattern).fullmatch(text) is not None


def _day_start() -> datetime:
    return days.study_day(NOW, Preferences().day_rollover_hour, ZONE)[0]


def _retrievability(card: Model) -> float | None:
    if card.last_review is None or not card.stability:
        return None
    decay, factor = Scheduler().forgetting_curve()
    elapsed = max(0, (NOW - card.last_review).days)
    return float((1 + factor * elapsed / card.stability) ** decay)


def _prop_value(card: Model, name: str) -> float | None:
    reviewed = card.state != 0
    if name == "ivl":
        if not reviewed or card.due is None or card.last_review is None:
            return None
        return float(round((card.due - card.last_review) / DAY))
    if name == "due":
        if not reviewed or card.due is None:
            return None
        return float((card.due - _day_start()) // DAY)
    if name == "reps":
        return float(len(card.reviews))
    if name == "lapses":
        return float(sum(1 for _, rating, _, before in card.reviews if rating == 1 and before == 2))
    if name == "stability":
        return card.stability
    if name == "difficulty":
        return card.difficulty
    return _retrievability(card)


_COMPARE: dict[str, Callable[[float, float], bool]] = {
    "<": lambda a, b: a < b,
    ">": lambda a, b: a > b,
    "<=": lambda a, b: a <= b,
    ">=": lambda a, b: a >= b,
    "=": lambda a, b: a == b,
    "!=": lambda a, b: a != b,
}


def _since(days: int) -> datetime:
    return _day_start() - (days - 1) * DAY


# Each atom: the query text and what plain Python says it matches.
ATOMS: dict[str, Callable[[Model], bool]] = {
    "apple": lambda c: _matches("%apple%", c.text()),
    "RIVER": lambda c: _matches("%river%", c.text()),
    '"stone cloud"': lambda c: _matches("%stone cloud%", c.text()),
    "p*o": lambda c: _matches("%p%o%", c.text()),
    "l_mon": lambda c: _matches("%l_mon%", c.text()),
    "question:apple": lambda c: _matches(
        "apple", str(c.content.get("question", c.content.get("front", "")))
    ),
    "question:*tiger*": lambda c: _matches(
        "%tiger%", str(c.content.get("question", c.content.get("front", "")))
    ),
    "front:*salt*": lambda c: _matches(
        "%salt%", str(c.content.get("question", c.content.get("front", "")))
    ),
    "back:*mango*": lambda c: _matches("%mango%", str(c.content.get("back", ""))),
    "choice:*amber*": lambda c: any(
        _matches("%amber%", choice["text"])
        for choice in c.content.get("choices", [])  # type: ignore[attr-defined]
    ),
    "deck:Spanish": lambda c: c.deck == "Spanish" or c.deck.startswith("Spanish::"),
    '"deck:spanish::verbs"': lambda c: c.deck.lower().startswith("spanish::verbs"),
    "deck:math": lambda c: c.deck in ("Math", "Math::Algebra"),
    "deck:math*": lambda c: c.deck.startswith("Math"),
    "deck:mathematics": lambda c: c.deck == "Mathematics",
    "tag:verb": lambda c: any(t == "verb" or t.startswith("verb::") for t in c.tags),
    "tag:verb::irregular": lambda c: "verb::irregular" in c.tags,
    "tag:mixed": lambda c: "Mixed" in c.tags,
    "tag:none": lambda c: not c.tags,
    "is:new": lambda c: c.state == 0,
    "is:learn": lambda c: c.state in (1, 3),
    "is:review": lambda c: c.state in (2, 3),
    "is:due": lambda c: (
        c.state != 0
        and c.due is not None
        and c.due < _day_start() + DAY
        and not c.suspended
        and not (c.buried_until is not None and c.buried_until > NOW)
    ),
    "is:suspended": lambda c: c.suspended,
    "is:buried": lambda c: c.buried_until is not None and c.buried_until > NOW,
    "is:leech": lambda c: "leech" in c.tags,
    "flag:0": lambda c: c.flag == 0,
    "flag:3": lambda c: c.flag == 3,
    "flag:7": lambda c: c.flag == 7,
    "rated:1": lambda c: any(at >= _since(1) for at, _, _, _ in c.reviews),
    "rated:7": lambda c: any(at >= _since(7) for at, _, _, _ in c.reviews),
    "rated:7:1": lambda c: any(at >= _since(7) and r == 1 for at, r, _, _ in c.reviews),
    "missed:10": lambda c: any(at >= _since(10) and not ok for at, _, ok, _ in c.reviews),
    "added:5": lambda c: c.added >= _since(5),
    "edited:3": lambda c: c.edited >= _since(3),
    "cid:2,5,5,9,999999": lambda c: c.id in (2, 5, 9),
    "cid:7": lambda c: c.id == 7,
}
for _name, _op, _value in (
    ("ivl", ">=", 10),
    ("ivl", "<", 3),
    ("due", "<=", 0),
    ("due", ">", 2),
    ("reps", ">", 3),
    ("reps", "=", 1),
    ("lapses", ">=", 1),
    ("stability", "<", 2.5),
    ("difficulty", ">", 6),
    ("retrievability", "<", 0.9),  # below what the generated histories leave most cards at
    ("retrievability", "!=", 1),
):

    def _atom(card: Model, name: str = _name, op: str = _op, value: float = _value) -> bool:
        found = _prop_value(card, name)
        return found is not None and _COMPARE[op](found, value)

    ATOMS[f"prop:{_name}{_op}{_value}"] = _atom


def _sql(database: Database, query: str) -> set[int]:
    return set(_finder(database).find(query, NOW).card_ids)


@pytest.mark.parametrize("atom", sorted(ATOMS))
def test_each_operator_matches_what_plain_python_finds(
    collection: tuple[Database, list[Model]], atom: str
) -> None:
    database, models = collection
    expected = {card.id for card in models if ATOMS[atom](card)}
    assert _sql(database, atom) == expected
    # Negation finds the rest, whatever the operand does with missing values.
    assert _sql(database, f"-{atom}") == {card.id for card in models} - expected


def test_the_generated_collection_exercises_every_operator(
    collection: tuple[Database, list[Model]],
) -> None:
    _, models = collection
    for atom, predicate in ATOMS.items():
        matched = sum(1 for card in models if predicate(card))
        assert 0 < matched < len(models), atom


@st.composite
def _queries(draw: st.DrawFn, depth: int = 0) -> tuple[str, Callable[[Model], bool]]:
    if depth >= 2 or draw(st.booleans()):
        atom = draw(st.sampled_from(sorted(ATOMS)))
        return atom, ATOMS[atom]
    kind = draw(st.sampled_from(("and", "or", "not", "and-word")))
    left, left_match = draw(_queries(depth + 1))
    if kind == "not":
        return f"-({left})", lambda c: not left_match(c)
    right, right_match = draw(_queries(depth + 1))
    if kind == "or":
        return f"({left} or {right})", lambda c: left_match(c) or right_match(c)
    joiner = " and " if kind == "and-word" else " "
    return f"({left}){joiner}({right})", lambda c: left_match(c) and right_match(c)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(query=_queries())
def test_combined_queries_match_plain_python(
    collection: tuple[Database, list[Model]], query: tuple[str, Callable[[Model], bool]]
) -> None:
    database, models = collection
    text, predicate = query
    assert _sql(database, text) == {card.id for card in models if predicate(card)}


def test_or_binds_looser_than_and(collection: tuple[Database, list[Model]]) -> None:
    database, _ = collection
    assert _sql(database, "apple river or stone") == _sql(database, "(apple river) or stone")
    assert _sql(database, "apple OR river") == _sql(database, "apple") | _sql(database, "river")


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=st.text(alphabet=st.sampled_from('ab :-()"*_\\oOrRisdeckflagprop<=>1.'), max_size=30))
def test_any_text_parses_and_runs_or_fails_with_a_column(
    collection: tuple[Database, list[Model]], text: str
) -> None:
    database, _ = collection
    try:
        search.parse(text)
    except SearchError as error:
        column = error.column
        message = str(error)
    else:
        _finder(database).find(text, NOW)
        return
    assert 1 <= column <= len(text) + 1
    assert f"at column {column}" in message


@settings(max_examples=300, deadline=None)
@given(text=st.text(max_size=40))
def test_any_unicode_text_parses_or_fails_with_a_column(text: str) -> None:
    try:
        search.parse(text)
    except SearchError as error:
        column = error.column
    else:
        return
    assert 1 <= column <= len(text) + 1


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ("is:dew", "unknown `is:` value 'dew' at column 4; expected one of new, learn, review"),
        ("apple (river", "this '(' is never closed at column 7"),
        ("apple)", "')' closes nothing at column 6"),
        ('"open quote', 'this quote is never closed (add a closing ") at column 1'),
        ("apple or", "'or' needs a search on each side at column 7"),
        ("or apple", "'or' needs a search on each side at column 1"),
        ("colour:red", "unknown search field 'colour' at column 1; expected one of question"),
        ("deck:", "'deck:' needs a value after it at column 1"),
        ("flag:9", "'flag:9' is not a flag; use 1 to 7, or 0 for no flag at column 6"),
        ("prop:ivl~3", "'prop:ivl~3' needs a property, a comparison and a number"),
        ("prop:size>3", "unknown property 'size' at column 6"),
        ("prop:ivl>=ten", "'ten' is not a number (in prop:ivl>=ten) at column 11"),
        ("rated:0", "'rated:' takes 1 to 36500 days, not 0 at column 7"),
        ("rated:3:5", "'5' is not a rating; use 1 (again) to 4 (easy) at column 9"),
        ("missed:2:1", "'missed:2:1' needs a number of days, like missed:7 at column 8"),
        ("()", "'()' holds no search at column 1"),
        ("apple -", "'-' needs a search after it at column 7"),
        ('""', '"" holds nothing to search for at column 1'),
        ("cid:12,x", "'cid:12,x' needs card ids separated by commas, like cid:12,40 at column 5"),
        ("cid:12,", "'cid:12,' needs card ids separated by commas"),
    ],
)
def test_errors_say_what_and_where(query: str, message: str) -> None:
    with pytest.raises(SearchError) as caught:
        search.parse(query)
    assert str(caught.value).startswith(message)


def test_cid_finds_a_selection_of_thousands_of_cards_in_one_parameter(
    collection: tuple[Database, list[Model]],
) -> None:
    database, models = collection
    ids = [card.id for card in models]
    # Far more ids than the 999 parameters older SQLite builds take, most of them unused.
    term = search.card_ids_term([*ids, *range(10**5, 10**5 + 1100)])
    assert _sql(database, term) == set(ids)
    condition = search_sql.compile_query(search.parse(term), _finder(database).context(NOW))
    assert len(condition.parameters) == 1
    assert _sql(database, f"{search.card_ids_term(ids[:4])} -cid:{ids[0]}") == set(ids[1:4])


def test_quoted_text_with_a_colon_is_text_and_escapes_are_literal() -> None:
    assert search.parse('"note: this"') == search_tree.Text("%note: this%")
    assert search.parse("a\\*b") == search_tree.Text("%a*b%")
    assert search.parse("100%") == search_tree.Text("%100\\%%")
    assert search.parse("well-known") == search_tree.Text("%well-known%")


def test_values_never_enter_the_sql_text(collection: tuple[Database, list[Model]]) -> None:
    database, _ = collection
    finder = _finder(database)
    condition = search_sql.compile_query(
        search.parse('\'; DROP TABLE card; -- deck:"x\'y" tag:"a b"'), finder.context(NOW)
    )
    assert "DROP" not in condition.sql
    assert "x'y" not in condition.sql
    assert finder.find("'; DROP TABLE card; x", NOW).card_ids == ()


def test_sorting_by_each_column_orders_the_same_cards(
    collection: tuple[Database, list[Model]],
) -> None:
    database, models = collection
    finder = _finder(database)
    everything = {card.id for card in models}
    for column in search_sql.SORT_COLUMNS:
        for descending in (False, True):
            ids = finder.find("", NOW, column, descending).card_ids
            assert set(ids) == everything, column
            assert len(ids) == len(everything), column
    by_due = [row.memory.due for row in finder.rows(finder.find("is:review", NOW).card_ids)]
    assert by_due == sorted(by_due)  # type: ignore[type-var]
    by_lapses = finder.rows(finder.find("", NOW, "lapses", descending=True).card_ids)
    assert [row.lapses for row in by_lapses] == sorted((r.lapses for r in by_lapses), reverse=True)


@settings(max_examples=300, deadline=None)
@given(name=st.text(min_size=1, max_size=30))
def test_a_quoted_deck_name_or_tag_searches_for_exactly_that_text(name: str) -> None:
    escaped = search.like_escape(name)
    assert search.parse(f"deck:{search.quote(name)}") == search_tree.InDeck(escaped)
    assert search.parse(f"tag:{search.quote(name)}") == search_tree.Tagged(escaped)
