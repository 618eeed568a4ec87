"""Every deck option has an effect, end to end: limits, order, shuffle, steps, retention."""

from __future__ import annotations

import random
from datetime import timedelta

import pytest

from recall.changes.cards import Changes
from recall.collection import deck_list
from recall.content.deck_format import ChoiceCard
from recall.core.errors import CancelledError
from recall.core.fields import OptionError
from recall.core.memory import CardState, Rating
from recall.core.preferences import Preferences
from recall.core.presets import DEFAULT_PRESET_ID, Preset
from recall.options import deck_options
from recall.safekeeping import integrity
from recall.scheduling import Scheduler, Schedulers
from recall.storage import Database, PresetNameError
from recall.study.session import StudySession
from recall.study.values import StudyCard
from tests.conftest import ZONE, Clock
from tests.scheduling.test_optimize import simulate, truth

DECK = "activation-recompute"


def session(database: Database, seed: int = 1) -> StudySession:
    return StudySession(database, Schedulers(fuzz=False), DECK, random.Random(seed), ZONE)


def change(database: Database, clock: Clock, **changes: object) -> deck_options.OptionsChange:
    return deck_options.change_preset(
        database, Schedulers(fuzz=False), DEFAULT_PRESET_ID, changes, clock(), ZONE
    )


def study_all(study: StudySession, clock: Clock, rating: Rating = Rating.GOOD) -> int:
    """Answer every card shown with ``rating``, picking the right choice (a wrong one picked
    twice would start a misconception follow-up, another item in the queue)."""
    answered = 0
    while (shown := study.next_card(clock())) is not None:
        clock.advance(seconds=8)
        if isinstance(shown.card, ChoiceCard):
            graded = study.answer_choice(shown, {right_choice(shown)}, clock())
        else:
            graded = study.reveal(shown, clock())
        study.record(graded, rating, clock())
        answered += 1
    return answered


def right_choice(shown: StudyCard) -> int:
    assert isinstance(shown.card, ChoiceCard)
    return next(i for i, choice in enumerate(shown.card.choices) if choice.correct)


def deck_counts(database: Database, clock: Clock) -> tuple[int, int]:
    (deck,) = deck_list.deck_overviews(database, clock(), ZONE)
    return deck.new, deck.due


def test_new_per_day_limits_the_queue_and_the_deck_list(bundled: Database, clock: Clock) -> None:
    change(bundled, clock, new_per_day=5)
    assert deck_counts(bundled, clock) == (5, 0)
    assert session(bundled).counts(clock()).new == 5
    study_all(session(bundled), clock)
    with bundled.reading() as tx:
        introduced = tx.queue.introduced_since([session(bundled).deck.id], clock() - timedelta(1))
    assert introduced == 5


def test_reviews_per_day_limits_review_cards(bundled: Database, clock: Clock) -> None:
    study_all(session(bundled), clock)  # all 8 cards through learning into review
    clock.advance(days=30)
    assert deck_counts(bundled, clock) == (0, 8)
    change(bundled, clock, reviews_per_day=3)
    assert deck_counts(bundled, clock) == (0, 3)
    assert study_all(session(bundled), clock) == 3
    assert session(bundled).counts(clock()).total == 0


def test_today_only_extras_expire_at_the_rollover(bundled: Database, clock: Clock) -> None:
    change(bundled, clock, new_per_day=2)
    change(bundled, clock, extra_new_today=3)
    assert deck_counts(bundled, clock)[0] == 5
    # 03:59 Berlin the next night is still today; 04:00 is the next study day.
    clock.now = clock.now.replace(hour=2, minute=59) + timedelta(days=1)
    assert deck_counts(bundled, clock)[0] == 5
    clock.advance(minutes=1)
    assert deck_counts(bundled, clock)[0] == 2


def test_new_card_order_random_differs_from_deck_order(bundled: Database, clock: Clock) -> None:
    in_deck_order = [session(bundled).next_card(clock()).card.id]  # type: ignore[union-attr]
    change(bundled, clock, new_card_order="random")
    shown = session(bundled).next_card(clock())
    assert shown is not None
    assert shown.card.id != in_deck_order[0]
    again = session(bundled, seed=9).next_card(clock())
    assert again is not None
    assert again.card.id == shown.card.id


