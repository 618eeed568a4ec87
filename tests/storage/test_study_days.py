"""The answers counted by study day, and the wrong options' picks counted per card, stay
equal to counting the reviews afresh, whatever way reviews arrive or leave: answering,
undo, import with history, forget and set-due records, moving and deleting cards, repair,
restore, a change by another program, and another time zone."""

from __future__ import annotations

import random
import sqlite3
from datetime import UTC, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from recall import stats
from recall.changes.cards import Changes
from recall.collection import importing
from recall.content.deck_format import ChoiceCard
from recall.core.preferences import Preferences
from recall.safekeeping import backups, integrity, repair
from recall.scheduling import Schedulers
from recall.stats.local_time import local_time
from recall.storage import Database, pick_counts
from recall.storage.study_days import local_key
from recall.storage.times import to_micros
from recall.study.session import StudySession
from tests.conftest import Clock, answer_cards
from tests.helpers.anki_packages import add_reviews, build_package, card_ids

SETTINGS = Preferences()
BERLIN = ZoneInfo("Europe/Berlin")
NEW_YORK = ZoneInfo("America/New_York")


def assert_counts_true(database: Database, now: datetime, zone: ZoneInfo = BERLIN) -> None:
    """Bring the counts up to date as the statistics do, then hold them to a fresh count."""
    figures = stats.collect(database, SETTINGS, now, None, None, zone=zone)
    local = local_time(
        now - timedelta(days=3 * 365), now + timedelta(days=400), SETTINGS.day_rollover_hour, zone
    )
    with database.reading() as transaction:
        assert transaction.sql.rows("SELECT stale_from FROM study_day_state") == [(None,)]
        deck_ids = list(transaction.decks.keys())
        for decks in (None, *([deck] for deck in deck_ids)):
            for since in (None, figures.today_date.toordinal() - 719163 - 6):
                counted = transaction.study_days.groups(since, decks)
                afresh = transaction.study_days.counted_afresh(local, since, decks)
                assert sorted(counted[0], key=repr) == sorted(afresh[0], key=repr)
                assert sorted(counted[1], key=repr) == sorted(afresh[1], key=repr)
        total = transaction.sql.value("SELECT count(*) FROM review WHERE kind = 0")
        kept = transaction.sql.rows("SELECT card_id, choice, times, last_at FROM wrong_pick_count")
        assert sorted(kept) == sorted(transaction.sql.rows(pick_counts.COUNTING))
    assert figures.totals.reviews == total


@pytest.fixture
def changes(bundled: Database) -> Changes:
    return Changes(bundled, Schedulers(fuzz=False), SETTINGS, BERLIN, random.Random(3))


def card_list(database: Database) -> list[int]:
    with database.reading() as transaction:
        return [int(row[0]) for row in transaction.sql.rows("SELECT id FROM card ORDER BY id")]


def test_counts_follow_answers_undo_and_changes_by_hand(
    bundled: Database, clock: Clock, changes: Changes
) -> None:
    assert_counts_true(bundled, clock())  # nothing studied: nothing counted
    session = answer_cards(bundled, clock, 4)
    assert_counts_true(bundled, clock())
    clock.advance(days=2, hours=3)
    session = answer_cards(bundled, clock, 3)
    session.undo(clock())  # the latest answer leaves
    assert_counts_true(bundled, clock())
    cards = card_list(bundled)
    changes.forget(cards[:1], clock())
    changes.set_due(cards[1:2], "3", clock())
    assert_counts_true(bundled, clock())
    changes.undo()
    changes.undo()
    assert_counts_true(bundled, clock())


def test_counts_follow_cards_moved_and_deleted(
    bundled: Database, clock: Clock, changes: Changes
) -> None:
    answer_cards(bundled, clock, 5)
    clock.advance(days=25)
    answer_cards(bundled, clock, 5)
    assert_counts_true(bundled, clock())
    with bundled.transaction() as transaction:
        other = transaction.decks.add("other", "Other deck", "", clock())
    cards = card_list(bundled)
    changes.move(cards[:2], other)
    assert_counts_true(bundled, clock())
    changes.undo()
    assert_counts_true(bundled, clock())
    changes.delete(cards[2:3], clock())
    assert_counts_true(bundled, clock())
    changes.undo()
    assert_counts_true(bundled, clock())


def test_counts_follow_an_import_with_history(
    bundled: Database, clock: Clock, tmp_path: Path
) -> None:
    answer_cards(bundled, clock, 3)
    assert_counts_true(bundled, clock())
    folder = tmp_path / "anki"
    folder.mkdir()
    package = build_package(folder)
    ids = card_ids(package)
    card = ids[("chien", 0)]
    start = int((clock() - timedelta(days=40)).timestamp() * 1000)
    day = 86_400_000
    add_reviews(
        package,
        [
            (start, card, 1, 4_000, 0),
            (start + day, card, 3, 6_000, 0),
            (start + 30 * day, card, 3, 5_000, 1),
        ],
    )
    importing.import_files(bundled, Schedulers(), [package], clock())
    assert_counts_true(bundled, clock())


