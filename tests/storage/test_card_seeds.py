"""Each card's seed: kept from its id by the upgrade, random and unique for new cards, and
what seeds the interval fuzz and names the card in ``export-reviews``, so two libraries
that numbered the same cards differently schedule and export them the same."""

from __future__ import annotations

import dataclasses
import io
import random
import sqlite3
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from recall.changes import editing
from recall.collection import importing, opening, review_log
from recall.content.deck_format import parse_deck
from recall.core.memory import CardState, Rating
from recall.core.presets import DEFAULT_PRESET_ID, Preset
from recall.safekeeping import integrity
from recall.scheduling import Scheduler, Schedulers
from recall.storage import Database
from recall.storage import cards as card_queries
from recall.storage.cards import SEED_LIMIT
from recall.storage.records import NewCard
from recall.study.session import StudySession
from tests.conftest import DATA, Clock
from tests.storage.test_migrations import AFTER_FIXTURE, copy_fixture

TINY = DATA / "decks" / "tiny.json"


def seeds_by_key(path: Path) -> dict[tuple[str, str], tuple[int, int]]:
    """(deck key, card key) -> (id, seed), read without Recall's code."""
    connection = sqlite3.connect(path)
    try:
        rows = connection.execute(
            "SELECT deck.key, card.key, card.id, card.seed FROM card JOIN deck "
            "ON deck.id = card.deck_id"
        ).fetchall()
    finally:
        connection.close()
    return {(deck, key): (card_id, seed) for deck, key, card_id, seed in rows}


def schedules(path: Path) -> dict[int, tuple[object, ...]]:
    connection = sqlite3.connect(path)
    try:
        rows = connection.execute(
            "SELECT card_id, deck_id, state, step, stability, difficulty, due, last_review, "
            "suspended, buried_until FROM card_memory ORDER BY card_id"
        ).fetchall()
    finally:
        connection.close()
    return {row[0]: row for row in rows}


def noted_cards(path: Path) -> set[int]:
    """The cards check must replay again (``verification``), read without Recall's code."""
    connection = sqlite3.connect(path)
    try:
        return {row[0] for row in connection.execute("SELECT card_id FROM replay_change")}
    finally:
        connection.close()


def test_a_seed_changed_outside_recall_is_noted_and_check_replays_its_card(
    bundled: Database, clock: Clock
) -> None:
    schedulers = Schedulers(fuzz=True)
    with bundled.transaction() as transaction:
        # Every due date the seeded fuzz draw's (none chosen by load balancing).
        transaction.options.save_preset(DEFAULT_PRESET_ID, Preset(load_balancing=False))
    study_days(bundled, "activation-recompute", clock(), 20)
    assert integrity.check(bundled, schedulers, clock() + timedelta(days=20)).healthy
    assert not noted_cards(bundled.path)
    with bundled.reading() as transaction:
        deck = transaction.decks.by_key("activation-recompute")
        assert deck is not None
        card = max(transaction.cards.of_deck(deck.id), key=lambda row: row.memory.stability or 0)
        history = transaction.history.of_card(card.id)
    card_id = card.id
    # A seed under which the card's last interval is fuzzed to another day.
    scheduler = Scheduler(fuzz=True)
    other = next(
        seed
        for seed in range(1, 1000)
        if integrity.replay(scheduler, dataclasses.replace(card, seed=seed), history) != card.memory
    )
    connection = sqlite3.connect(bundled.path)
    with connection:
        connection.execute("UPDATE card SET seed = ? WHERE id = ?", (other, card_id))
    connection.close()
    assert noted_cards(bundled.path) == {card_id}
    report = integrity.check(bundled, schedulers, clock() + timedelta(days=20))
    assert set(report.stale) == {card_id}


def import_tiny(database: Database, now: datetime) -> None:
    importing.import_deck(database, parse_deck(TINY.read_text(), "tiny.json"), now)


