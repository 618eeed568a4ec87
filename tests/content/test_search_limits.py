"""Searches at and beyond the language's bounds: every query either runs or is refused in words.

Each refusal says what and at which column, through the browser's use case (``Finder``)
and through ``recall search``; a query within the bounds always runs in SQLite, however
deep, long or wide it is.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from recall.cli.main import main
from recall.collection import browse
from recall.content import search, search_tree
from recall.content.search import MAX_DEPTH, MAX_LENGTH, MAX_TERMS, SearchError
from recall.core.preferences import Preferences
from recall.scheduling import Scheduler
from recall.storage import Database, StorageError
from recall.storage.sql import StatementError
from tests.conftest import ZONE
from tests.helpers.collection import generate

NOW = datetime(2026, 3, 10, 9, 30, tzinfo=UTC)
# Terms whose SQL nests deepest or takes the most parameters, plain and negated.
HEAVY = (
    "prop:retrievability<0.5",
    "-prop:retrievability<0.5",
    "-prop:due>1",
    "-deck:x*",
    "choice:x",
    "-back:q",
    "-is:due",
    "rated:3:1",
    "-tag:a",
)


@pytest.fixture(scope="module")
def finder(tmp_path_factory: pytest.TempPathFactory) -> Iterator[browse.Finder]:
    database = Database(tmp_path_factory.mktemp("limits") / "recall.sqlite3")
    generate(database, Scheduler(fuzz=True), NOW)
    yield browse.Finder(database, Scheduler(fuzz=True), Preferences(), ZONE)
    database.close()


def _everything(finder: browse.Finder) -> set[int]:
    return set(finder.find("", NOW).card_ids)


REFUSED = [
    pytest.param(
        "(" * 1000 + "a" + ")" * 1000,
        f"parentheses nest more than {MAX_DEPTH} deep here at column {MAX_DEPTH + 1}",
        id="1000 nested parentheses",
    ),
    pytest.param(
        "(a or " * 150 + "b" + ")" * 150,
        f"parentheses nest more than {MAX_DEPTH} deep here at column {6 * MAX_DEPTH + 1}",
        id="150 nested or groups",
    ),
    pytest.param(
        "a or (" * 600 + "b" + ")" * 600,
        f"the search has more than {MAX_TERMS} terms; this is term {MAX_TERMS + 1} "
        f"at column {6 * MAX_TERMS + 1}",
        id="600 nested or groups",
    ),
    pytest.param(
        "a " * 3000,
        f"the search has more than {MAX_TERMS} terms; this is term {MAX_TERMS + 1} "
        f"at column {2 * MAX_TERMS + 1}",
        id="3000 terms",
    ),
    pytest.param(
        "*" * 50_000,
        f"the search is 50,000 characters long; at most {MAX_LENGTH:,} are read "
        f"at column {MAX_LENGTH + 1}",
        id="50000 stars",
    ),
    pytest.param(
        "abc\udcff",
        "the search holds the byte 0xff, which is not UTF-8 text at column 4",
        id="byte",
    ),
    pytest.param(
        "a \ud800 b",
        "the search holds U+D800, half of a character pair and not text by itself at column 3",
        id="lone surrogate",
    ),
]


@pytest.mark.parametrize(("query", "message"), REFUSED)
def test_a_query_beyond_the_bounds_is_refused_in_words(
    finder: browse.Finder, query: str, message: str
) -> None:
    with pytest.raises(SearchError) as caught:
        finder.find(query, NOW)
    assert str(caught.value) == message


@pytest.mark.parametrize(("query", "message"), REFUSED)
def test_recall_search_says_the_same_without_a_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], query: str, message: str
) -> None:
    status = main(["--data-dir", str(tmp_path), "search", "--", query])
    captured = capsys.readouterr()
    assert status == 1
    assert captured.err == f"recall: {message}\n"
    assert captured.out == ""


def test_a_byte_that_is_not_utf8_on_the_command_line_is_refused(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "recall", "--data-dir", str(tmp_path), "search", b"caf\xe9"],
        capture_output=True,
        check=False,
    )
    assert result.returncode == 1
    assert result.stderr == (
        b"recall: the search holds the byte 0xe9, which is not UTF-8 text at column 4\n"
    )


def test_a_run_of_minus_signs_is_one_negation_or_none(finder: browse.Finder) -> None:
    plain = set(finder.find("is:new", NOW).card_ids)
    assert set(finder.find("-" * 3000 + "is:new", NOW).card_ids) == plain
    assert set(finder.find("-" * 3001 + "is:new", NOW).card_ids) == _everything(finder) - plain
    assert search.parse("---a") == search_tree.Not(search_tree.Text("%a%"))


def test_a_run_of_stars_is_one_wildcard(finder: browse.Finder) -> None:
    assert search.parse("a" + "*" * 5000 + "b") == search_tree.Text("%a%b%")
    assert set(finder.find("*" * (MAX_LENGTH - 1), NOW).card_ids) == _everything(finder)


@pytest.mark.parametrize("inner", HEAVY)
@pytest.mark.parametrize("outer", HEAVY)
def test_the_deepest_query_allowed_runs(finder: browse.Finder, outer: str, inner: str) -> None:
    # Every level alternates `or` and `and`, so flattening cannot merge any of them.
    query = inner
    for _ in range(MAX_DEPTH):
        query = f"{outer} or {inner} ({query})"
    finder.find(query, NOW)
    with pytest.raises(SearchError, match=f"nest more than {MAX_DEPTH} deep"):
        finder.find(f"{outer} or {inner} ({query})", NOW)


def test_negated_groups_nested_as_deep_as_allowed_match_plain_logic(
    finder: browse.Finder,
) -> None:
    everything = _everything(finder)
    flagged = set(finder.find("flag:3", NOW).card_ids)
    missed = set(finder.find("missed:30", NOW).card_ids)
    query, expected = "is:review", set(finder.find("is:review", NOW).card_ids)
    for level in range(MAX_DEPTH // 2):
        # -(x or -(q)) is "not x, and q"; x alternates so that both sets narrow the result.
        other, other_set = ("flag:3", flagged) if level % 2 else ("missed:30", missed)
        query = f"-({other} or -({query}))"
        expected = (everything - other_set) & expected
    assert query.count("(") == MAX_DEPTH
    assert set(finder.find(query, NOW).card_ids) == expected
    assert 0 < len(expected) < len(set(finder.find("is:review", NOW).card_ids))


@pytest.mark.parametrize("sort", ["retrievability", "due"])
def test_the_most_terms_allowed_run_with_every_parameter(finder: browse.Finder, sort: str) -> None:
    query = " or ".join(["prop:retrievability<0.5", "-prop:due>1"] * (MAX_TERMS // 2))
    found = finder.find(query, NOW, sort)
    expected = set(finder.find("prop:retrievability<0.5 or -prop:due>1", NOW).card_ids)
    assert set(found.card_ids) == expected


@pytest.mark.parametrize("field", ["", "deck:", "tag:", "question:", "choice:"])
def test_the_longest_query_allowed_runs_whatever_its_characters(
    finder: browse.Finder, field: str
) -> None:
    # Four UTF-8 bytes each, and % escaped to two characters: the longest LIKE patterns.
    for char in ("\U0001f600", "%"):
        query = field + char * (MAX_LENGTH - len(field))
        assert finder.find(query, NOW).card_ids == ()


def test_sql_that_sqlite_refuses_is_a_bug_not_a_disk_problem(finder: browse.Finder) -> None:
    database: Database = finder._database
    with pytest.raises(StatementError) as caught, database.reading() as transaction:
        transaction.sql.rows("SELECT " + "(" * 200 + "1" + ")" * 200)
    assert not isinstance(caught.value, StorageError)
    assert "parser stack overflow" in str(caught.value)


_PIECES = 'ab :-()"*_\\'
_WORDS = ["or", "and", "deck:", "tag:", "prop:ivl>", "is:new", "%", "'", "--", "((", "))"]
_ODD = st.sampled_from(
    [*_PIECES, *_WORDS, "\udcff", "\ud800", "\x00", "\x1b[2J", "\n", "\U0001f600"]
)


@st.composite
def _hostile(draw: st.DrawFn) -> str:
    body = "".join(draw(st.lists(_ODD, max_size=40)))
    wraps = st.sampled_from(("({})", "-({})", "a or ({})", "-prop:due>1 ({})", "{}"))
    for wrap in draw(st.lists(wraps, max_size=3 * MAX_DEPTH)):
        body = wrap.format(body)
    return body[: 2 * MAX_LENGTH]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(query=_hostile())
def test_any_query_runs_or_raises_the_search_error(finder: browse.Finder, query: str) -> None:
    try:
        finder.find(query, NOW)
    except SearchError as error:
        column, message = error.column, str(error)
    else:
        return
    assert 1 <= column <= len(query) + 1
    assert f"at column {column}" in message
