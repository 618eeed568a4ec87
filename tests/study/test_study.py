"""Study sessions: today's queue, answers, undo, and the summary, on a fixed clock."""

from __future__ import annotations

import json
import random
from datetime import timedelta
from pathlib import Path

import pytest

from recall.collection import deck_list, importing, opening
from recall.content.deck_format import ChoiceCard
from recall.core.memory import CardState, Rating
from recall.core.presets import DEFAULT_PRESET_ID, Preset
from recall.scheduling import PastReview, Scheduler, Schedulers
from recall.storage import Database
from recall.study.session import StudySession
from recall.study.values import StudyCard
from tests.conftest import DATA, ZONE, Clock

DECK = "activation-recompute"


def session_for(
    database: Database, schedulers: Schedulers, deck: str = DECK, seed: int = 1
) -> StudySession:
    return StudySession(database, schedulers, deck, rng=random.Random(seed), zone=ZONE)


def use_preset(database: Database, **options: object) -> None:
    """Give the default preset (every deck's) these options."""
    with database.transaction() as tx:
        tx.options.save_preset(DEFAULT_PRESET_ID, Preset(**options))  # type: ignore[arg-type]


def right_position(shown: StudyCard) -> int:
    assert isinstance(shown.card, ChoiceCard)
    return next(p for p, i in enumerate(shown.order) if shown.card.choices[i].correct)


def answer(session: StudySession, clock: Clock, correct: bool, seconds: float = 6) -> StudyCard:
    shown = session.next_card(clock())
    assert shown is not None
    position = right_position(shown)
    if not correct:
        position = (position + 1) % len(shown.order)
    clock.advance(seconds=seconds)
    graded = session.answer_choice(shown, {shown.order[position]}, clock())
    assert graded.correct is correct
    session.record(graded, graded.proposed, clock.advance(seconds=2))
    return shown


def test_new_cards_come_in_deck_order_and_each_once(
    bundled: Database, schedulers: Schedulers, clock: Clock
) -> None:
    session = session_for(bundled, schedulers)
    seen = [answer(session, clock, correct=True).card.id for _ in range(8)]
    assert seen[0] == "what-is-traded"
    assert len(set(seen)) == 8
    # Every card is now in learning, due in 10 minutes: within learn-ahead, so not done yet.
    shown = session.next_card(clock())
    assert shown is not None
    assert shown.memory.state is CardState.LEARNING


def test_wrong_answer_comes_back_in_the_same_session(
    bundled: Database, schedulers: Schedulers, clock: Clock
) -> None:
    session = session_for(bundled, schedulers)
    first = answer(session, clock, correct=False)
    for _ in range(7):
        answer(session, clock, correct=True)
    # No new card is left; the failed card's 1-minute step comes before the 10-minute ones.
    again = session.next_card(clock())
    assert again is not None
    assert again.card_id == first.card_id


def test_session_ends_with_nothing_due_until_tomorrow(
    bundled: Database, schedulers: Schedulers, clock: Clock
) -> None:
    session = session_for(bundled, schedulers)
    answered = 0
    while session.next_card(clock()) is not None:
        answer(session, clock, correct=True)
        answered += 1
        assert answered < 50
    assert answered == 16  # two learning steps for each of 8 cards
    assert session.counts(clock()).total == 0
    summary = session.summary(clock())
    assert (summary.cards, summary.answered, summary.correct) == (8, 16, 16)
    assert summary.share_correct == 1.0
    assert summary.time_spent == timedelta(seconds=16 * 6)  # the answer times
    assert summary.next_due is not None
    assert summary.next_due - clock() > timedelta(days=1)


def test_the_summary_counts_every_sitting_of_the_day_in_the_deck(
    bundled: Database, schedulers: Schedulers, clock: Clock
) -> None:
    # A first sitting with three wrong answers, left (Escape); then a second one.
    first = session_for(bundled, schedulers)
    for correct in (False, True, False, True, False):
        answer(first, clock, correct=correct)
    second = session_for(bundled, schedulers)
    for _ in range(3):
        answer(second, clock, correct=True)
    summary = second.summary(clock())
    assert (summary.answered, summary.correct, summary.sitting_answered) == (8, 5, 3)
    assert summary.time_spent == timedelta(seconds=8 * 6)
    # The next study day starts afresh.
    clock.advance(days=1)
    assert second.summary(clock()).answered == 0


def test_the_counts_follow_new_cards_into_learning(
    bundled: Database, schedulers: Schedulers, clock: Clock
) -> None:
    session = session_for(bundled, schedulers)
    before = session.counts(clock())
    assert (before.new, before.learning, before.review) == (8, 0, 0)
    answer(session, clock, correct=True)
    after = session.counts(clock())
    # The new card became a learning card: the counts move though the total stays.
    assert (after.new, after.learning, after.review) == (7, 1, 0)
    assert after.total == before.total


def test_daily_new_card_limit(database: Database, schedulers: Schedulers, clock: Clock) -> None:
    opening.install_bundled_decks(database, clock())
    use_preset(database, new_per_day=3)
    session = session_for(database, schedulers)
    assert session.counts(clock()).new == 3
    introduced = set()
    while (shown := session.next_card(clock())) is not None:
        introduced.add(shown.card_id)
        answer(session, clock, correct=True)
    assert len(introduced) == 3
    (deck,) = deck_list.deck_overviews(database, clock(), ZONE)
    assert (deck.new, deck.unseen) == (0, 5)


