"""The exam forecast: the predicted share is the mean FSRS retrievability on the day, the
simulated learner remembers about that share, and the cap keeps every answer replayable."""

from __future__ import annotations

import json
import random
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import pytest
from benchmarks.measure_exam import run_trial

from recall.collection import importing
from recall.content.deck_format import parse_deck
from recall.core.errors import UnknownDeckError
from recall.core.memory import CardState, Rating, ReviewKind
from recall.core.presets import DEFAULT_PRESET_ID, Preset
from recall.options import exam_dates
from recall.safekeeping import integrity
from recall.scheduling import DEFAULT_PARAMETERS, Schedulers
from recall.stats import exam as exam_stats
from recall.storage import Database
from recall.storage.cards import SEED_LIMIT
from recall.study.session import StudySession

NOW = datetime(2026, 1, 15, 9, 0, tzinfo=UTC)  # the study day of 15 January (UTC, from 04:00)


def deck(cards: int, key: str = "facts") -> str:
    return json.dumps(
        {
            "format": "recall-deck",
            "version": 1,
            "id": key,
            "name": key.title(),
            "cards": [
                {"id": f"c{index}", "type": "basic", "front": f"Fact {index}?", "back": "Yes."}
                for index in range(cards)
            ],
        }
    )


@pytest.fixture
def facts(database: Database) -> Database:
    importing.import_deck(database, parse_deck(deck(12), "facts.json"), NOW)
    with database.transaction() as transaction:
        # Seeds of its own (an import draws them at random): the simulations' draws, made
        # from each card's seed, are then the same in every run.
        row = transaction.decks.by_key("facts")
        assert row is not None
        ids = sorted(card.id for card in transaction.cards.of_deck(row.id))
        seeds = random.Random(15)
        transaction.cards.reseed(ids, lambda: seeds.randrange(1, SEED_LIMIT))
    return database


def study(database: Database, schedulers: Schedulers, count: int, now: datetime) -> StudySession:
    """Answer ``count`` cards of the deck Good, 30 s apart (learning steps included)."""
    session = StudySession(database, schedulers, "facts")
    for _ in range(count):
        shown = session.next_card(now)
        assert shown is not None
        session.record(session.reveal(shown, now), Rating.GOOD, now)
        now += timedelta(seconds=30)
    return session


def test_the_predicted_share_is_the_mean_retrievability_on_the_exam_day(
    facts: Database,
) -> None:
    schedulers = Schedulers(fuzz=False)
    study(facts, schedulers, 6, NOW)  # three cards through both steps, three left after one
    study(facts, schedulers, 4, NOW + timedelta(days=2))
    exam_day = date(2026, 2, 20)
    figures = exam_stats.forecast(facts, schedulers, "facts", exam_day, NOW + timedelta(days=2))

    decay = -DEFAULT_PARAMETERS[20]
    factor = 0.9 ** (1 / decay) - 1
    chances = []
    with facts.reading() as transaction:
        found = transaction.decks.by_key("facts")
        assert found is not None
        rows = transaction.cards.of_deck(found.id)
    for row in rows:
        memory = row.memory
        if memory.state is CardState.NEW:
            chances.append(0.0)
            continue
        assert memory.last_review is not None
        assert memory.stability is not None
        # Study days from the last review's to the exam's (days start at 04:00 UTC).
        elapsed = (exam_day - (memory.last_review - timedelta(hours=4)).date()).days
        chances.append((1 + factor * elapsed / memory.stability) ** decay)
    studied = [
        chance
        for row, chance in zip(rows, chances, strict=True)
        if row.memory.state != CardState.NEW
    ]
    assert len(rows) == 12
    assert 0 < len(studied) < 12
    assert figures.share == pytest.approx(sum(chances) / len(chances), abs=1e-9)
    assert figures.share_studied == pytest.approx(sum(studied) / len(studied), abs=1e-9)
    assert (figures.cards, figures.studied) == (12, len(studied))
    assert figures.days_left == 34


def test_a_simulated_learner_remembers_the_share_predicted_within_three_points(
    tmp_path: Path,
) -> None:
    trial = run_trial(tmp_path, 200, 14, seed=1)
    assert trial.reviews_per_day is not None
    assert trial.capped > 0  # the exam moved due dates, each kept in the history
    assert trial.healthy
    # The forecast's share (the mean recall chance on the day) against the share drawn.
    assert abs(trial.actual - trial.eve) <= 0.03
    # The first day's plan, one simulated path of 200 cards, is looser at this size; the
    # benchmark's 1,000 cards hold it within 3 points too.
    assert abs(trial.actual - trial.planned) <= 0.05