def test_counts_follow_repair_and_restore(bundled: Database, clock: Clock, tmp_path: Path) -> None:
    answer_cards(bundled, clock, 3)
    assert_counts_true(bundled, clock())
    backup = backups.make_backup(bundled, clock())
    answer_cards(bundled, clock, 3)
    assert_counts_true(bundled, clock())
    restored = backups.restore(bundled, backup, Schedulers(), clock() + timedelta(minutes=1))
    assert restored is not None
    assert_counts_true(bundled, clock())
    # A review from a clock that ran ahead, set aside by the repair.
    ahead = clock() + timedelta(days=9)
    answer_cards(bundled, Clock(ahead), 1)
    later = clock() + timedelta(hours=1)
    assert_counts_true(bundled, ahead + timedelta(hours=1))
    report = integrity.check(bundled, Schedulers(), later)
    repair.repair(bundled, Schedulers(), report, later)
    assert_counts_true(bundled, later)


def test_another_time_zone_counts_everything_again(bundled: Database, clock: Clock) -> None:
    answer_cards(bundled, clock, 4)
    clock.advance(days=1, hours=5)
    answer_cards(bundled, clock, 2)
    assert_counts_true(bundled, clock())
    assert_counts_true(bundled, clock(), NEW_YORK)
    assert_counts_true(bundled, clock(), BERLIN)


def test_a_change_made_by_another_program_is_counted(bundled: Database, clock: Clock) -> None:
    answer_cards(bundled, clock, 3)
    assert_counts_true(bundled, clock())
    connection = sqlite3.connect(bundled.path)
    connection.execute("DELETE FROM review WHERE id = 1")  # the triggers live in the file
    connection.commit()
    connection.close()
    assert_counts_true(bundled, clock())


def test_counts_are_made_from_the_first_answer_changed_on(bundled: Database, clock: Clock) -> None:
    answer_cards(bundled, clock, 2)
    clock.advance(days=3)
    answer_cards(bundled, clock, 2)
    stats.collect(bundled, SETTINGS, clock(), None, None, zone=BERLIN)
    with bundled.reading() as transaction:
        ((stale,),) = transaction.sql.rows("SELECT stale_from FROM study_day_state")
    assert stale is None
    answer_cards(bundled, clock, 1)
    with bundled.reading() as transaction:
        ((stale,),) = transaction.sql.rows("SELECT stale_from FROM study_day_state")
    assert stale == to_micros(clock())
    assert_counts_true(bundled, clock())
    assert datetime.now(UTC) > clock() - timedelta(days=1)


def test_wrong_picks_are_counted_and_taken_back(bundled: Database, clock: Clock) -> None:
    session = StudySession(bundled, Schedulers(fuzz=False), "activation-recompute")
    for _ in range(4):
        shown = session.next_card(clock())
        assert shown is not None
        card = shown.card
        assert isinstance(card, ChoiceCard)
        wrong = next(i for i, choice in enumerate(card.choices) if not choice.correct)
        answer = session.answer_choice(shown, {wrong}, clock.advance(seconds=5))
        session.record(answer, answer.proposed, clock())
        clock.advance(minutes=2)
    with bundled.reading() as transaction:
        assert transaction.sql.value("SELECT sum(times) FROM wrong_pick_count") == 4
    assert_counts_true(bundled, clock())
    session.undo(clock())
    session.undo(clock())
    with bundled.reading() as transaction:
        assert transaction.sql.value("SELECT sum(times) FROM wrong_pick_count") == 2
    assert_counts_true(bundled, clock())


def test_counts_made_while_answers_arrive_are_not_stored(bundled: Database, clock: Clock) -> None:
    answer_cards(bundled, clock, 2)
    assert_counts_true(bundled, clock())
    answer_cards(bundled, clock, 1)
    now = clock()
    local = local_time(now - timedelta(days=400), now + timedelta(days=400), 4, BERLIN)
    key = local_key(local, to_micros(now - timedelta(days=1)) or 0, to_micros(now) or 0)
    with bundled.reading() as transaction:
        recount = transaction.study_days.recount(local, key)
        assert recount is not None
        counted = transaction.study_days.count(local, recount)
    answer_cards(bundled, clock, 1)  # counted before this answer: not stored
    with bundled.transaction() as transaction:
        assert not transaction.study_days.store(recount, counted)
        assert transaction.sql.value("SELECT stale_from FROM study_day_state") is not None
    assert_counts_true(bundled, clock())
