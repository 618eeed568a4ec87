"""Load balancing and Easy Days in a study session: the day chosen is stored and replayed."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta

from recall.core.days import StudyDays
from recall.core.memory import CardState, MemoryState, Rating, ReviewKind
from recall.core.presets import DEFAULT_PRESET_ID, Preset
from recall.options import exam_dates
from recall.safekeeping import integrity
from recall.scheduling import Schedulers, exam
from recall.storage import Database, ReviewRow
from recall.study.custom import CustomQueue, SessionKind
from recall.study.session import StudySession

DECK = "activation-recompute"
START = datetime(2026, 3, 2, 8, 0, tzinfo=UTC)  # a Monday


def study_days(database: Database, start: datetime, days: int) -> None:
    """Study every card due each day, rating each by its key (the same on every device)."""
    session = StudySession(database, Schedulers(), DECK, random.Random(5))
    for day in range(days):
        clock = start + timedelta(days=day)
        while (shown := session.next_card(clock)) is not None:
            clock += timedelta(seconds=7)
            answer = session.reveal(shown, clock)
            hard = shown.memory.state is CardState.REVIEW and len(shown.card.id) % 3 == 0
            session.record(answer, Rating.HARD if hard else Rating.GOOD, clock)


def answers(database: Database) -> list[ReviewRow]:
    with database.reading() as transaction:
        return [row for row in transaction.history.all() if row.kind is ReviewKind.ANSWER]


def test_a_balanced_session_stores_each_chosen_day_and_check_replays_it(
    bundled: Database,
) -> None:
    study_days(bundled, START, 30)
    chosen = [row for row in answers(bundled) if row.set_due is not None]
    assert len(chosen) >= 8
    with bundled.reading() as transaction:
        for card in transaction.cards.of_deck(transaction.decks.by_key(DECK).id):  # type: ignore[union-attr]
            last = transaction.history.of_card(card.id)[-1]
            if last.set_due is not None:
                # The day recorded is the day the card has.
                assert card.memory.due == last.set_due
                assert card.memory.state is CardState.REVIEW
    assert integrity.check(bundled, Schedulers(), START + timedelta(days=30)).healthy


def test_a_chosen_day_of_a_one_or_two_day_interval_is_stored_and_check_replays_it(
    bundled: Database,
) -> None:
    study_days(bundled, START, 30)
    chosen = [row.set_due - row.reviewed_at for row in answers(bundled) if row.set_due]
    # A fuzz range starts at two days: a chosen day one day on is a short interval's.
    assert chosen.count(timedelta(days=1)) >= 2
    assert integrity.check(bundled, Schedulers(), START + timedelta(days=30)).healthy


def test_no_chosen_day_falls_on_a_minimum_weekday(bundled: Database) -> None:
    with bundled.transaction() as transaction:
        transaction.options.save_preset(DEFAULT_PRESET_ID, Preset(easy_wednesday="minimum"))
    study_days(bundled, START, 30)
    chosen = [row.set_due for row in answers(bundled) if row.set_due is not None]
    assert len(chosen) >= 8
    assert all(StudyDays().weekday(due) != 2 for due in chosen)
    assert integrity.check(bundled, Schedulers(), START + timedelta(days=30)).healthy


def test_without_balancing_or_easy_days_no_day_is_chosen(bundled: Database) -> None:
    with bundled.transaction() as transaction:
        transaction.options.save_preset(DEFAULT_PRESET_ID, Preset(load_balancing=False))
    study_days(bundled, START, 20)
    assert all(row.set_due is None for row in answers(bundled))


def test_a_cram_answer_chooses_no_day(bundled: Database) -> None:
    study_days(bundled, START, 10)
    with bundled.reading() as transaction:
        ids = [row.id for row in transaction.cards.of_deck(transaction.decks.by_key(DECK).id)]  # type: ignore[union-attr]
    queue = CustomQueue(
        kind=SessionKind.CRAM,
        title="Cram",
        card_ids=frozenset(ids),
        states=dict.fromkeys(ids, CardState.REVIEW),
        pending=list(ids),
    )
    session = StudySession(bundled, Schedulers(), DECK, random.Random(1), custom=queue)
    shown = session.next_card(START + timedelta(days=10))
    assert shown is not None
    when = START + timedelta(days=10, seconds=5)
    session.record(session.reveal(shown, when), Rating.GOOD, when)
    with bundled.reading() as transaction:
        (cram,) = [row for row in transaction.history.all() if row.kind is ReviewKind.CRAM]
    assert cram.set_due is None


def test_the_load_of_a_day_counts_its_learning_and_relearning_cards_too(
    bundled: Database,
) -> None:
    day = (START + timedelta(days=3), START + timedelta(days=4))
    with bundled.transaction() as transaction:
        cards = transaction.cards.of_deck(transaction.decks.by_key(DECK).id)  # type: ignore[union-attr]
        states = (CardState.LEARNING, CardState.REVIEW, CardState.RELEARNING, CardState.REVIEW)
        for card, state in zip(cards, states, strict=False):
            transaction.cards.set_memory(
                card.id, MemoryState(state, 0, 3.0, 5.0, START + timedelta(days=3, hours=2), START)
            )
        # A card due the day after counts on that day only; the card answered not at all.
        transaction.cards.set_memory(
            cards[4].id,
            MemoryState(CardState.LEARNING, 0, 3.0, 5.0, START + timedelta(days=4), START),
        )
        assert transaction.queue.cards_due_in([day], leaving_out=cards[3].id) == [3]
        assert transaction.queue.cards_due_in([day], leaving_out=0) == [4]


def assert_kept_loads_are_the_databases(session: StudySession, database: Database) -> None:
    """Each day's load the session keeps between answers is what a fresh count reads."""
    kept = session._loads.counts()
    with database.reading() as transaction:
        fresh = transaction.queue.cards_due_in(list(kept), leaving_out=0)
    assert dict(zip(kept, fresh, strict=True)) == kept


