"""Today's queue kept in memory between answers: always the queue the database holds.

Each test compares the session's next card and counts with those of a session that reads
everything afresh, after the session's own answers (kept in memory), after changes made
elsewhere (another connection, another process, the same process's other writes), after
an undo, when a buried card comes back and when the study day rolls over.
"""

from __future__ import annotations

import json
import random
import sqlite3
import subprocess
import sys
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from recall.changes import decks
from recall.changes.cards import Changes
from recall.collection import importing
from recall.content.deck_format import ChoiceCard, parse_deck
from recall.core import days
from recall.core.errors import DatabaseChangedError
from recall.core.memory import CardState
from recall.core.preferences import Preferences
from recall.scheduling import Schedulers
from recall.scheduling.follow_ups import follow_ups
from recall.storage import Database
from recall.storage import queue as queue_module
from recall.storage.review_ids import review_uid
from recall.storage.times import to_micros
from recall.study.follow_ups import card_follow_ups
from recall.study.session import StudySession
from recall.study.values import QueueCounts
from tests.conftest import ZONE, Clock
from tests.study.test_study import DECK, answer, right_position, session_for, use_preset

Queue = tuple[int | None, QueueCounts]


def queue_of(session: StudySession, now: datetime) -> Queue:
    shown = session.next_card(now)
    return (shown.card_id if shown is not None else None, session.counts(now))


def read_afresh(
    database: Database, schedulers: Schedulers, now: datetime, deck: str = DECK
) -> Queue:
    """The queue as a new session reads it from the database."""
    return queue_of(session_for(database, schedulers, deck), now)


def reference(
    path: Path,
    deck: str,
    now: datetime,
    new_limit: int,
    review_limit: int,
    database: Database | None = None,
) -> Queue:
    """The queue of a deck (without subdecks) worked out in plain SQL from the rules, independently.

    Learning cards due now, then review cards due today within the review limit, then new
    cards in deck order within the new-card limit, then learning cards due within the
    learn-ahead window; suspended cards and cards buried until later left out. With
    ``database``, its follow-ups (as ``study.follow_ups`` works them out from the history)
    that may be asked and are due now come among the review cards, by due time, within
    the review limit, which their answers today count towards.
    """
    preferences = Preferences()
    start, end = days.study_day(now, preferences.day_rollover_hour, ZONE)
    connection = sqlite3.connect(path)
    micros = {
        "now": to_micros(now),
        "start": to_micros(start),
        "end": to_micros(end),
        "ahead": to_micros(now + preferences.learn_ahead),
        "deck": deck,
    }

    def one(sql: str) -> int | None:
        row = connection.execute(sql, micros).fetchone()
        return None if row is None else int(row[0])

    studiable = "NOT m.suspended AND coalesce(m.buried_until, 0) <= :now"
    cards = (
        "card_memory m JOIN card c ON c.id = m.card_id JOIN deck d "
        "ON d.id = c.deck_id AND d.key = :deck"
    )
    order = "ORDER BY m.due, c.position, c.id LIMIT 1"

    def answered(state: int) -> int:
        sql = (
            "SELECT count(*) FROM review r JOIN card c ON c.id = r.card_id JOIN deck d "
            "ON d.id = c.deck_id AND d.key = :deck WHERE r.reviewed_at >= :start AND r.kind = 0"
        )
        return one(f"{sql} AND r.state_before = {state}") or 0

    follow_ups: list[tuple[datetime, int]] = []
    later = 0
    if database is not None:
        with database.reading() as transaction:
            presets = transaction.options.deck_presets()
            every = card_follow_ups(transaction, Schedulers(fuzz=False), presets)
        end = days.study_day(now, Preferences().day_rollover_hour, ZONE)[1]
        follow_ups = sorted(
            (item.due, item.card_id)
            for item in every
            if item.askable(now) and item.due is not None and item.due <= now
        )
        later = sum(
            1
            for item in every
            if item.askable(now) and item.due is not None and now < item.due < end
        )
    try:
        new_left = max(0, new_limit - answered(0))
        follow_up_answers = one(
            "SELECT count(*) FROM review r JOIN card c ON c.id = r.card_id JOIN deck d "
            "ON d.id = c.deck_id AND d.key = :deck WHERE r.reviewed_at >= :start AND r.kind = 5"
        )
        reviews_left = max(0, review_limit - answered(2) - (follow_up_answers or 0))
        learning = f"SELECT m.card_id FROM {cards} WHERE m.state IN (1, 3) AND {studiable}"
        card = one(f"{learning} AND m.due < :now {order}")
        if card is None and reviews_left:
            row = connection.execute(
                f"SELECT m.due, m.card_id FROM {cards} WHERE m.state = 2 AND m.due < :end "
                f"AND {studiable} {order}",
                micros,
            ).fetchone()
            card = None if row is None else int(row[1])
            if follow_ups and (row is None or (to_micros(follow_ups[0][0]) or 0) <= int(row[0])):
                card = follow_ups[0][1]
        new = f"SELECT m.card_id FROM {cards} WHERE m.state = 0 AND {studiable}"
        if card is None and new_left:
            card = one(f"{new} ORDER BY c.position, c.id LIMIT 1")
        if card is None:
            card = one(f"{learning} AND m.due < :ahead {order}")
        new_count = one(f"SELECT count(*) FROM ({new})") or 0
        due_learning = one(f"SELECT count(*) FROM ({learning} AND m.due < :end)") or 0
        due_reviews = one(
            f"SELECT count(*) FROM {cards} WHERE m.state = 2 AND m.due < :end AND {studiable}"
        )
    finally:
        connection.close()
    review = min((due_reviews or 0) + len(follow_ups) + later, reviews_left)
    return card, QueueCounts(new=min(new_count, new_left), learning=due_learning, review=review)