def test_shuffle_off_shows_choices_in_file_order(bundled: Database, clock: Clock) -> None:
    change(bundled, clock, shuffle_choices=False)
    orders = {session(bundled, seed).next_card(clock()).order for seed in range(10)}  # type: ignore[union-attr]
    assert orders == {(0, 1, 2, 3)}


def test_steps_change_the_learning_intervals(bundled: Database, clock: Clock) -> None:
    change(bundled, clock, learning_steps=(timedelta(minutes=3), timedelta(minutes=30)))
    study = session(bundled)
    shown = study.next_card(clock())
    assert shown is not None
    graded = study.answer_choice(shown, {shown.order[0]}, clock.advance(seconds=5))
    assert graded.intervals[Rating.AGAIN] == timedelta(minutes=3)
    assert graded.intervals[Rating.GOOD] == timedelta(minutes=30)


def test_retention_changes_the_next_interval(bundled: Database, clock: Clock) -> None:
    study_all(session(bundled), clock)
    clock.advance(days=20)

    def good_interval() -> timedelta:
        study = session(bundled)
        shown = study.next_card(clock())
        assert shown is not None
        assert shown.memory.state is CardState.REVIEW
        return study.answer_choice(shown, {shown.order[0]}, clock()).intervals[Rating.GOOD]

    at_90 = good_interval()
    change(bundled, clock, desired_retention=0.8)
    at_80 = good_interval()
    change(bundled, clock, desired_retention=0.97)
    at_97 = good_interval()
    assert at_97 < at_90 < at_80


def test_answer_time_grading_off_proposes_good(bundled: Database, clock: Clock) -> None:
    study = session(bundled)
    for _ in range(study.preferences.timing_sample_size + 1):
        shown = study.next_card(clock())
        assert shown is not None
        graded = study.answer_choice(shown, {right_choice(shown)}, clock.advance(seconds=10))
        study.record(graded, Rating.GOOD, clock())
    shown = study.next_card(clock())
    assert shown is not None
    fast = shown.shown_at + timedelta(seconds=1)
    right = right_choice(shown)
    assert study.answer_choice(shown, {right}, fast).proposed is Rating.EASY
    chosen = deck_options.preferences(bundled)
    deck_options.save_preferences(bundled, type(chosen)(answer_time_grading=False), clock())
    assert session(bundled).answer_choice(shown, {right}, fast).proposed is Rating.GOOD


def test_rescheduling_keeps_check_clean_and_is_undone_exactly(
    bundled: Database, clock: Clock
) -> None:
    schedulers = Schedulers(fuzz=True)
    unbalanced(bundled, clock)  # each due date the fuzz draw's, which a replay moves
    study = StudySession(bundled, schedulers, DECK, random.Random(2), ZONE)
    study_all(study, clock)
    clock.advance(days=3)
    study_all(StudySession(bundled, schedulers, DECK, random.Random(2), ZONE), clock, Rating.HARD)
    with bundled.reading() as tx:
        before = tx.cards.of_deck(study.deck.id)
    made = deck_options.change_preset(
        bundled,
        schedulers,
        DEFAULT_PRESET_ID,
        {"desired_retention": 0.8, "relearning_steps": (timedelta(minutes=5),)},
        clock(),
    )
    assert made.rescheduled == 8
    assert made.backup is not None
    assert made.backup.exists()
    with bundled.reading() as tx:
        after = tx.cards.of_deck(study.deck.id)
    assert [card.memory.due for card in after] != [card.memory.due for card in before]
    assert integrity.check(bundled, schedulers, clock()).healthy
    undone = deck_options.undo(bundled, schedulers, made, clock())
    assert undone.rescheduled == 8
    with bundled.reading() as tx:
        assert tx.cards.of_deck(study.deck.id) == before
        assert tx.options.deck_presets().of_deck(study.deck.id) == Preset(load_balancing=False)
    assert integrity.check(bundled, schedulers, clock()).healthy


def test_a_new_limit_does_not_reschedule(bundled: Database, clock: Clock) -> None:
    study_all(session(bundled), clock)
    made = change(bundled, clock, new_per_day=1, leech_threshold=4, leech_action="suspend")
    assert (made.rescheduled, made.backup) == (0, None)