def test_the_upgrade_gives_every_card_its_id_as_seed_and_changes_no_schedule(
    tmp_path: Path,
) -> None:
    path = copy_fixture(tmp_path, DATA / "schema-10.sqlite3")
    before = schedules(path)
    noted = noted_cards(path)
    database = Database(path)
    cards = seeds_by_key(path)
    assert len(cards) > 5
    assert all(card_id == seed for card_id, seed in cards.values())
    assert schedules(path) == before
    assert noted_cards(path) == noted  # nothing for check to replay again
    schedulers = Schedulers(fuzz=True)
    opening.upgrade_schedules(database, AFTER_FIXTURE)  # as opening the library does
    assert integrity.check(database, schedulers, AFTER_FIXTURE).healthy

    # A card added afterwards gets a random seed, and studying it keeps check healthy.
    with database.reading() as transaction:
        deck = transaction.decks.by_key("tiny")
    assert deck is not None
    _, card_id = editing.add_card(
        database, deck, {"type": "basic", "front": "new", "back": "card"}, AFTER_FIXTURE
    )
    (seed,) = [seed for other, seed in seeds_by_key(path).values() if other == card_id]
    assert seed not in {seed for _, seed in cards.values()}
    assert 0 < seed < SEED_LIMIT
    assert integrity.check(database, schedulers, AFTER_FIXTURE).healthy
    database.close()


def test_new_cards_get_random_distinct_seeds_below_2_to_the_62(
    tmp_path: Path, clock: Clock
) -> None:
    first = Database(tmp_path / "one" / "recall.sqlite3")
    second = Database(tmp_path / "two" / "recall.sqlite3")
    for database in (first, second):
        opening.install_bundled_decks(database, clock())
        import_tiny(database, clock())
    ones, twos = seeds_by_key(first.path), seeds_by_key(second.path)
    assert ones.keys() == twos.keys()
    for cards in (ones, twos):
        seeds = [seed for _, seed in cards.values()]
        assert len(set(seeds)) == len(seeds)
        assert all(0 < seed < SEED_LIMIT for seed in seeds)
    # Drawn at random, not from the order the cards arrived in.
    assert all(ones[key][1] != twos[key][1] for key in ones)
    assert all(ones[key][0] == twos[key][0] for key in ones)
    first.close()
    second.close()


def test_a_drawn_seed_some_card_has_is_drawn_again(database: Database, clock: Clock) -> None:
    cards = [NewCard(f"c{index}", index, "basic", "{}") for index in range(3)]
    with database.transaction() as transaction:
        deck = transaction.decks.add("d", "D", "", clock())
        transaction.cards.add(deck.id, cards[:1], clock(), draw=lambda: 77)
        # 77 is taken, then 78 is drawn twice in one batch: each clash is drawn again.
        draws = iter([77, 78, 78, 77, 79])
        transaction.cards.add(deck.id, cards[1:], clock(), draw=lambda: next(draws))
        seeds = {card.key: card.seed for card in transaction.cards.of_deck(deck.id)}
    assert seeds == {"c0": 77, "c1": 78, "c2": 79}


def test_a_seed_given_with_the_card_is_kept(database: Database, clock: Clock) -> None:
    with database.transaction() as transaction:
        deck = transaction.decks.add("d", "D", "", clock())
        transaction.cards.add(deck.id, [NewCard("c", 0, "basic", "{}", seed=123)], clock())
        (card,) = transaction.cards.of_deck(deck.id)
    assert card.seed == 123


def study_days(database: Database, deck: str, start: datetime, days: int) -> None:
    """Study every card due each day, rating each by its key, the same on every deck_list."""
    session = StudySession(database, Schedulers(fuzz=True), deck, random.Random(5))
    for day in range(days):
        clock = start + timedelta(days=day)
        while (shown := session.next_card(clock)) is not None:
            clock += timedelta(seconds=7)
            answer = session.reveal(shown, clock)
            hard = shown.memory.state is CardState.REVIEW and len(shown.card.id) % 3 == 0
            rating = Rating.HARD if hard else Rating.GOOD
            session.record(answer, rating, clock)


