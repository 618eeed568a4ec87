"""Follow-ups in a study session, on a real database: a wrong option picked twice comes back
as a follow-up among the reviews; its answers are follow-up entries of the history, which
leave the card's own schedule as its replay says, and the check stays healthy."""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from datetime import timedelta

from recall.collection import deck_list, importing
from recall.content.deck_format import ChoiceCard, parse_deck
from recall.core.memory import NEW_CARD, CardState, Rating, ReviewKind
from recall.core.presets import DEFAULT_PRESET_ID, Preset
from recall.safekeeping import integrity
from recall.safekeeping.integrity import replay
from recall.scheduling import Scheduler, Schedulers
from recall.scheduling.follow_ups import Standing
from recall.storage import Database
from recall.study.follow_ups import CardFollowUp, card_follow_ups
from recall.study.session import StudySession
from recall.study.values import StudyCard
from tests.conftest import ZONE, Clock

DECK = "capitals"
WHY = "Lyon is France's third city; the government sits in Paris."


def make_deck(database: Database, clock: Clock) -> None:
    """One choice card whose wrong option Lyon has a note, and a basic card beside it."""
    cards = [
        {
            "id": "france",
            "type": "choice",
            "question": "What is the capital of France?",
            "choices": [
                {"text": "Paris", "correct": True},
                {"text": "Lyon", "why": WHY},
                {"text": "Marseille"},
            ],
        },
        {"id": "spain", "type": "basic", "front": "Capital of Spain?", "back": "Madrid"},
    ]
    deck = {"format": "recall-deck", "version": 1, "id": DECK, "name": "Capitals", "cards": cards}
    importing.import_deck(database, parse_deck(json.dumps(deck), "capitals.json"), clock())


def session_for(database: Database) -> StudySession:
    return StudySession(database, Schedulers(fuzz=False), DECK, random.Random(3), zone=ZONE)


def pick(session: StudySession, shown: StudyCard, text: str, clock: Clock) -> None:
    """Answer a choice card with the option of that text, the rating proposed."""
    assert isinstance(shown.card, ChoiceCard)
    index = next(i for i, choice in enumerate(shown.card.choices) if choice.text == text)
    answer = session.answer_choice(shown, {index}, clock.advance(seconds=5))
    session.record(answer, answer.proposed, clock.advance(seconds=1))


def study_until(session: StudySession, clock: Clock, key: str, text: str = "Paris") -> StudyCard:
    """Answer the basic card Good and the choice card with ``text`` until ``key`` comes up as a
    card of its own (not a follow-up); it is returned, unanswered."""
    found = _study_until(
        session, clock, lambda shown: shown.card.id == key and shown.follow_up is None, text
    )
    if found is None:
        raise AssertionError(f"{key} never came up")
    return found


def study_until_follow_up(session: StudySession, clock: Clock) -> StudyCard:
    """Answer the basic card Good and the choice card with Paris until a follow-up comes up
    among the reviews; it is returned, unanswered."""
    found = _study_until(session, clock, lambda shown: shown.follow_up is not None)
    if found is None:
        raise AssertionError("no follow-up came up")
    return found


def _study_until(
    session: StudySession, clock: Clock, wanted: Callable[[StudyCard], bool], text: str = "Paris"
) -> StudyCard | None:
    """Answer the basic card Good and the choice card with ``text`` until a ``wanted`` card
    comes up (returned, unanswered); None when none did in 50 cards."""
    for _ in range(50):
        shown = session.next_card(clock())
        if shown is None:
            clock.advance(minutes=11)
            continue
        if wanted(shown):
            return shown
        if isinstance(shown.card, ChoiceCard):
            pick(session, shown, text, clock)
        else:
            answer = session.reveal(shown, clock.advance(seconds=3))
            session.record(answer, Rating.GOOD, clock.advance(seconds=1))
    return None


def follow_ups_of(database: Database) -> list[CardFollowUp]:
    with database.reading() as transaction:
        presets = transaction.options.deck_presets()
        return card_follow_ups(transaction, Schedulers(fuzz=False), presets)


def card_memory(database: Database, key: str) -> tuple[object, object]:
    with database.reading() as transaction:
        deck = transaction.decks.by_key(DECK)
        assert deck is not None
        card = transaction.cards.get(transaction.cards.keys(deck.id)[key].id)
        history = transaction.history.of_card(card.id)
        return card.memory, replay(Scheduler(fuzz=False), card, history)