def forty_cards(database: Database, now: datetime) -> str:
    """A deck of 40 choice cards, imported; its key."""
    cards = [
        {
            "id": f"q{number}",
            "type": "choice",
            "question": f"Question {number}?",
            "choices": [{"text": "right", "correct": True}, {"text": "wrong"}],
        }
        for number in range(40)
    ]
    deck = {"format": "recall-deck", "version": 1, "id": "forty", "name": "Forty", "cards": cards}
    importing.import_deck(database, parse_deck(json.dumps(deck), "forty.json"), now)
    return "forty"


@pytest.mark.parametrize("few_new", [queue_module._FEW_NEW, 1], ids=["sorted", "deck-walk"])
def test_after_every_answer_the_kept_queue_is_the_one_the_rules_give(
    bundled: Database,
    schedulers: Schedulers,
    clock: Clock,
    monkeypatch: pytest.MonkeyPatch,
    few_new: int,
) -> None:
    """Both ways of finding the first new cards: sorting the new ones, walking the deck."""
    monkeypatch.setattr(queue_module, "_FEW_NEW", few_new)
    # Small limits, so that both limits run out and review cards wait beyond them.
    use_preset(bundled, new_per_day=15, reviews_per_day=5)
    deck = forty_cards(bundled, clock())
    session = session_for(bundled, schedulers, deck)
    rng = random.Random(7)
    kept: list[CardState] = []
    follow_ups = 0
    for _ in range(600):
        now = clock()
        queue = queue_of(session, now)
        expected = reference(bundled.path, deck, now, 15, 5, bundled)
        assert queue == expected
        if queue[0] is None:
            clock.advance(hours=3)
            continue
        before = session._today
        correct = rng.random() < 0.7
        shown = answer(session, clock, correct=correct, seconds=rng.randint(2, 90))
        assert before is not None
        # Every answer is applied in memory, the queue not read again: follow-up answers
        # and answers of cards with follow-ups too (their follow-ups worked out again).
        assert session._today is before
        if shown.follow_up is not None or shown.card_id in before.follow_up_cards:
            follow_ups += 1
        else:
            kept.append(shown.memory.state)
    # The queue was read again only when the clock moved on past the end of a day or a
    # follow-up came due; the reference above held it equal to the rules after each answer.
    assert len(kept) + follow_ups == session.summary(clock()).sitting_answered
    assert len(kept) > 100
    assert follow_ups > 20
    assert set(kept) >= {CardState.NEW, CardState.LEARNING, CardState.REVIEW}


