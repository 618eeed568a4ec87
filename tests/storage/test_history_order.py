"""The same history gives the same schedule however it arrived; reviews from the future
are left out of an import with a note, and ``check --repair`` sets stored ones aside."""

from __future__ import annotations

import json
import shutil
import sqlite3
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from recall.changes.cards import Changes
from recall.cli.main import main
from recall.collection.importing import import_deck, import_files
from recall.content.deck_format import parse_deck
from recall.core.memory import CardState, Rating, ReviewKind
from recall.core.preferences import Preferences
from recall.safekeeping import integrity
from recall.safekeeping import repair as upkeep
from recall.scheduling import Schedulers
from recall.storage import Database
from recall.study.session import StudySession
from tests.conftest import Clock, answer_cards
from tests.helpers.anki_packages import FRENCH_ID, add_reviews, build_package, card_ids

DAY = 86_400_000
START = 1_700_000_000_000  # November 2023, in Anki's milliseconds


def schedules(database: Database) -> dict[str, object]:
    with database.reading() as transaction:
        return {card.key: card.memory for card, _ in transaction.history.per_card()}


def package_with(tmp_path: Path, name: str, rows: list[tuple[int, int]]) -> Path:
    """The test package with reviews (time offset in days, ease) on one French card.

    Every copy comes from one built package, so the card ids are the same in all of them.
    """
    built = tmp_path / "built" / "deck.apkg"
    if not built.exists():
        built.parent.mkdir()
        build_package(built.parent)
    package = tmp_path / f"{name}.apkg"
    shutil.copyfile(built, package)
    card = card_ids(package)[("chien", 0)]
    add_reviews(package, [(START + days * DAY, card, ease, 5_000, 1) for days, ease in rows])
    return package


def test_a_reimport_that_gained_an_older_review_equals_a_fresh_import(
    tmp_path: Path, clock: Clock
) -> None:
    # Fuzz off: each database gives the imported card a random seed of its own, and the
    # seed moves a fuzzed due date by a day or so.
    scheduler = Schedulers(fuzz=False)
    first = package_with(tmp_path, "first", [(2, 3), (5, 3), (12, 2)])
    grown = package_with(tmp_path, "grown", [(0, 1), (2, 3), (5, 3), (12, 2)])

    twice = Database(tmp_path / "twice" / "recall.sqlite3")
    import_files(twice, scheduler, [first], clock())
    import_files(twice, scheduler, [grown], clock())
    fresh = Database(tmp_path / "fresh" / "recall.sqlite3")
    import_files(fresh, scheduler, [grown], clock())

    assert schedules(twice) == schedules(fresh)
    assert integrity.check(twice, scheduler, clock()).healthy
    twice.close()
    fresh.close()


def test_reviews_from_the_future_are_left_out_of_an_import_with_a_note(
    tmp_path: Path, clock: Clock
) -> None:
    in_2100 = (datetime(2100, 1, 1, tzinfo=UTC).timestamp() * 1000 - START) // DAY
    package = package_with(tmp_path, "future", [(0, 3), (int(in_2100), 3)])
    database = Database(tmp_path / "data" / "recall.sqlite3")
    (report,) = import_files(database, Schedulers(), [package], clock())
    assert sum(deck.reviews for deck in report.decks) == 1
    (note,) = [note for note in report.notes if "dated after now" in note]
    assert "2099-12-31" in note
    assert note.startswith("1 review dated after now")
    assert " UTC) was left out: " in note
    assert integrity.check(database, Schedulers(), clock()).healthy
    deck = f"anki-deck-{FRENCH_ID}"
    with database.reading() as transaction:
        assert transaction.decks.by_key(deck) is not None
    database.close()


