"""The statistics read follow-ups on misconceptions: each misconception persisting, fading
or faded, with counts, and the follow-up answers, in the figures and in `stats --json`."""

from __future__ import annotations

import dataclasses
import json
from datetime import UTC, datetime, timedelta

from recall.collection import importing
from recall.content.deck_format import parse_deck
from recall.core.memory import CardState, Rating, ReviewKind
from recall.core.preferences import Preferences
from recall.safekeeping import integrity
from recall.safekeeping.integrity import replay
from recall.scheduling import Scheduler, Schedulers
from recall.stats import collect, to_json
from recall.storage import Database, NewReview
from recall.study.follow_up_summary import Kept

START = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
WHY = "Lyon is France's third city."

# Per card: (days after START, option picked, kind) for each answer.
HISTORIES = {
    # Lyon picked twice, then three follow-up answers without it across 25 days: faded.
    "faded": [(0, "Lyon", 0), (1, "Lyon", 0), (3, "Paris", 5), (5, "Paris", 5), (30, "Paris", 5)],
    # Lyon picked twice, then a follow-up answer without it: fading.
    "fading": [(0, "Lyon", 0), (1, "Lyon", 0), (3, "Paris", 5)],
    # Lyon picked twice, and again in the follow-up answer: persisting.
    "persisting": [(0, "Lyon", 0), (1, "Lyon", 0), (3, "Lyon", 5)],
    # Lyon picked once: a misconception with no follow-up.
    "once": [(0, "Lyon", 0), (1, "Paris", 0)],
}


def build(
    database: Database,
    histories: dict[str, list[tuple[int, str, int]]] = HISTORIES,
    deck_key: str = "fr",
) -> None:
    """A deck with one card per history, each answered as ``histories`` says, schedules
    replayed from the history as Recall keeps them."""
    cards = [
        {
            "id": key,
            "type": "choice",
            "question": f"Capital of France ({key})?",
            "choices": [
                {"text": "Paris", "correct": True},
                {"text": "Lyon", "why": WHY},
                {"text": "Marseille"},
            ],
        }
        for key in histories
    ]
    deck = {"format": "recall-deck", "version": 1, "id": deck_key, "name": deck_key, "cards": cards}
    importing.import_deck(database, parse_deck(json.dumps(deck), f"{deck_key}.json"), START)
    scheduler = Scheduler(fuzz=False)
    with database.transaction() as transaction:
        deck_row = transaction.decks.by_key(deck_key)
        assert deck_row is not None
        keys = transaction.cards.keys(deck_row.id)
        for key, answers in histories.items():
            card_id = keys[key].id
            for days, option, kind in answers:
                right = option == "Paris"
                review = NewReview.rated(
                    card_id=card_id,
                    reviewed_at=START + timedelta(days=days),
                    rating=Rating.GOOD if right else Rating.AGAIN,
                    duration_ms=4000,
                    state_before=CardState.REVIEW,
                    picked=(option,),
                    correct=right,
                    proposed=Rating.GOOD if right else Rating.AGAIN,
                )
                transaction.history.add(dataclasses.replace(review, kind=ReviewKind(kind)))
            card = transaction.cards.get(card_id)
            transaction.cards.set_memory(
                card_id, replay(scheduler, card, transaction.history.of_card(card_id))
            )


def test_each_misconception_shows_where_its_follow_up_is(database: Database) -> None:
    build(database)
    now = START + timedelta(days=31)
    assert integrity.check(database, Schedulers(fuzz=False), now).healthy
    figures = collect(database, Preferences(), now, schedulers=Schedulers(fuzz=False))
    by_card = {item.card_key: item for item in figures.misconceptions if item.choice == "Lyon"}
    assert {key: item.follow_up for key, item in by_card.items()} == {
        "faded": "faded",
        "fading": "fading",
        "persisting": "persisting",
        "once": "",
    }
    # The follow-up answers' picks count among the misconception's picks.
    assert by_card["persisting"].times == 3
    follow_ups = figures.follow_ups
    assert (follow_ups.persisting, follow_ups.fading, follow_ups.faded) == (1, 1, 1)
    assert (follow_ups.answers, follow_ups.wrong) == (5, 1)
    written = json.loads(json.dumps(to_json(figures)))
    assert written["follow_ups"] == {
        "persisting": 1,
        "fading": 1,
        "faded": 1,
        "answers": 5,
        "wrong": 1,
    }
    assert {item["card"]: item["follow_up"] for item in written["misconceptions"]} == {
        "faded": "faded",
        "fading": "fading",
        "persisting": "persisting",
        "once": None,
    }