def picked_twice(database: Database, clock: Clock) -> StudySession:
    """Lyon picked in the card's first two answers, then the card learnt again."""
    session = session_for(database)
    pick(session, study_until(session, clock, "france"), "Lyon", clock)
    clock.advance(minutes=2)
    pick(session, study_until(session, clock, "france"), "Lyon", clock)
    return session


def test_an_option_picked_twice_becomes_a_follow_up_due_as_fsrs_says(
    database: Database, clock: Clock
) -> None:
    make_deck(database, clock)
    session = session_for(database)
    pick(session, study_until(session, clock, "france"), "Lyon", clock)
    assert follow_ups_of(database) == []  # once is a slip
    clock.advance(minutes=2)
    second = clock.now
    pick(session, study_until(session, clock, "france"), "Lyon", clock)
    (made,) = follow_ups_of(database)
    assert made.option == "Lyon"
    assert made.why == WHY
    assert made.follow_up.standing is Standing.ACTIVE
    picked_at = second + timedelta(seconds=5)
    seed = made.seed
    assert made.follow_up.memory == Scheduler(fuzz=False).review(
        seed, NEW_CARD, Rating.AGAIN, picked_at
    )
    # While the card is still learning, its follow-up waits: the card comes back first.
    assert made.state is CardState.LEARNING
    assert not made.askable(clock())


def test_a_due_follow_up_is_shown_and_its_answer_leaves_the_card_as_replayed(
    database: Database, clock: Clock, schedulers: Schedulers
) -> None:
    make_deck(database, clock)
    session = picked_twice(database, clock)
    # Learn the card again (Paris) until the follow-up comes up among the reviews.
    shown = study_until_follow_up(session, clock)
    assert shown.follow_up is not None
    assert shown.card.id == "france"
    assert shown.follow_up.option == "Lyon"
    assert shown.follow_up.picks == 2
    assert shown.follow_up.why == WHY
    # Every choice is there, the wrong option among them.
    assert isinstance(shown.card, ChoiceCard)
    assert sorted(shown.card.choices[i].text for i in shown.order) == ["Lyon", "Marseille", "Paris"]
    before, _ = card_memory(database, "france")
    counted = session.counts(clock())
    assert counted.review >= 1  # counted among the reviews
    (listed,) = deck_list.deck_overviews(database, clock(), ZONE, Schedulers(fuzz=False))
    assert listed.due == counted.due  # the deck list counts it too
    pick(session, shown, "Paris", clock)
    (relisted,) = deck_list.deck_overviews(database, clock(), ZONE, Schedulers(fuzz=False))
    assert relisted.due == session.counts(clock()).due
    after, replayed = card_memory(database, "france")
    assert after == before == replayed  # the card's own schedule did not move
    with database.reading() as transaction:
        deck = transaction.decks.by_key(DECK)
        assert deck is not None
        card_id = transaction.cards.keys(deck.id)["france"].id
        last = transaction.history.of_card(card_id)[-1]
    assert last.kind is ReviewKind.FOLLOW_UP
    assert last.rating is not None
    assert last.rating.passed
    (item,) = follow_ups_of(database)
    assert item.follow_up.answers == 1
    assert item.due is not None
    assert item.due > clock()
    report = integrity.check(database, schedulers, clock())
    assert report.healthy, report.problems
    # Undo takes the follow-up answer back and shows the card as a follow-up again.
    again = session.undo(clock())
    assert again.follow_up is not None
    assert again.follow_up.option == "Lyon"
    assert follow_ups_of(database)[0].follow_up.answers == 0
    assert integrity.check(database, schedulers, clock()).healthy


def test_follow_up_answers_count_towards_the_review_limit(database: Database, clock: Clock) -> None:
    make_deck(database, clock)
    session = picked_twice(database, clock)
    with database.transaction() as transaction:
        transaction.options.save_preset(DEFAULT_PRESET_ID, Preset(reviews_per_day=1))
    # Learn the card until its follow-up is due, then answer it: the day's one review.
    pick(session, study_until_follow_up(session, clock), "Paris", clock)
    with database.reading() as transaction:
        deck = transaction.decks.by_key(DECK)
        assert deck is not None
        start = clock.now - timedelta(hours=1)
        assert transaction.queue.follow_ups_answered_since([deck.id], start) == 1
    fresh = session_for(database)
    today = fresh.counts(clock())
    assert today.review == 0