def test_an_answer_due_after_the_exam_is_recorded_due_before_it_and_check_holds(
    facts: Database,
) -> None:
    schedulers = Schedulers()
    with facts.transaction() as transaction:
        # Without load balancing, an answer's due date is chosen only by the exam.
        transaction.options.save_preset(DEFAULT_PRESET_ID, Preset(load_balancing=False))
    exam_day = date(2026, 1, 20)
    exam_dates.set_exam_date(facts, "facts", exam_day, NOW)
    session = study(facts, schedulers, 24, NOW)  # every card through its steps
    later = NOW + timedelta(days=3)
    shown = session.next_card(later)
    assert shown is not None
    assert shown.memory.state is CardState.REVIEW
    recorded = session.record(session.reveal(shown, later), Rating.EASY, later)
    exam_start = datetime(2026, 1, 20, 4, 0, tzinfo=UTC)
    assert recorded.memory.due is not None
    # Easy would give weeks: it is due on the next study day, the exam's eve.
    assert recorded.memory.due == datetime(2026, 1, 19, 4, 0, tzinfo=UTC) < exam_start
    with facts.reading() as transaction:
        history = transaction.history.of_card(shown.card_id)
    assert [entry.kind for entry in history] == [ReviewKind.ANSWER] * 3
    assert history[-1].set_due == recorded.memory.due
    report = integrity.check(facts, schedulers, later + timedelta(minutes=1))
    assert report.healthy, report.problems

    # After the exam, nothing is capped: the same kind of answer keeps FSRS's interval.
    exam_dates.set_exam_date(facts, "facts", date(2026, 1, 17), NOW)
    after = StudySession(facts, schedulers, "facts")
    shown = after.next_card(later)
    assert shown is not None
    recorded = after.record(after.reveal(shown, later), Rating.GOOD, later)
    with facts.reading() as transaction:
        assert transaction.history.of_card(shown.card_id)[-1].set_due is None


def test_skipping_today_costs_share_when_cards_are_due_today(facts: Database) -> None:
    schedulers = Schedulers(fuzz=False)
    study(facts, schedulers, 24, NOW)  # every card through its steps
    later = NOW + timedelta(days=5)  # all of them due (and some overdue) today
    figures = exam_stats.forecast(facts, schedulers, "facts", date(2026, 1, 23), later)
    assert figures.reviews_per_day is not None
    assert figures.planned_share >= 0.9
    assert figures.skipping_costs > 0
    assert figures.share_if_skipped < figures.planned_share
    payload = figures.as_json()
    assert payload["skipping_today_costs"] == round(figures.skipping_costs, 4)


def test_a_forecast_refuses_a_passed_day_a_bad_target_and_an_unknown_deck(
    facts: Database,
) -> None:
    schedulers = Schedulers()
    with pytest.raises(exam_stats.ExamDateError, match="2026-01-14 has passed"):
        exam_stats.forecast(facts, schedulers, "facts", date(2026, 1, 14), NOW)
    with pytest.raises(exam_stats.ExamDateError, match=r"target 1\.5"):
        exam_stats.forecast(facts, schedulers, "facts", date(2026, 2, 1), NOW, target=1.5)
    with pytest.raises(UnknownDeckError):
        exam_stats.forecast(facts, schedulers, "nope", date(2026, 2, 1), NOW)


def test_an_exams_cap_wins_over_the_day_load_balancing_chose(facts: Database) -> None:
    schedulers = Schedulers()  # the default preset balances
    exam_dates.set_exam_date(facts, "facts", date(2026, 1, 20), NOW)
    session = study(facts, schedulers, 24, NOW)
    later = NOW + timedelta(days=3)
    shown = session.next_card(later)
    assert shown is not None
    recorded = session.record(session.reveal(shown, later), Rating.EASY, later)
    assert recorded.memory.due == datetime(2026, 1, 19, 4, 0, tzinfo=UTC)
    with facts.reading() as transaction:
        assert transaction.history.of_card(shown.card_id)[-1].set_due == recorded.memory.due
    assert integrity.check(facts, schedulers, later + timedelta(minutes=1)).healthy