def test_presets_are_added_cloned_renamed_shared_and_deleted(
    bundled: Database, clock: Clock
) -> None:
    schedulers = Schedulers(fuzz=False)
    options = deck_options.deck_options(bundled, DECK)
    assert (options.preset_id, options.preset.name) == (DEFAULT_PRESET_ID, "Default")
    fast = deck_options.add_preset(bundled, "Fast", Preset(new_per_day=5))
    clone = deck_options.add_preset(
        bundled, "Fast copy", deck_options.deck_options(bundled, DECK).presets[fast]
    )
    with pytest.raises(PresetNameError, match="already a preset named 'Fast'"):
        deck_options.add_preset(bundled, "Fast")
    with pytest.raises(PresetNameError, match="needs a name"):
        deck_options.rename_preset(bundled, clone, "  ")
    deck_options.rename_preset(bundled, clone, "Slow")
    deck_options.use_preset(bundled, schedulers, [options.deck.id], clone, clock())
    shown = deck_options.deck_options(bundled, DECK)
    assert (shown.preset.name, shown.preset.new_per_day) == ("Slow", 5)
    assert deck_counts(bundled, clock)[0] == 5
    with pytest.raises(PresetNameError, match="cannot be deleted"):
        deck_options.delete_preset(bundled, schedulers, DEFAULT_PRESET_ID, clock())
    deck_options.delete_preset(bundled, schedulers, clone, clock())
    shown = deck_options.deck_options(bundled, DECK)
    assert shown.preset_id == DEFAULT_PRESET_ID
    assert sorted(preset.name for preset in shown.presets.values()) == ["Default", "Fast"]


def test_subdecks_are_the_decks_below_in_the_tree(bundled: Database, clock: Clock) -> None:
    with bundled.transaction() as tx:
        parent = tx.decks.add("lang", "Languages", "", clock())
        child = tx.decks.add("lang-fr", "Languages::French", "", clock())
        grandchild = tx.decks.add("lang-fr-v", "Languages::French::Verbs", "", clock())
        tx.decks.add("lang-other", "Languages2", "", clock())
        decks = tx.options.decks()
    below = deck_options.subdecks(decks, parent)
    assert [deck.id for deck in below] == [child.id, grandchild.id]


def test_bad_values_are_refused_with_the_limits(bundled: Database, clock: Clock) -> None:
    with pytest.raises(OptionError, match=r"Desired retention: 1.5 is outside 0.7-0.99"):
        change(bundled, clock, desired_retention=1.5)
    with pytest.raises(OptionError, match="New cards/day: expected a whole number"):
        change(bundled, clock, new_per_day=2.5)
    with pytest.raises(OptionError, match="there is no option 'colour'"):
        change(bundled, clock, colour="red")
    assert deck_options.deck_options(bundled, DECK).preset == Preset()


def test_a_stopped_reschedule_changes_nothing(bundled: Database, clock: Clock) -> None:
    study_all(session(bundled), clock)
    with bundled.reading() as tx:
        before = tx.cards.of_deck(session(bundled).deck.id)
    with pytest.raises(CancelledError, match="stopped; nothing changed"):
        deck_options.apply(
            bundled,
            Schedulers(fuzz=False),
            {DEFAULT_PRESET_ID: Preset(desired_retention=0.8)},
            {},
            clock(),
            cancelled=lambda: True,  # the preset is already saved, in the same transaction
        )
    with bundled.reading() as tx:
        assert tx.cards.of_deck(session(bundled).deck.id) == before
    assert deck_options.deck_options(bundled, DECK).preset == Preset()


@pytest.mark.parametrize(("retention", "longest"), [(0.8, 36500), (0.95, 36500), (0.9, 20)])
def test_due_dates_worked_out_again_equal_a_full_replay(retention: float, longest: int) -> None:
    histories = simulate(truth((0.5, 2.0, 6.0, 20.0), 1.2), 60, 400, 11)
    for fuzz in (True, False):
        old, new = (
            Scheduler(fuzz=fuzz),
            Scheduler(Preset(desired_retention=retention, maximum_interval=longest), fuzz=fuzz),
        )
        in_review = 0
        for card_id, history in enumerate(histories):
            stored = old.replay(card_id, history)
            in_review += stored.state is CardState.REVIEW
            assert new.due_again(card_id, stored) == new.replay(card_id, history)
        assert in_review > 30