def test_the_loads_kept_between_answers_stay_the_databases_counts(bundled: Database) -> None:
    session = StudySession(bundled, Schedulers(), DECK, random.Random(5))
    answered = 0
    for day in range(30):
        clock = START + timedelta(days=day)
        while (shown := session.next_card(clock)) is not None:
            clock += timedelta(seconds=7)
            rating = Rating.AGAIN if answered % 5 == 4 else Rating.GOOD
            session.record(session.reveal(shown, clock), rating, clock)
            answered += 1
            assert_kept_loads_are_the_databases(session, bundled)
    assert answered >= 40
    assert len(session._loads.counts()) >= 10


def test_a_change_made_elsewhere_between_answers_is_in_the_next_answers_loads(
    bundled: Database,
) -> None:
    session = StudySession(bundled, Schedulers(), DECK, random.Random(5))
    clock = START
    while not session._loads.counts():
        shown = session.next_card(clock)
        if shown is None:
            clock += timedelta(days=1)
            continue
        clock += timedelta(seconds=7)
        session.record(session.reveal(shown, clock), Rating.GOOD, clock)
    start, end = next(iter(session._loads.counts()))
    # Another connection (as `recall` from a terminal would) moves two cards due elsewhere
    # onto a day whose load the session keeps.
    with bundled.transaction() as transaction:
        moved = [
            card
            for card in transaction.cards.of_deck(transaction.decks.by_key(DECK).id)  # type: ignore[union-attr]
            if card.memory.due is None or not start <= card.memory.due < end
        ][:2]
        assert len(moved) == 2
        for card in moved:
            transaction.cards.set_memory(
                card.id, MemoryState(CardState.REVIEW, 0, 3.0, 5.0, start, START)
            )
    while (shown := session.next_card(clock)) is None:
        clock += timedelta(days=1)
    clock += timedelta(seconds=7)
    session.record(session.reveal(shown, clock), Rating.GOOD, clock)
    assert_kept_loads_are_the_databases(session, bundled)


def test_until_an_exam_the_fuzz_draws_day_stands_and_balancing_comes_back_after_it(
    bundled: Database,
) -> None:
    exam_day = (START + timedelta(days=20)).date()
    exam_dates.set_exam_date(bundled, DECK, exam_day, START)
    study_days(bundled, START, 45)
    days = StudyDays()
    number = exam.day_number(exam_day)
    # The last three study days before it, or its morning when answered the day before.
    last_days = {exam.day_start(number - back, days) for back in (0, 1, 2, 3)}
    before = [row for row in answers(bundled) if days.day_of(row.reviewed_at) < number]
    after = [row for row in answers(bundled) if days.day_of(row.reviewed_at) >= number]
    assert len(before) >= 20
    # Before the exam a day is kept only where the exam's cap chose it.
    assert [row.set_due for row in before if row.set_due not in (None, *last_days)] == []
    assert any(row.set_due in last_days for row in before)
    assert any(row.set_due is not None for row in after)  # balanced again
    assert integrity.check(bundled, Schedulers(), START + timedelta(days=45)).healthy
