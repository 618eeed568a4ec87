"""`check` finds what is wrong in words; `repair` rebuilds schedules from history."""

from __future__ import annotations

import sqlite3
from datetime import timedelta

from recall.core.memory import Rating
from recall.safekeeping import integrity, repair
from recall.scheduling import Schedulers, chosen
from recall.storage import Database, NewReview, ReviewRow
from tests.conftest import Clock, answer_cards


def scheduler() -> Schedulers:
    return Schedulers(fuzz=True)


def test_a_studied_database_is_healthy(bundled: Database, clock: Clock) -> None:
    answer_cards(bundled, clock, 12)
    report = integrity.check(bundled, scheduler(), clock())
    assert report.healthy, report.problems
    assert (report.cards, report.reviews) == (8, 12)


def test_a_tampered_schedule_is_found_and_rebuilt(bundled: Database, clock: Clock) -> None:
    answer_cards(bundled, clock, 4)
    connection = sqlite3.connect(bundled.path)
    connection.execute("UPDATE card_memory SET due = due + 86400000000 WHERE card_id = 1")
    connection.commit()
    connection.close()

    report = integrity.check(bundled, scheduler(), clock())
    assert not report.healthy
    assert list(report.stale) == [1]
    assert report.problems[0].startswith("card activation-recompute/what-is-traded: the stored")

    changes = repair.repair(bundled, Schedulers(), report, clock()).changes
    assert len(changes) == 1
    assert integrity.check(bundled, scheduler(), clock()).healthy


def test_reviews_of_missing_cards_and_future_times_are_reported(
    bundled: Database, clock: Clock
) -> None:
    answer_cards(bundled, clock, 2)
    connection = sqlite3.connect(bundled.path)
    connection.execute("PRAGMA foreign_keys = OFF")
    connection.execute(
        "INSERT INTO review (card_id, reviewed_at, rating, duration_ms, state_before, correct)"
        " VALUES (999, 0, 3, 1000, 0, 1)"
    )
    connection.commit()
    connection.close()
    report = integrity.check(bundled, scheduler(), clock() - timedelta(hours=1))
    assert any("review 3 points at card 999, which is gone" in p for p in report.problems)
    assert any("dated in the future" in p for p in report.problems)
    assert any("points at a missing card" in p for p in report.problems)


def test_the_clock_going_backwards_keeps_the_schedule_consistent(
    bundled: Database, clock: Clock
) -> None:
    session = answer_cards(bundled, clock, 3)
    clock.advance(hours=-2)  # the system clock jumps back
    for _ in range(5):
        shown = session.next_card(clock())
        assert shown is not None
        answer = session.answer_choice(shown, {shown.order[1]}, clock.advance(seconds=5))
        session.record(answer, answer.proposed, clock())
    report = integrity.check(bundled, scheduler(), clock() + timedelta(hours=2))
    assert report.healthy, report.problems
    assert report.reviews == 8


def test_a_schedule_row_naming_the_wrong_deck_is_found_and_placed(
    bundled: Database, clock: Clock
) -> None:
    answer_cards(bundled, clock, 2)
    connection = sqlite3.connect(bundled.path)
    connection.execute("PRAGMA foreign_keys = OFF")
    connection.execute("UPDATE card_memory SET deck_id = 99 WHERE card_id IN (2, 5)")
    connection.commit()
    connection.close()
    report = integrity.check(bundled, scheduler(), clock())
    assert report.misplaced == 2
    assert any("2 cards have a schedule row that names another deck" in p for p in report.problems)
    changes = repair.repair(bundled, Schedulers(), report, clock()).changes
    assert changes == ["gave 2 schedule rows their card's deck and position"]
    assert integrity.check(bundled, scheduler(), clock()).healthy


def test_a_schedule_row_with_another_position_is_found_and_placed(
    bundled: Database, clock: Clock
) -> None:
    connection = sqlite3.connect(bundled.path)
    connection.execute("UPDATE card_memory SET position = position + 7 WHERE card_id IN (3, 4)")
    connection.commit()
    connection.close()
    report = integrity.check(bundled, scheduler(), clock())
    assert report.misplaced == 2
    assert any(
        "2 cards have a schedule row that names another deck or position" in p
        for p in report.problems
    )
    changes = repair.repair(bundled, Schedulers(), report, clock()).changes
    assert changes == ["gave 2 schedule rows their card's deck and position"]
    assert integrity.check(bundled, scheduler(), clock()).healthy
    connection = sqlite3.connect(bundled.path)
    apart = connection.execute(
        "SELECT count(*) FROM card JOIN card_memory ON card_id = card.id "
        "WHERE card_memory.position IS NOT card.position"
    ).fetchone()
    connection.close()
    assert apart == (0,)


def test_a_repair_replays_the_answers_given_while_the_check_ran(
    bundled: Database, clock: Clock
) -> None:
    answer_cards(bundled, clock, 8)
    connection = sqlite3.connect(bundled.path)
    connection.execute("UPDATE card_memory SET stability = stability * 2 WHERE state != 0")
    connection.commit()
    connection.close()
    report = integrity.check(bundled, scheduler(), clock())
    assert len(report.stale) >= 4

    clock.advance(days=1)
    answer_cards(bundled, clock, 4)  # the window lets the learner study meanwhile
    answered = {review.card_id for review in reviews_after(bundled, report.reviews)}
    assert answered & set(report.stale)

    repair.repair(bundled, scheduler(), report, clock())
    after = integrity.check(bundled, scheduler(), clock(), full=True)
    assert after.healthy, after.problems
    assert after.reviews == report.reviews + 4


def reviews_after(database: Database, count: int) -> list[ReviewRow]:
    with database.reading() as transaction:
        return list(transaction.history.all())[count:]


def test_an_answers_chosen_due_date_is_the_schedule_check_replays(
    bundled: Database, clock: Clock
) -> None:
    schedulers = scheduler()
    with bundled.transaction() as transaction:
        card = transaction.cards.get(1)
        scheduler_of_card = schedulers.for_deck(transaction.options.deck_presets(), card.deck_id)
        now = clock()
        drawn = scheduler_of_card.review(card.seed, card.memory, Rating.EASY, now)
        assert drawn.due is not None
        due = drawn.due + timedelta(days=2)
        review = NewReview.rated(1, now, Rating.EASY, 4000, card.memory.state, chosen_due=due)
        transaction.history.add(review)
        transaction.cards.set_memory(1, chosen(drawn, due))
    with bundled.reading() as reading:
        assert [row.set_due for row in reading.history.of_card(1)] == [due]
    assert integrity.check(bundled, schedulers, clock()).healthy

    # The fuzz draw's date in its place is a stale schedule, found as any other.
    with bundled.transaction() as transaction:
        transaction.cards.set_memory(1, drawn)
    assert list(integrity.check(bundled, schedulers, clock()).stale) == [1]