def test_libraries_that_numbered_the_cards_differently_schedule_and_export_them_the_same(
    tmp_path: Path,
) -> None:
    start = datetime(2026, 3, 2, 8, 0, tzinfo=UTC)
    first = Database(tmp_path / "one" / "recall.sqlite3")
    opening.install_bundled_decks(first, start)
    import_tiny(first, start)
    second = Database(tmp_path / "two" / "recall.sqlite3")
    import_tiny(second, start)  # the other order: every card has another id
    opening.install_bundled_decks(second, start)
    ones = seeds_by_key(first.path)
    assert all(ones[key][0] != id_ for key, (id_, _) in seeds_by_key(second.path).items())
    # The seeds travel with the cards (as sync carries them); the ids stay as they were.
    connection = sqlite3.connect(second.path)
    with connection:
        connection.executemany(
            "UPDATE card SET seed = ? WHERE key = ? AND deck_id = "
            "(SELECT id FROM deck WHERE key = ?)",
            [(seed, key, deck) for (deck, key), (_, seed) in ones.items()],
        )
    connection.close()

    for database in (first, second):
        study_days(database, "activation-recompute", start, 40)
    exports = []
    for database in (first, second):
        out = io.StringIO()
        assert review_log.export_reviews(database, out) > 30
        exports.append(out.getvalue())
        assert integrity.check(database, Schedulers(fuzz=True), start + timedelta(days=40)).healthy
    assert exports[0] == exports[1]
    dues = []
    for database in (first, second):
        with database.reading() as transaction:
            deck = transaction.decks.by_key("activation-recompute")
            assert deck is not None
            cards = transaction.cards.of_deck(deck.id)
        dues.append({card.key: card.memory for card in cards})
    assert dues[0] == dues[1]
    # Long enough that fuzz spread the intervals: the seeds, not chance, made them equal.
    assert max(m.stability or 0 for m in dues[0].values()) > 10
    first.close()
    second.close()


@pytest.mark.parametrize("deck", [None, "tiny"])
def test_export_reviews_names_each_card_by_its_seed(
    tmp_path: Path, clock: Clock, deck: str | None
) -> None:
    database = Database(tmp_path / "recall.sqlite3")
    import_tiny(database, clock())
    opening.install_bundled_decks(database, clock())
    study_days(database, "tiny", clock(), 3)
    out = io.StringIO()
    review_log.export_reviews(database, out, deck)
    seeds = {seed for _, seed in seeds_by_key(database.path).values()}
    rows = out.getvalue().splitlines()[1:]
    assert rows
    assert {int(row.split(",")[0]) for row in rows} <= seeds
    database.close()


def test_cards_carried_over_from_before_seeds_are_found_and_given_new_ones(
    tmp_path: Path,
) -> None:
    database = Database(copy_fixture(tmp_path, DATA / "schema-10.sqlite3"))
    before = seeds_by_key(database.path)
    with database.transaction() as transaction:
        carried = transaction.cards.carried_over()
        assert sorted(carried) == sorted(card_id for card_id, _ in before.values())
        draws = iter([before[next(iter(before))][1], *range(10**12, 10**12 + len(carried))])
        transaction.cards.reseed(carried, draw=lambda: next(draws))
        assert transaction.cards.carried_over() == []
    after = seeds_by_key(database.path)
    assert sorted(seed for _, seed in after.values()) == list(range(10**12, 10**12 + len(carried)))
    database.close()


def test_seeds_drawn_at_once_take_62_bits_each_and_never_zero(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    words = [0, SEED_LIMIT, (1 << 64) - 1, 12345, SEED_LIMIT + 7]
    monkeypatch.setattr(
        "secrets.token_bytes",
        lambda size: b"".join(word.to_bytes(8, "little") for word in words[: size // 8]),
    )
    monkeypatch.setattr(card_queries, "random_seed", lambda: 99)
    assert card_queries.random_seeds(5) == [99, 99, SEED_LIMIT - 1, 12345, 7]


def test_cards_added_together_get_distinct_seeds_in_range(tmp_path: Path) -> None:
    database = Database(tmp_path / "recall.sqlite3")
    try:
        with database.transaction() as transaction:
            deck = transaction.decks.add("d", "D", "", datetime(2026, 1, 1, tzinfo=UTC))
            cards = [NewCard(f"c{index}", index, "basic", "{}") for index in range(2000)]
            transaction.cards.add(deck.id, cards, datetime(2026, 1, 1, tzinfo=UTC))
            seeds = [seed for (seed,) in transaction.sql.rows("SELECT seed FROM card", ())]
    finally:
        database.close()
    assert len(set(seeds)) == 2000
    assert all(0 < seed < SEED_LIMIT for seed in seeds)
