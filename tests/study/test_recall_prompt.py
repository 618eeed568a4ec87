"""Choice cards asked as type-in once they are stable: when, how graded, what is recorded."""

from __future__ import annotations

import json
import math
import random
import sqlite3
from pathlib import Path

import pytest

from recall.collection import importing
from recall.content.deck_format import ChoiceCard
from recall.core import fields
from recall.core.memory import CardState, MemoryState, Rating, ReviewKind
from recall.core.presets import Preset, parse_changes
from recall.scheduling import Schedulers
from recall.storage import Database
from recall.study.recall_prompt import (
    MAX_RECALL_CHARS,
    asked_as_recall,
    recall_answer,
    typed_option,
)
from recall.study.session import StudySession
from recall.study.values import StudyCard
from tests.conftest import ZONE, Clock
from tests.helpers.mature_choice import CARDS, due_review, use_threshold, write_deck


@pytest.fixture
def session(
    database: Database, schedulers: Schedulers, clock: Clock, tmp_path: Path
) -> StudySession:
    importing.import_files(database, schedulers, [write_deck(tmp_path)], clock())
    return StudySession(database, schedulers, "capitals", random.Random(3), ZONE)


@pytest.fixture
def mature(session: StudySession, database: Database, clock: Clock) -> StudyCard:
    """The France card due in review, asked as type-in (threshold 1 day)."""
    use_threshold(database, 1)
    shown = due_review(session, clock, "france")
    assert shown.as_recall
    return shown


def test_a_stable_choice_card_is_asked_as_type_in_at_the_threshold_and_not_below(
    session: StudySession, database: Database, clock: Clock
) -> None:
    shown = due_review(session, clock, "france")
    assert not shown.as_recall  # the default is never
    stability = shown.memory.stability
    assert stability is not None
    assert stability >= 1
    for days, as_recall in ((math.floor(stability), True), (math.floor(stability) + 1, False)):
        use_threshold(database, days)  # the session reads presets again at the next card
        again = session.next_card(clock())
        assert again is not None
        assert (again.card_id, again.as_recall) == (shown.card_id, as_recall)
    # Exactly at the threshold counts, a hair below does not.
    review = MemoryState(state=CardState.REVIEW, stability=21.0)
    assert asked_as_recall(shown.card, review, 21)
    below = MemoryState(state=CardState.REVIEW, stability=20.99)
    assert not asked_as_recall(shown.card, below, 21)
    learning = MemoryState(state=CardState.RELEARNING, stability=50.0)
    assert not asked_as_recall(shown.card, learning, 21)


def test_select_all_cards_and_untypeable_options_keep_their_choices(
    session: StudySession, database: Database, clock: Clock
) -> None:
    use_threshold(database, 1)
    shown = due_review(session, clock, "primes")
    assert shown.memory.stability is not None
    assert shown.memory.stability >= 1
    assert not shown.as_recall
    card = ChoiceCard.model_validate(CARDS[0])
    stable = MemoryState(state=CardState.REVIEW, stability=100.0)
    for text in ("![Paris](paris.png)", "Paris [sound:paris.mp3]", "x" * (MAX_RECALL_CHARS + 1)):
        odd = {**CARDS[0], "choices": [{"text": text, "correct": True}, {"text": "Lyon"}]}
        assert not asked_as_recall(ChoiceCard.model_validate(odd), stable, 1), text
    assert asked_as_recall(card, stable, 1)
    assert recall_answer(card) == "Paris"  # the option as shown, its Markdown gone


def test_typing_the_right_option_records_a_right_answer_picking_it(
    session: StudySession, database: Database, clock: Clock, mature: StudyCard
) -> None:
    clock.advance(seconds=6)
    answer = session.answer_typed(mature, "  paris ", clock())  # case and spaces aside
    assert (answer.correct, answer.proposed) == (True, Rating.GOOD)
    assert answer.typed is not None
    assert answer.typed.correct
    recorded = session.record(answer, answer.proposed, clock.advance(seconds=1))
    with database.reading() as tx:
        last = tx.history.of_card(mature.card_id)[-1]
    assert last.id == recorded.review_id
    assert (last.kind, last.correct, last.picked, last.rating) == (
        ReviewKind.ANSWER,
        True,
        ("**Paris**",),
        Rating.GOOD,
    )