def test_a_faded_misconception_picked_again_persists_with_a_follow_up_asked_again(
    database: Database,
) -> None:
    build(database)
    later = START + timedelta(days=40)
    with database.transaction() as transaction:
        deck_row = transaction.decks.by_key("fr")
        assert deck_row is not None
        card_id = transaction.cards.keys(deck_row.id)["faded"].id
        transaction.history.add(
            NewReview.rated(
                card_id=card_id,
                reviewed_at=later,
                rating=Rating.AGAIN,
                duration_ms=4000,
                state_before=CardState.REVIEW,
                picked=("Lyon",),
                correct=False,
                proposed=Rating.AGAIN,
            )
        )
        card = transaction.cards.get(card_id)
        history = transaction.history.of_card(card_id)
        transaction.cards.set_memory(card_id, replay(Scheduler(fuzz=False), card, history))
    now = later + timedelta(minutes=1)
    assert integrity.check(database, Schedulers(fuzz=False), now).healthy
    figures = collect(database, Preferences(), now, schedulers=Schedulers(fuzz=False))
    (back,) = [item for item in figures.misconceptions if item.card_key == "faded"]
    assert back.follow_up == "persisting"
    assert back.times == 3
    follow_ups = figures.follow_ups
    assert (follow_ups.persisting, follow_ups.fading, follow_ups.faded) == (2, 1, 0)


def test_the_follow_ups_are_counted_for_one_deck_and_with_cards_marked_stale(
    database: Database,
) -> None:
    build(database)
    # Another deck with two persisting follow-ups and three fading: every count differs.
    more = {
        f"{name}{n}": HISTORIES[name]
        for name, count in (("persisting", 2), ("fading", 3))
        for n in range(count)
    }
    build(database, more, "fr2")
    card = {"id": "b", "type": "basic", "front": "Capital of Germany?", "back": "Berlin"}
    other = {"format": "recall-deck", "version": 1, "id": "de", "name": "Germany", "cards": [card]}
    importing.import_deck(database, parse_deck(json.dumps(other), "de.json"), START)
    now = START + timedelta(days=31)
    settings = Preferences()
    every = (("fr", (1, 1, 1)), ("fr2", (2, 3, 0)), (None, (3, 4, 1)), ("de", (0, 0, 0)))
    for deck_key, expected in every:
        figures = collect(database, settings, now, deck_key).follow_ups
        assert (figures.persisting, figures.fading, figures.faded) == expected, deck_key
    shown = {
        item.card_key: item.follow_up
        for item in collect(database, settings, now, "fr").misconceptions
    }
    # Marked stale (as an answer or a changed preset marks them), the cards' follow-ups are
    # worked out again by the reader and counted once, in place of their kept rows.
    with database.transaction() as transaction:
        transaction.sql.run(
            "INSERT INTO follow_up_stale (card_id) SELECT card_id FROM follow_up_summary "
            "WHERE option = 'Lyon' ON CONFLICT DO NOTHING"
        )
    with database.reading() as transaction:
        kept = Kept(transaction, transaction.options.deck_presets(), store=False)
        assert kept.standing_counts() == {"persisting": 3, "fading": 4, "faded": 1}
        deck_row = transaction.decks.by_key("fr")
        assert deck_row is not None
        assert kept.standing_counts([deck_row.id]) == {"persisting": 1, "fading": 1, "faded": 1}
        ids = {key: row.id for key, row in transaction.cards.keys(deck_row.id).items()}
        standings = kept.standings(list(ids.values()))
    assert {key: standings.get((ids[key], "Lyon"), "") for key in ids} == shown
