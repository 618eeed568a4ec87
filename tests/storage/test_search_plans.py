"""Searches read only the tables they need, and find what the join of every table finds.

A search reads the schedules alone, joins the card's row only for a term on its texts,
flag or times, and reads new cards' positions for the sort by due beside their schedules
(kept equal to the card's by a trigger: the reference below reads the card's own).
Each query here must give the same ids in the same order as the join of card, schedule and
deck that searches ran before, on a collection with new, learning, review, suspended and
buried cards over nested decks, with cards due at the same instant so the position decides.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from recall.collection import browse
from recall.content import search
from recall.core.preferences import Preferences
from recall.scheduling import Scheduler
from recall.storage import Database, search_sql
from recall.storage.sql import StatementError
from tests.conftest import ZONE
from tests.helpers.collection import generate

NOW = datetime(2026, 3, 10, 9, 30, tzinfo=UTC)
QUERIES = (
    "",
    "deck:Spanish",
    "deck:Math::*",
    "-deck:Mathematics",
    "is:due",
    "is:new",
    "is:learn",
    "is:review",
    "is:suspended",
    "is:buried",
    "is:leech",
    "tag:verb",
    "tag:none",
    "prop:ivl>=10",
    "prop:due<=3",
    "prop:reps>2",
    "prop:lapses>=1",
    "prop:stability>5",
    "prop:retrievability<0.9",
    "rated:7",
    "rated:30:1",
    "missed:30",
    "flag:1",
    "added:400",
    "edited:100",
    "apple",
    "back:*a*",
    "(is:due or tag:verb) -rated:7",
    "deck:Spanish (prop:ivl>=3 or is:new) -is:suspended",
)
# What every search joined before it read the tables it needs alone.
_EVERY_TABLE = (
    "card JOIN card_memory ON card_memory.card_id = card.id JOIN deck ON deck.id = card.deck_id"
)


@pytest.fixture(scope="module")
def finder(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Database, browse.Finder]]:
    path = tmp_path_factory.mktemp("plans") / "recall.sqlite3"
    database = Database(path)
    generate(database, Scheduler(fuzz=True), NOW)
    connection = sqlite3.connect(path)
    # Cards due at the same instant (as a due date set on many cards at once leaves them):
    # the sort by due orders them by their position in the deck, then by id.
    with connection:
        connection.execute(
            "UPDATE card_memory SET due = (SELECT min(due) FROM card_memory WHERE state = 2) "
            "WHERE state = 2 AND card_id % 5 = 0"
        )
    connection.close()
    yield database, browse.Finder(database, Scheduler(), Preferences(), ZONE)
    database.close()


def _before(
    database: Database, finder: browse.Finder, query: str, sort: str, descending: bool
) -> list[int]:
    context = finder.context(NOW)
    condition = search_sql.compile_query(search.parse(query), context)
    order = search_sql.sort_sql(sort, descending, context)
    if sort == "due":  # as it was written before
        direction = " DESC" if descending else ""
        order = search_sql.Condition(
            f"card_memory.due IS NULL, card_memory.due{direction}, card.position", ()
        )
    connection = sqlite3.connect(database.path)
    try:
        rows = connection.execute(
            f"SELECT card.id FROM {_EVERY_TABLE} WHERE {condition.sql} "
            f"ORDER BY {order.sql}, card.id",
            [*condition.parameters, *order.parameters],
        ).fetchall()
    finally:
        connection.close()
    return [row[0] for row in rows]


@pytest.mark.parametrize("query", QUERIES)
def test_each_search_finds_what_the_join_of_every_table_found(
    finder: tuple[Database, browse.Finder], query: str
) -> None:
    database, found = finder
    for sort in ("due", "deck", "stability", "question"):
        for descending in (False, True):
            ids = list(found.find(query, NOW, sort, descending).card_ids)
            assert ids == _before(database, found, query, sort, descending), (sort, descending)


def test_the_collection_holds_every_kind_of_card(finder: tuple[Database, browse.Finder]) -> None:
    _, found = finder
    for query in ("is:new", "is:learn", "is:review", "is:suspended", "is:buried", "is:due"):
        assert found.find(query, NOW).card_ids, query
    decks = {row.deck_name for row in found.rows(found.find("", NOW).card_ids)}
    assert len(decks) == 6


def test_cards_due_at_one_instant_come_in_deck_order(
    finder: tuple[Database, browse.Finder],
) -> None:
    database, found = finder
    ids = list(found.find("is:review", NOW).card_ids)
    connection = sqlite3.connect(database.path)
    try:
        keys = {
            card_id: (due, position, card_id)
            for card_id, due, position in connection.execute(
                "SELECT card.id, due, card.position FROM card JOIN card_memory ON card_id = card.id"
            )
        }
    finally:
        connection.close()
    assert ids == sorted(ids, key=keys.__getitem__)
    dues = [keys[card_id][0] for card_id in ids]
    assert len(dues) - len(set(dues)) >= 5  # ties the position decides


@pytest.mark.parametrize("query", ["", "prop:ivl>=1", "prop:ivl<=400", "rated:7", "is:new"])
def test_the_sort_by_due_puts_ties_in_deck_order_and_new_cards_last(
    finder: tuple[Database, browse.Finder], query: str
) -> None:
    database, found = finder
    connection = sqlite3.connect(database.path)
    try:
        keys = {
            card_id: (due is None, due or 0, position, card_id)
            for card_id, due, position in connection.execute(
                "SELECT card.id, due, card.position FROM card JOIN card_memory ON card_id = card.id"
            )
        }
    finally:
        connection.close()
    ids = list(found.find(query, NOW).card_ids)
    assert ids == sorted(ids, key=keys.__getitem__)
    assert list(found.find(query, NOW, descending=True).card_ids) == sorted(
        ids, key=lambda card_id: (keys[card_id][0], -keys[card_id][1], keys[card_id][2:])
    )
    # The ties the sort must break are there: scheduled cards due at one instant, and new
    # cards at one position in different decks (the id decides between those).
    scheduled = [keys[card_id][1] for card_id in ids if not keys[card_id][0]]
    new = [keys[card_id][2] for card_id in ids if keys[card_id][0]]
    if query != "is:new":
        assert len(scheduled) - len(set(scheduled)) >= 5, query
    if query in ("", "is:new"):
        assert len(new) - len(set(new)) >= 5, query


def _plan(database: Database, query: str, sort: str = "due") -> str:
    connection = sqlite3.connect(database.path)
    finder = browse.Finder(database, Scheduler(), Preferences(), ZONE)
    context = finder.context(NOW)
    condition = search_sql.compile_query(search.parse(query), context)
    order = search_sql.sort_sql(sort, False, context)
    try:
        rows = connection.execute(
            f"EXPLAIN QUERY PLAN SELECT card_memory.card_id FROM "
            f"{search_sql.source(condition, order)} WHERE {condition.sql} "
            f"ORDER BY {order.sql}, card_memory.card_id",
            [*condition.parameters, *order.parameters],
        ).fetchall()
    finally:
        connection.close()
    return " | ".join(str(row[3]) for row in rows)


@pytest.mark.parametrize("query", ["", "deck:Spanish", "prop:ivl>=10", "rated:7", "is:due"])
def test_a_search_on_schedules_never_reads_the_card_row(
    finder: tuple[Database, browse.Finder], query: str
) -> None:
    database, _ = finder
    plan = _plan(database, query)
    # The deck's cards come from the card table's index by deck, which holds their ids.
    reads = [step for step in plan.split(" | ") if re.match(r"(SCAN|SEARCH) card\b", step)]
    assert all("COVERING INDEX ix_card_deck_" in step for step in reads), plan
    assert bool(reads) == query.startswith("deck:"), plan
    # The deck table is read only by the subquery that finds the decks a name matches.
    assert not re.search(r"SEARCH deck USING INTEGER PRIMARY KEY", plan), plan


def test_a_search_on_texts_reads_the_card_row(finder: tuple[Database, browse.Finder]) -> None:
    database, _ = finder
    assert re.search(r"(SCAN|SEARCH) card\b", _plan(database, "apple"))
    assert "deck" in search_sql.source(search_sql.sort_sql("deck", False, _context(database)))


def _context(database: Database) -> search_sql.SearchContext:
    return browse.Finder(database, Scheduler(), Preferences(), ZONE).context(NOW)


def _positions_apart(database: Database) -> list[tuple[int, int, int | None]]:
    connection = sqlite3.connect(database.path)
    try:
        return connection.execute(
            "SELECT card.id, card.position, card_memory.position FROM card "
            "JOIN card_memory ON card_memory.card_id = card.id "
            "WHERE card_memory.position IS NOT card.position"
        ).fetchall()
    finally:
        connection.close()


def test_each_card_position_stays_beside_its_schedule(tmp_path: Path) -> None:
    database = Database(tmp_path / "recall.sqlite3")
    try:
        generate(database, Scheduler(fuzz=True), NOW)  # imported: inserted with it
        assert _positions_apart(database) == []
        with database.transaction() as transaction:
            deck = transaction.decks.by_key("spanish")
            assert deck is not None
            cards = transaction.cards.of_deck(deck.id)
            transaction.cards.set_positions(
                (card.id, len(cards) - index) for index, card in enumerate(cards)
            )
            columns = dict(next(iter(transaction.sync_local.all_cards()))[2])
            columns["position"] = 777
            added = transaction.sync_local.add_card(deck.id, "from-sync", columns, NOW)
        connection = sqlite3.connect(database.path)
        with connection:  # a change through SQLite by another program is followed too
            connection.execute("UPDATE card SET position = position + 1000 WHERE id % 3 = 0")
        connection.close()
        assert _positions_apart(database) == []
        with database.reading() as transaction:
            assert transaction.cards.get(added).position == 777
    finally:
        database.close()


@pytest.mark.parametrize("query", ["prop:ivl>=10", "prop:ivl<3 prop:due<=3"])
def test_a_search_by_interval_walks_the_index_by_state_and_due_alone(
    finder: tuple[Database, browse.Finder], query: str
) -> None:
    database, _ = finder
    # The interval (due and last review) and the sort by due (due, position) come from the
    # index's entries: no schedule row is read. The interval's own term names the states a
    # reviewed card has, so the walk seeks them and skips the new cards.
    plan = _plan(database, query)
    assert re.search(
        r"(SCAN|SEARCH) card_memory USING COVERING INDEX ix_card_memory_state_due", plan
    ), plan
    if query == "prop:ivl>=10":
        assert "ix_card_memory_state_due (state=?)" in plan, plan
    assert not re.search(r"(SCAN|SEARCH) card_memory\b(?! USING COVERING)", plan), plan


def test_a_search_keeps_its_larger_cache_on_the_connection(
    finder: tuple[Database, browse.Finder],
) -> None:
    database, found = finder
    context = _context(database)

    def search_with_cache(size: int) -> int:
        with database.reading() as transaction:
            transaction.sql.rows(f"PRAGMA cache_size = {size}")
            ids = transaction.browsing.search(
                search_sql.compile_query(search.parse("prop:ivl>=10"), context),
                search_sql.sort_sql("due", False, context),
            )
            ((after,),) = transaction.sql.rows("PRAGMA cache_size")
        assert tuple(ids) == found.find("prop:ivl>=10", NOW).card_ids
        return int(after)

    # Raised from SQLite's default and kept, so the next search finds its pages in memory.
    assert search_with_cache(-2000) == -8192
    # A larger cache is left alone, in KiB (negative) or in pages of 4 KiB (positive).
    assert search_with_cache(-20000) == -20000
    assert search_with_cache(4096) == 4096
    assert search_with_cache(100) == -8192
    with database.reading() as transaction, pytest.raises(StatementError):
        transaction.browsing.search(
            search_sql.Condition("no_such_column = 1", ()),
            search_sql.sort_sql("due", False, context),
        )