def test_typing_a_wrong_option_records_that_pick_and_again(
    session: StudySession, database: Database, clock: Clock, mature: StudyCard
) -> None:
    clock.advance(seconds=6)
    answer = session.answer_typed(mature, "LYON", clock())
    assert (answer.correct, answer.proposed) == (False, Rating.AGAIN)
    assert isinstance(mature.card, ChoiceCard)
    assert answer.picked == {typed_option(mature.card, "lyon")} == {1}
    session.record(answer, answer.proposed, clock.advance(seconds=1))
    with database.reading() as tx:
        last = tx.history.of_card(mature.card_id)[-1]
        misconceptions = tx.statistics.wrong_picks()
    assert (last.correct, last.picked) == (False, ("Lyon",))
    assert [(pick.choice, pick.times, pick.still) for pick in misconceptions] == [("Lyon", 1, True)]


def test_a_near_miss_proposes_hard_and_picks_nothing(
    session: StudySession, database: Database, clock: Clock, mature: StudyCard
) -> None:
    clock.advance(seconds=6)
    answer = session.answer_typed(mature, "Pariss", clock())
    assert (answer.correct, answer.proposed, answer.picked) == (False, Rating.HARD, frozenset())
    session.record(answer, answer.proposed, clock.advance(seconds=1))
    with database.reading() as tx:
        last = tx.history.of_card(mature.card_id)[-1]
    assert (last.correct, last.picked, last.rating) == (False, None, Rating.HARD)


def test_after_again_the_card_is_asked_with_its_choices(
    session: StudySession, clock: Clock, mature: StudyCard
) -> None:
    clock.advance(seconds=6)
    answer = session.answer_typed(mature, "Marseille", clock())
    recorded = session.record(answer, Rating.AGAIN, clock.advance(seconds=1))
    assert recorded.memory.state is CardState.RELEARNING
    clock.advance(minutes=11)
    again = session.next_card(clock())
    assert again is not None
    assert again.card_id == mature.card_id
    assert not again.as_recall
    assert again.memory.state is CardState.RELEARNING


def test_asking_for_the_choices_proposes_at_most_hard(
    session: StudySession, clock: Clock, mature: StudyCard
) -> None:
    with_choices = session.show_choices(mature)
    assert (with_choices.as_recall, with_choices.choices_asked) == (False, True)
    assert with_choices.order == mature.order
    assert with_choices.shown_at == mature.shown_at
    assert isinstance(mature.card, ChoiceCard)
    clock.advance(seconds=6)
    right = session.answer_choice(with_choices, set(mature.card.correct_indexes), clock())
    assert (right.correct, right.proposed) == (True, Rating.HARD)
    wrong = session.answer_choice(with_choices, {1}, clock())
    assert wrong.proposed is Rating.AGAIN
    with pytest.raises(ValueError, match="asked as type-in"):
        session.show_choices(with_choices)


def test_the_option_defaults_to_never_and_round_trips(database: Database, tmp_path: Path) -> None:
    assert Preset().type_in_from_stability == 0
    assert parse_changes(["type_in_from_stability=21"]) == {"type_in_from_stability": 21}
    with pytest.raises(fields.OptionError, match="0-36500"):
        parse_changes(["type_in_from_stability=-1"])
    with database.transaction() as tx:
        preset_id = tx.options.save_preset(None, Preset(name="Mature", type_in_from_stability=21))
    with database.reading() as tx:
        assert tx.options.deck_presets().presets[preset_id].type_in_from_stability == 21
    # A preset stored before the option existed reads with the default.
    connection = sqlite3.connect(database.path)
    with connection:
        connection.execute(
            "UPDATE preset SET config = json_remove(config, '$.type_in_from_stability') "
            "WHERE id = ?",
            (preset_id,),
        )
        (config,) = connection.execute(
            "SELECT config FROM preset WHERE id = ?", (preset_id,)
        ).fetchone()
    connection.close()
    assert "type_in_from_stability" not in json.loads(config)
    with database.reading() as tx:
        older = tx.options.deck_presets().presets[preset_id]
    assert (older.name, older.type_in_from_stability) == ("Mature", 0)


def test_undoing_a_typed_answer_asks_the_card_as_type_in_again(
    session: StudySession, database: Database, clock: Clock, mature: StudyCard
) -> None:
    clock.advance(seconds=6)
    answer = session.answer_typed(mature, "Marseille", clock())
    session.record(answer, Rating.AGAIN, clock.advance(seconds=1))
    back = session.undo(clock())
    assert (back.card_id, back.as_recall, back.order) == (mature.card_id, True, mature.order)
    with database.reading() as tx:
        assert [r.rating for r in tx.history.of_card(mature.card_id)][-1] is not Rating.AGAIN
