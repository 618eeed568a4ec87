"""Custom study sessions: each kind picks the right cards; cram answers are kept in the history
as cram answers that leave the schedule, replay and `recall check` as they were; undo."""

from __future__ import annotations

import random
from datetime import timedelta

import pytest

from recall.changes.cards import Changes
from recall.collection import browse
from recall.collection.custom_study import CustomStudy, CustomStudyError, SessionRequest
from recall.core.memory import CardState, Rating, ReviewKind
from recall.core.preferences import Preferences
from recall.safekeeping.integrity import replay
from recall.scheduling import Scheduler, Schedulers
from recall.storage import Database
from recall.study.custom import SessionKind
from recall.study.session import StudySession
from tests.changes.test_card_changes import healthy
from tests.conftest import ZONE, Clock, answer_cards


def _custom(database: Database) -> tuple[CustomStudy, browse.Finder, Changes]:
    schedulers = Schedulers(fuzz=True)
    finder = browse.Finder(database, Scheduler(), Preferences(), ZONE)
    changes = Changes(database, schedulers, Preferences(), ZONE, random.Random(3))
    return CustomStudy(database, schedulers, finder), finder, changes


def _session(database: Database, request: SessionRequest, clock: Clock) -> StudySession:
    custom, _, _ = _custom(database)
    queue = custom.build(request, clock())
    return StudySession(database, Schedulers(fuzz=True), "", zone=ZONE, custom=queue)


def _answer(session: StudySession, clock: Clock, rating: Rating) -> int:
    shown = session.next_card(clock())
    assert shown is not None
    answer = session.reveal(shown, clock.advance(seconds=4))
    session.record(answer, rating, clock())
    return shown.card_id


@pytest.fixture
def spread(bundled: Database, clock: Clock) -> Database:
    """Every card studied, then given due dates from today to five days ahead."""
    answer_cards(bundled, clock, 8)
    clock.advance(days=1)
    _, finder, changes = _custom(bundled)
    for index, card_id in enumerate(finder.find("", clock()).card_ids):
        changes.set_due([card_id], str(index % 6), clock())
    clock.advance(hours=1)
    return bundled


def test_cram_records_cram_answers_that_leave_the_schedule_and_replay_alone(
    spread: Database, clock: Clock
) -> None:
    _, finder, _ = _custom(spread)
    wanted = finder.find("tag:memory", clock()).card_ids
    session = _session(spread, SessionRequest(SessionKind.CRAM, search="tag:memory"), clock)
    assert session.counts(clock()).total == len(wanted)
    before = {row.id: row.memory for row in finder.rows(wanted)}
    first = _answer(session, clock, Rating.AGAIN)
    assert first == wanted[0]
    second = _answer(session, clock, Rating.GOOD)
    assert second == wanted[1]
    after = {row.id: row.memory for row in finder.rows(wanted)}
    assert after == before  # no schedule moved
    with spread.reading() as transaction:
        history = transaction.history.of_card(first)
    assert history[-1].kind is ReviewKind.CRAM
    assert history[-1].rating is Rating.AGAIN
    healthy(spread, clock)
    # Again brings the card back at the end of the queue, once.
    assert session.counts(clock()).total == len(wanted) - 1
    # Undo deletes the cram answer and shows the card again.
    assert session.undo(clock()).card_id == second
    with spread.reading() as transaction:
        kinds = [entry.kind for entry in transaction.history.of_card(second)]
    assert ReviewKind.CRAM not in kinds
    healthy(spread, clock)


def test_replay_passes_over_cram_answers(spread: Database, clock: Clock) -> None:
    session = _session(spread, SessionRequest(SessionKind.CRAM, search="tag:memory"), clock)
    card_id = _answer(session, clock, Rating.AGAIN)
    with spread.reading() as transaction:
        card = transaction.cards.get(card_id)
        history = transaction.history.of_card(card_id)
        presets = transaction.options.deck_presets()
    scheduler = Schedulers(fuzz=True).for_deck(presets, card.deck_id)
    without = [entry for entry in history if entry.kind is not ReviewKind.CRAM]
    assert len(without) < len(history)
    assert replay(scheduler, card, history) == replay(scheduler, card, without) == card.memory


def test_cram_of_a_selection_keeps_its_order(spread: Database, clock: Clock) -> None:
    _, finder, _ = _custom(spread)
    ids = tuple(reversed(finder.find("", clock()).card_ids))[:3]
    session = _session(spread, SessionRequest(SessionKind.CRAM, card_ids=ids), clock)
    assert [_answer(session, clock, Rating.GOOD) for _ in ids] == list(ids)
    assert session.next_card(clock()) is None


def test_a_selection_is_found_by_its_ids_narrowed_by_a_search_without_suspended_cards(
    spread: Database, clock: Clock
) -> None:
    custom, finder, changes = _custom(spread)
    ids = tuple(reversed(finder.find("", clock()).card_ids))[:5]
    changes.suspend([ids[1]], True)
    queue = custom.build(SessionRequest(SessionKind.SEARCH, card_ids=ids), clock())
    assert queue.pending == [ids[0], *ids[2:]]  # the order chosen, the suspended card out
    assert not queue.cram
    assert queue.title == "Study: selected cards"
    narrowed = custom.build(
        SessionRequest(SessionKind.CRAM, search="tag:memory", card_ids=ids), clock()
    )
    memory = set(finder.find("tag:memory", clock()).card_ids)
    assert narrowed.pending == [card_id for card_id in ids if card_id in memory - {ids[1]}]
    assert narrowed.title == "Cram: selected cards, tag:memory"