def test_a_deck_is_studied_with_its_subdecks_cards_answered_too(
    database: Database, schedulers: Schedulers, clock: Clock
) -> None:
    forty_cards(database, clock())
    child = {"format": "recall-deck", "version": 1, "id": "child", "name": "Forty::Child"}
    child["cards"] = [{"id": "c", "type": "basic", "front": "Front", "back": "Back"}]
    importing.import_deck(database, parse_deck(json.dumps(child), "child.json"), clock())
    use_preset(database, new_per_day=41)
    session = session_for(database, schedulers, "forty")
    keys = []
    while (shown := session.next_card(clock())) is not None and shown.card.id not in keys:
        keys.append(shown.card.id)
        clock.advance(seconds=5)
        card = shown.card
        if isinstance(card, ChoiceCard):
            graded = session.answer_choice(shown, set(card.correct_indexes), clock())
        else:
            graded = session.reveal(shown, clock())
        session.record(graded, graded.proposed, clock())
    # Forty's cards in deck order, then its subdeck's card: each answer recorded.
    assert keys == [f"q{number}" for number in range(40)] + ["c"]
    assert session.summary(clock()).sitting_answered == 41
    assert queue_of(session, clock()) == read_afresh(database, schedulers, clock(), "forty")


def test_reading_the_queue_walks_indexes_and_never_scans_the_cards(
    bundled: Database, schedulers: Schedulers, clock: Clock
) -> None:
    """Every statement on the cards' tables that reading the queue runs, by SQLite's plan.

    The queue's index holds what the queue filters on (suspended, buried until): no due
    card is looked up in the table to leave it out.
    """
    statements: list[str] = []
    bundled._connections.hooks.append(
        lambda connection: connection.set_trace_callback(statements.append)
    )
    bundled.watched().close()  # opened again with the hook
    session = session_for(bundled, schedulers)
    answer(session, clock, correct=True)
    Changes(bundled, schedulers, Preferences(), ZONE).suspend([1])  # read again at the next card
    statements.clear()
    assert queue_of(session, clock())[0] is not None
    on_cards = [sql for sql in statements if sql.startswith("SELECT") and "card" in sql]
    assert any("card_memory" in sql for sql in on_cards)
    connection = sqlite3.connect(bundled.path)
    try:
        for sql in on_cards:
            plan = [row[3] for row in connection.execute(f"EXPLAIN QUERY PLAN {sql}")]
            assert not [step for step in plan if step.startswith("SCAN card")], (sql, plan)
            # What leaves a card out (suspended, buried) is read from the index, not the table.
            memory = [step for step in plan if step.startswith("SEARCH card_memory")]
            assert all(
                "COVERING INDEX" in step or "INTEGER PRIMARY KEY" in step for step in memory
            ), (sql, plan)
    finally:
        connection.close()


@pytest.mark.parametrize("same_database", [True, False], ids=["one-connection", "two-files-open"])
def test_two_sessions_on_one_deck_see_each_others_answers(
    bundled: Database, schedulers: Schedulers, clock: Clock, same_database: bool
) -> None:
    """Two sessions sharing the watched connection, or each with its own database object."""
    other = bundled if same_database else Database(bundled.path)
    try:
        sessions = [session_for(bundled, schedulers), session_for(other, schedulers)]
        answered = []
        for turn in range(10):
            answered.append(answer(sessions[turn % 2], clock, correct=turn % 3 != 0).card_id)
            for session in sessions:
                assert queue_of(session, clock()) == read_afresh(bundled, schedulers, clock())
        assert len(set(answered[:8])) == 8  # never the same new card twice
    finally:
        if not same_database:
            other.close()


def test_a_card_suspended_by_another_connection_is_not_shown_next(
    bundled: Database, schedulers: Schedulers, clock: Clock
) -> None:
    session = session_for(bundled, schedulers)
    answer(session, clock, correct=True)
    upcoming = session.next_card(clock())
    assert upcoming is not None
    left = session.counts(clock())
    other = Database(bundled.path)
    try:
        Changes(other, schedulers, Preferences(), ZONE).suspend([upcoming.card_id])
    finally:
        other.close()
    shown = session.next_card(clock())
    assert shown is not None
    assert shown.card_id != upcoming.card_id
    expected = QueueCounts(new=left.new - 1, learning=left.learning, review=left.review)
    assert session.counts(clock()) == expected
    assert queue_of(session, clock()) == read_afresh(bundled, schedulers, clock())