def test_tomorrow_brings_new_cards_and_due_reviews_across_the_rollover(
    database: Database, schedulers: Schedulers, clock: Clock
) -> None:
    opening.install_bundled_decks(database, clock())
    use_preset(database, new_per_day=2)
    session = session_for(database, schedulers)
    while session.next_card(clock()) is not None:
        answer(session, clock, correct=True)
    # 03:59 Berlin the next night: still the same study day.
    clock.now = clock.now.replace(hour=2, minute=59) + timedelta(days=1)
    assert session.next_card(clock()) is None
    # 04:00 Berlin: a new day, two more new cards.
    clock.advance(minutes=1)
    assert session.counts(clock()).new == 2
    # Two days later, the first two cards (interval 2 days) are due as reviews.
    clock.advance(days=1, hours=6)
    counts = session.counts(clock())
    assert counts.due == 2
    shown = session.next_card(clock())
    assert shown is not None
    assert shown.memory.state is CardState.REVIEW


def test_undo_restores_history_and_memory_exactly(
    bundled: Database, schedulers: Schedulers, clock: Clock
) -> None:
    session = session_for(bundled, schedulers)
    answer(session, clock, correct=True)
    shown = session.next_card(clock())
    assert shown is not None
    with bundled.transaction() as tx:
        memory_before = tx.cards.get(shown.card_id).memory
        reviews_before = list(tx.history.all())
    clock.advance(seconds=3)
    graded = session.answer_choice(shown, {shown.order[right_position(shown)]}, clock())
    session.record(graded, Rating.EASY, clock())

    again = session.undo(clock())

    assert again.card_id == shown.card_id
    assert again.memory == memory_before
    with bundled.transaction() as tx:
        assert tx.cards.get(shown.card_id).memory == memory_before
        assert list(tx.history.all()) == reviews_before
    assert session.summary(clock()).answered == 1
    session.undo(clock())
    assert not session.can_undo
    with pytest.raises(LookupError):
        session.undo(clock())


def test_stored_memory_equals_replaying_history(
    bundled: Database, schedulers: Schedulers, clock: Clock
) -> None:
    session = session_for(bundled, schedulers)
    outcomes = random.Random(7)
    for day in range(6):
        while session.next_card(clock()) is not None:
            answer(session, clock, correct=outcomes.random() < 0.7, seconds=outcomes.uniform(2, 30))
        clock.advance(days=1 + day)
    scheduler = Scheduler(fuzz=False)
    with bundled.transaction() as tx:
        cards = tx.cards.of_deck(session.deck.id)
        for card in cards:
            history = [
                PastReview(review.reviewed_at, review.rating, review.kind)
                for review in tx.history.of_card(card.id)
            ]
            assert history, card.key
            assert scheduler.replay(card.id, history) == card.memory


def test_timing_turns_quick_right_answers_easy_and_slow_ones_hard(
    bundled: Database, schedulers: Schedulers, clock: Clock
) -> None:
    session = session_for(bundled, schedulers)
    for _ in range(session.preferences.timing_sample_size):
        answer(session, clock, correct=True, seconds=10)
    shown = session.next_card(clock())
    assert shown is not None
    choice = {shown.order[right_position(shown)]}
    assert session.answer_choice(shown, choice, shown.shown_at + timedelta(seconds=3)).proposed == (
        Rating.EASY
    )
    assert session.answer_choice(
        shown, choice, shown.shown_at + timedelta(seconds=10)
    ).proposed == (Rating.GOOD)
    assert session.answer_choice(
        shown, choice, shown.shown_at + timedelta(seconds=25)
    ).proposed == (Rating.HARD)


def test_select_all_and_basic_cards(
    database: Database, schedulers: Schedulers, clock: Clock, tmp_path: Path
) -> None:
    raw = json.loads((DATA / "decks" / "tiny.json").read_text())
    raw["cards"][0]["choices"][0]["correct"] = True  # now 'select all': both are right
    path = tmp_path / "tiny.json"
    path.write_text(json.dumps(raw))
    importing.import_files(database, Schedulers(), [path], clock())
    session = session_for(database, schedulers, deck="tiny")

    shown = session.next_card(clock())
    assert shown is not None
    assert shown.card.id == "q1"
    assert not session.answer_choice(shown, {1}, clock()).correct
    both = session.answer_choice(shown, {0, 1}, clock.advance(seconds=4))
    assert both.correct
    assert both.proposed is Rating.GOOD
    session.record(both, both.proposed, clock())

    basic = session.next_card(clock())
    assert basic is not None
    assert basic.card.id == "b1"
    assert basic.order == ()
    revealed = session.reveal(basic, clock.advance(seconds=3))
    assert revealed.correct is None
    assert revealed.proposed is Rating.GOOD
    session.record(revealed, Rating.AGAIN, clock())
    with database.transaction() as tx:
        reviews = list(tx.history.all())
    assert [(r.picked, r.correct, r.rating) for r in reviews] == [
        (("3", "4"), True, 3),
        (None, False, 1),
    ]


def test_choice_order_is_shuffled_each_time(
    bundled: Database, schedulers: Schedulers, clock: Clock
) -> None:
    session = session_for(bundled, schedulers, seed=3)
    orders = {session.next_card(clock()).order for _ in range(20)}  # type: ignore[union-attr]
    assert len(orders) > 1
    assert all(sorted(order) == [0, 1, 2, 3] for order in orders)


def test_an_undone_card_comes_back_with_its_choices_in_the_order_shown(
    bundled: Database, schedulers: Schedulers, clock: Clock
) -> None:
    session = session_for(bundled, schedulers, seed=3)
    shown = [answer(session, clock, correct=True) for _ in range(4)]
    assert len({card.order for card in shown}) > 1  # the choices are shuffled
    for card in reversed(shown):
        again = session.undo(clock())
        assert again.card_id == card.card_id
        assert again.order == card.order