def test_a_search_studied_with_answers_rescheduled_records_ordinary_answers(
    spread: Database, clock: Clock
) -> None:
    _, finder, _ = _custom(spread)
    wanted = finder.find("tag:memory", clock()).card_ids
    session = _session(spread, SessionRequest(SessionKind.SEARCH, search="tag:memory"), clock)
    assert session.counts(clock()).total == len(wanted)
    before = finder.rows([wanted[0]])[0].memory
    card_id = _answer(session, clock, Rating.GOOD)
    assert card_id == wanted[0]
    assert finder.rows([card_id])[0].memory != before
    with spread.reading() as transaction:
        assert transaction.history.of_card(card_id)[-1].kind is ReviewKind.ANSWER
    healthy(spread, clock)
    custom, _, _ = _custom(spread)
    with pytest.raises(CustomStudyError, match="studying a search needs a search"):
        custom.build(SessionRequest(SessionKind.SEARCH), clock())


def test_preview_picks_review_cards_due_within_the_days_and_reschedules_them(
    spread: Database, clock: Clock
) -> None:
    _, finder, _ = _custom(spread)
    soon = set(finder.find("prop:due>0 prop:due<=2", clock()).card_ids)
    assert soon
    custom, _, _ = _custom(spread)
    queue = custom.build(SessionRequest(SessionKind.PREVIEW, days=2), clock())
    assert set(queue.pending) == soon
    session = StudySession(spread, Schedulers(fuzz=True), "", zone=ZONE, custom=queue)
    card_id = _answer(session, clock, Rating.GOOD)
    with spread.reading() as transaction:
        assert transaction.history.of_card(card_id)[-1].kind is ReviewKind.ANSWER
    healthy(spread, clock)


def test_forgotten_today_picks_the_cards_answered_again_today(
    bundled: Database, clock: Clock
) -> None:
    session = StudySession(bundled, Schedulers(fuzz=True), "activation-recompute", zone=ZONE)
    forgotten = [_answer(session, clock, Rating.AGAIN), _answer(session, clock, Rating.AGAIN)]
    _answer(session, clock, Rating.GOOD)
    custom, _, _ = _custom(bundled)
    queue = custom.build(SessionRequest(SessionKind.FORGOTTEN), clock())
    assert set(queue.pending) == set(forgotten)


def test_new_cards_from_a_tag_are_only_new_cards_with_the_tag(
    bundled: Database, clock: Clock
) -> None:
    answer_cards(bundled, clock, 2)
    custom, finder, _ = _custom(bundled)
    queue = custom.build(SessionRequest(SessionKind.NEW, tag="memory", limit=3), clock())
    rows = finder.rows(queue.pending)
    assert len(rows) == 3
    assert all("memory" in row.tags and row.memory.state is CardState.NEW for row in rows)
    with pytest.raises(CustomStudyError, match="need a tag"):
        custom.build(SessionRequest(SessionKind.NEW), clock())


def test_extra_takes_the_decks_due_and_new_cards_beyond_the_limits(
    spread: Database, clock: Clock
) -> None:
    custom, finder, _ = _custom(spread)
    due = finder.find("is:due", clock()).card_ids
    queue = custom.build(
        SessionRequest(SessionKind.EXTRA, deck="Activation Recomputation Tradeoffs"), clock()
    )
    assert queue.pending == list(due)
    with pytest.raises(CustomStudyError, match="deck's name"):
        custom.build(SessionRequest(SessionKind.EXTRA), clock())


def test_timed_puts_most_to_gain_first_and_stops_after_its_minutes(
    spread: Database, clock: Clock
) -> None:
    clock.advance(days=2)
    custom, finder, _ = _custom(spread)
    queue = custom.build(SessionRequest(SessionKind.TIMED, minutes=5), clock())
    scheduler = Scheduler()
    gains = []
    for row in finder.rows(queue.pending):
        assert row.memory.due is not None
        days_left = max((row.memory.due - clock()) / timedelta(days=1), 0.0)
        recall = scheduler.retrievability(row.id, row.memory, clock())
        gains.append((1 - recall) / (1 + days_left))
    assert len(gains) == 8
    assert gains == sorted(gains, reverse=True)
    session = StudySession(spread, Schedulers(fuzz=True), "", zone=ZONE, custom=queue)
    _answer(session, clock, Rating.GOOD)
    clock.advance(minutes=5)
    assert session.next_card(clock()) is None
    assert session.summary(clock()).answered == 1


def test_out_of_range_numbers_say_what_to_give(bundled: Database, clock: Clock) -> None:
    custom, _, _ = _custom(bundled)
    with pytest.raises(CustomStudyError, match="1 to 3650 days"):
        custom.build(SessionRequest(SessionKind.PREVIEW, days=0), clock())
    with pytest.raises(CustomStudyError, match="minutes"):
        custom.build(SessionRequest(SessionKind.TIMED, minutes=0), clock())
    with pytest.raises(CustomStudyError, match="needs a search"):
        custom.build(SessionRequest(SessionKind.CRAM), clock())