def test_an_answer_starts_from_the_schedule_another_connection_set_after_the_card_was_shown(
    bundled: Database, schedulers: Schedulers, clock: Clock
) -> None:
    """The row read to show the card is not the stored one once another connection wrote."""
    session = session_for(bundled, schedulers)
    shown = session.next_card(clock())
    assert shown is not None
    assert shown.memory.state is CardState.NEW
    other = Database(bundled.path)
    try:
        Changes(other, schedulers, Preferences(), ZONE).set_due([shown.card_id], "5", clock())
    finally:
        other.close()
    position = right_position(shown)
    clock.advance(seconds=6)
    graded = session.answer_choice(shown, {shown.order[position]}, clock())
    recorded = session.record(graded, graded.proposed, clock.advance(seconds=2))
    with bundled.reading() as transaction:
        (review,) = [
            row
            for row in transaction.history.of_card(shown.card_id)
            if row.id == recorded.review_id
        ]
    assert review.state_before is CardState.REVIEW
    assert recorded.memory.state is CardState.REVIEW


def test_recall_suspend_in_another_process_empties_the_queue_at_the_next_card(
    bundled: Database, schedulers: Schedulers, clock: Clock
) -> None:
    session = session_for(bundled, schedulers)
    answer(session, clock, correct=True)
    assert session.counts(clock()).total > 0
    folder = str(bundled.path.parent)
    command = [sys.executable, "-m", "recall", "--data-dir", folder, "suspend", "deck:Activation*"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert "suspended 8 of 8" in done.stdout
    assert session.next_card(clock()) is None
    assert session.counts(clock()) == QueueCounts(new=0, learning=0, review=0)


def test_the_windows_own_other_writes_are_seen(
    bundled: Database, schedulers: Schedulers, clock: Clock
) -> None:
    """A bury and a deck option change through the same database, as the window makes them."""
    session = session_for(bundled, schedulers)
    answer(session, clock, correct=True)
    upcoming = session.next_card(clock())
    assert upcoming is not None
    Changes(bundled, schedulers, Preferences(), ZONE).bury([upcoming.card_id], clock())
    assert queue_of(session, clock())[0] != upcoming.card_id
    use_preset(bundled, new_per_day=2)
    assert session.counts(clock()).new == 1  # one of the two was introduced already
    assert queue_of(session, clock()) == read_afresh(bundled, schedulers, clock())


def test_a_deck_deleted_meanwhile_has_nothing_left_and_its_next_card_says_so(
    bundled: Database, schedulers: Schedulers, clock: Clock
) -> None:
    session = session_for(bundled, schedulers)
    answer(session, clock, correct=True)
    decks.delete_deck(bundled, session.deck.id, clock())
    assert session.counts(clock()) == QueueCounts(new=0, learning=0, review=0)
    with pytest.raises(DatabaseChangedError):
        session.next_card(clock())


def test_an_undo_is_seen(bundled: Database, schedulers: Schedulers, clock: Clock) -> None:
    session = session_for(bundled, schedulers)
    first = answer(session, clock, correct=True)
    # The answered card is learning, due again today.
    assert session.counts(clock()) == QueueCounts(new=7, learning=1, review=0)
    assert session.undo(clock()).card_id == first.card_id
    assert session.counts(clock()) == QueueCounts(new=8, learning=0, review=0)
    assert queue_of(session, clock()) == read_afresh(bundled, schedulers, clock())
    assert queue_of(session, clock())[0] == first.card_id


def test_a_card_buried_until_a_time_today_comes_back_then(
    bundled: Database, schedulers: Schedulers, clock: Clock
) -> None:
    session = session_for(bundled, schedulers)
    upcoming = session.next_card(clock())
    assert upcoming is not None
    with bundled.transaction() as transaction:
        transaction.browsing.set_buried([upcoming.card_id], clock() + timedelta(minutes=30))
    assert queue_of(session, clock())[0] != upcoming.card_id
    answer(session, clock, correct=True)  # from memory, the buried card still left out
    assert queue_of(session, clock()) == read_afresh(bundled, schedulers, clock())
    clock.advance(minutes=31)
    assert queue_of(session, clock()) == read_afresh(bundled, schedulers, clock())
    assert session.counts(clock()).new == 7  # the buried card is back among the new ones


def test_the_study_day_rollover_is_seen(
    bundled: Database, schedulers: Schedulers, clock: Clock
) -> None:
    use_preset(bundled, new_per_day=2)
    session = session_for(bundled, schedulers)
    answer(session, clock, correct=True)
    answer(session, clock, correct=True)
    assert session.counts(clock()).new == 0
    # 10:00 in Berlin; the day rolls over at 04:00: the next day brings two new cards.
    clock.advance(hours=18, minutes=1)
    assert session.counts(clock()).new == 2
    assert queue_of(session, clock()) == read_afresh(bundled, schedulers, clock())


def test_every_answers_id_is_made_from_its_cards_keys_as_stored(
    bundled: Database, schedulers: Schedulers, clock: Clock
) -> None:
    """The keys an answer's id is made from come from the session's own reads when its
    queue holds: the ids are those made from the stored deck and card keys, follow-up
    answers included."""
    use_preset(bundled, new_per_day=15, reviews_per_day=50)
    deck = forty_cards(bundled, clock())
    session = session_for(bundled, schedulers, deck)
    rng = random.Random(3)
    follow_ups = 0
    for _ in range(200):
        if session.next_card(clock()) is None:
            clock.advance(hours=9)
            continue
        shown = answer(session, clock, correct=rng.random() < 0.6, seconds=5)
        follow_ups += shown.follow_up is not None
    assert follow_ups > 0
    connection = sqlite3.connect(bundled.path)
    try:
        rows = connection.execute(
            "SELECT review.uid, deck.key, card.key, review.reviewed_at, review.kind, "
            "review.rating FROM review JOIN card ON card.id = review.card_id "
            "JOIN deck ON deck.id = card.deck_id WHERE deck.key = ?",
            (deck,),
        ).fetchall()
    finally:
        connection.close()
    assert len(rows) == session.summary(clock()).sitting_answered
    for uid, deck_key, card_key, micros, kind, rating in rows:
        assert uid == review_uid(deck_key, card_key, micros, kind, rating)


def test_follow_ups_read_from_the_entries_that_make_them_equal_those_of_every_entry(
    bundled: Database, clock: Clock
) -> None:
    """The follow-ups read for the queue come from a card's follow-up answers, wrong
    answers with picks and last answer only: the same as from its whole history, read in
    plain SQL, whether its latest answer picked the option or not."""
    schedulers = Schedulers(fuzz=False)
    use_preset(bundled, new_per_day=40, reviews_per_day=200)
    deck = forty_cards(bundled, clock())
    session = session_for(bundled, schedulers, deck)
    rng = random.Random(11)
    for _ in range(400):
        if session.next_card(clock()) is None:
            clock.advance(hours=20)
            continue
        answer(session, clock, correct=rng.random() < 0.5, seconds=rng.randint(2, 30))
    with bundled.reading() as transaction:
        presets = transaction.options.deck_presets()
        read = card_follow_ups(transaction, schedulers, presets)
    connection = sqlite3.connect(bundled.path)
    try:
        cards = connection.execute(
            "SELECT card.id, card.seed, card.deck_id FROM card JOIN deck "
            "ON deck.id = card.deck_id WHERE deck.key = ?",
            (deck,),
        ).fetchall()
        expected = []
        for card_id, seed, deck_id in cards:
            history = [
                (
                    moment,
                    kind,
                    rating,
                    None if picked is None else tuple(json.loads(picked)),
                    bool(right),
                )
                for moment, kind, rating, picked, right in connection.execute(
                    "SELECT reviewed_at, kind, rating, picked, correct FROM review "
                    "WHERE card_id = ? ORDER BY reviewed_at, uid",
                    (card_id,),
                )
            ]
            scheduler = schedulers.for_deck(presets, deck_id)
            expected += [
                (card_id, item) for item in follow_ups(history, {"wrong"}, scheduler, seed)
            ]
    finally:
        connection.close()
    assert [(item.card_id, item.follow_up) for item in read] == expected
    assert any(item.follow_up.picked_lately for item in read)
    assert any(not item.follow_up.picked_lately for item in read)