def test_check_repair_sets_future_reviews_aside_and_then_passes(
    bundled: Database, clock: Clock, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    answer_cards(bundled, clock, 2)
    ahead = Clock(clock() + timedelta(days=365))  # the clock ran a year ahead while studying
    answer_cards(bundled, ahead, 2)
    scheduler = Schedulers(fuzz=True)
    report = integrity.check(bundled, scheduler, clock())
    assert report.future == 2
    assert any("dated in the future" in problem for problem in report.problems)
    reviews_before = sqlite3.connect(bundled.path).execute("SELECT count(*) FROM review").fetchone()

    repaired = upkeep.repair(bundled, scheduler, report, clock())
    assert repaired.after.healthy, repaired.after.problems
    assert any("set aside" in change for change in repaired.changes)
    connection = sqlite3.connect(bundled.path)
    kept, aside = connection.execute(
        "SELECT (SELECT count(*) FROM review), (SELECT count(*) FROM set_aside_review)"
    ).fetchone()
    connection.close()
    assert (kept, aside) == (reviews_before[0] - 2, 2)  # nothing deleted: moved
    # The command line agrees, and studying goes on.
    data = bundled.path.parent
    bundled.close()
    assert main(["--data-dir", str(data), "check"]) == 0
    database = Database(data / "recall.sqlite3")
    answer_cards(database, clock, 1)
    assert integrity.check(database, scheduler, clock()).healthy
    database.close()


def test_a_forget_dated_in_the_future_is_set_aside_with_its_kind(
    bundled: Database, clock: Clock
) -> None:
    answer_cards(bundled, clock, 2)
    connection = sqlite3.connect(bundled.path)
    (card_id,) = connection.execute("SELECT min(card_id) FROM review").fetchone()
    scheduler = Schedulers(fuzz=True)
    Changes(bundled, scheduler, Preferences()).forget([card_id], clock() + timedelta(days=365))
    with bundled.reading() as transaction:
        assert transaction.cards.get(card_id).memory.state is CardState.NEW
    report = integrity.check(bundled, scheduler, clock())
    assert report.future == 1
    repaired = upkeep.repair(bundled, scheduler, report, clock())
    assert repaired.after.healthy, repaired.after.problems
    kinds = connection.execute("SELECT card_id, kind FROM set_aside_review").fetchall()
    connection.close()
    assert kinds == [(card_id, int(ReviewKind.FORGET))]  # kept whole, kind and all
    with bundled.reading() as transaction:  # replayed without it: studied again
        assert transaction.cards.get(card_id).memory.state is not CardState.NEW


def test_an_answer_dated_before_the_cards_last_review_is_replayed_in_time_order(
    bundled: Database, clock: Clock
) -> None:
    schedulers = Schedulers(fuzz=True)
    session = StudySession(bundled, schedulers, "activation-recompute")
    shown = session.next_card(clock())
    assert shown is not None
    answer = session.answer_choice(shown, {shown.order[0]}, clock.advance(seconds=5))
    session.record(answer, answer.proposed, clock())
    # The clock goes back an hour: the learning card comes back and is answered "earlier".
    back = Clock(clock() - timedelta(hours=1))
    again = session.next_card(back() + timedelta(minutes=30))
    assert again is not None
    late = session.answer_choice(again, {again.order[0]}, back.advance(seconds=5))
    session.record(late, late.proposed, back())
    assert integrity.check(bundled, schedulers, clock()).healthy


@pytest.mark.parametrize(
    "ratings",
    [(Rating.AGAIN, Rating.GOOD), (Rating.GOOD, Rating.AGAIN)],
    ids=["again-good", "good-again"],
)
def test_two_answers_of_one_card_at_one_instant_leave_the_schedule_of_its_replay(
    tmp_path: Path, ratings: tuple[Rating, Rating]
) -> None:
    # Reviews of one instant are replayed in the order of their ids (the same on every
    # device), which need not be the order they were answered in.
    deck = {
        "format": "recall-deck",
        "version": 1,
        "id": "one",
        "name": "One",
        "cards": [{"id": "a", "type": "basic", "front": "Front", "back": "Back"}],
    }
    now = datetime(2026, 9, 1, 8, 0, tzinfo=UTC)
    database = Database(tmp_path / "recall.sqlite3")
    import_deck(database, parse_deck(json.dumps(deck), "one.json"), now)
    schedulers = Schedulers(fuzz=True)
    session = StudySession(database, schedulers, "one")
    for rating in ratings:
        shown = session.next_card(now)
        assert shown is not None
        session.record(session.reveal(shown, now), rating, now)
    assert integrity.check(database, schedulers, now).problems == []
    database.close()


def test_the_schema_3_fixture_keeps_its_set_aside_table(tmp_path: Path) -> None:
    fixture = Path(__file__).parents[1] / "data" / "schema-3.sqlite3"
    copy = tmp_path / "recall.sqlite3"
    shutil.copyfile(fixture, copy)
    Database(copy).close()
    tables = {row[0] for row in sqlite3.connect(copy).execute("SELECT name FROM sqlite_schema")}
    assert "set_aside_review" in tables