def test_a_retention_change_alone_moves_due_dates_and_check_agrees(
    bundled: Database, clock: Clock
) -> None:
    schedulers = Schedulers(fuzz=True)
    unbalanced(bundled, clock)
    study_all(StudySession(bundled, schedulers, DECK, random.Random(4), ZONE), clock)
    clock.advance(days=4)
    study_all(StudySession(bundled, schedulers, DECK, random.Random(4), ZONE), clock)
    made = deck_options.change_preset(
        bundled, schedulers, DEFAULT_PRESET_ID, {"desired_retention": 0.75}, clock()
    )
    assert made.rescheduled == 8
    assert integrity.check(bundled, schedulers, clock()).healthy


def test_a_retention_change_keeps_the_due_dates_load_balancing_chose(
    bundled: Database, clock: Clock
) -> None:
    schedulers = Schedulers(fuzz=True)
    study_all(StudySession(bundled, schedulers, DECK, random.Random(4), ZONE), clock)
    clock.advance(days=4)
    study_all(StudySession(bundled, schedulers, DECK, random.Random(4), ZONE), clock)
    with bundled.reading() as tx:
        before = tx.cards.of_deck(deck_options.deck_options(bundled, DECK).deck.id)
        chosen = {
            card.id: [row.set_due for row in tx.history.of_card(card.id)][-1] for card in before
        }
    assert all(due is not None for due in chosen.values())
    assert {card.id: card.memory.due for card in before} == chosen
    made = deck_options.change_preset(
        bundled, schedulers, DEFAULT_PRESET_ID, {"desired_retention": 0.75}, clock()
    )
    # The history holds the day each last answer chose: it stands until the next answer.
    assert made.rescheduled == 0
    assert integrity.check(bundled, schedulers, clock()).healthy


def unbalanced(database: Database, clock: Clock) -> None:
    """Turn load balancing off in the default preset."""
    deck_options.change_preset(
        database, Schedulers(), DEFAULT_PRESET_ID, {"load_balancing": False}, clock()
    )


def test_deleting_a_preset_is_undone_with_its_decks(bundled: Database, clock: Clock) -> None:
    schedulers = Schedulers(fuzz=False)
    study_all(session(bundled), clock)
    deck = deck_options.deck_options(bundled, DECK).deck
    exam = deck_options.add_preset(bundled, "Exam", Preset(desired_retention=0.8))
    deck_options.use_preset(bundled, schedulers, [deck.id], exam, clock())
    with bundled.reading() as tx:
        on_exam = tx.cards.of_deck(deck.id)
    deleted = deck_options.delete_preset(bundled, schedulers, exam, clock())
    assert deck_options.deck_options(bundled, DECK).preset_id == DEFAULT_PRESET_ID
    assert integrity.check(bundled, schedulers, clock()).healthy
    deck_options.undo(bundled, schedulers, deleted, clock())
    shown = deck_options.deck_options(bundled, DECK)
    assert (shown.preset_id, shown.preset.name, shown.preset.desired_retention) == (
        exam,
        "Exam",
        0.8,
    )
    with bundled.reading() as tx:
        assert tx.cards.of_deck(deck.id) == on_exam
    assert integrity.check(bundled, schedulers, clock()).healthy


def test_a_retention_change_keeps_a_due_date_set_by_hand(bundled: Database, clock: Clock) -> None:
    schedulers = Schedulers(fuzz=True)
    unbalanced(bundled, clock)  # else the other cards keep the days balancing chose too
    study = StudySession(bundled, schedulers, DECK, random.Random(6), ZONE)
    study_all(study, clock)
    with bundled.reading() as tx:
        first = tx.cards.of_deck(study.deck.id)[0]
    Changes(bundled, schedulers, Preferences()).set_due([first.id], "30", clock())
    with bundled.reading() as tx:
        set_by_hand = tx.cards.get(first.id).memory.due
    made = deck_options.change_preset(
        bundled, schedulers, DEFAULT_PRESET_ID, {"desired_retention": 0.75}, clock()
    )
    assert made.rescheduled >= 7
    with bundled.reading() as tx:
        assert tx.cards.get(first.id).memory.due == set_by_hand
    assert integrity.check(bundled, schedulers, clock()).healthy
