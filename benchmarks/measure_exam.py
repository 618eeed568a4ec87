"""The exam forecast against a learner simulated through the real study session.

A deck of new cards gets an exam day some weeks ahead. The forecast made on the first day
says how many answers a day reach a 90% share and what share that plan gives. A learner
then studies the deck through ``StudySession`` (so every answer is capped as study caps
it and stored in the history) with FSRS as the ground truth: each review is remembered
with the card's retrievability at that moment, drawn from a seeded generator. On the exam
day each card is remembered with its retrievability then, drawn again. The share actually
remembered is compared with the forecast's plan from the first day and with the share the
forecast predicts on the eve of the exam; ``recall check`` must hold at the end.

Run alone with ``python -m benchmarks.measure_exam`` (1,000 cards); ``make bench`` runs it
with the rest.
"""

from __future__ import annotations

import dataclasses
import json
import random
import tempfile
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

from benchmarks.common import Figure
from recall.collection import importing
from recall.content.deck_format import parse_deck
from recall.core.memory import CardState, Rating
from recall.core.presets import DEFAULT_PRESET_ID, Preset
from recall.options import exam_dates
from recall.safekeeping import integrity
from recall.scheduling import Schedulers, exam
from recall.stats import exam as exam_stats
from recall.stats.exam_simulation import ExamCard
from recall.storage import Database
from recall.storage.cards import SEED_LIMIT
from recall.study.session import StudySession

DECK_KEY = "exam-bench"
START = datetime(2026, 3, 2, 7, 0, tzinfo=UTC)  # 07:00 UTC, the study day of 2 March


@dataclass(frozen=True)
class Trial:
    """One simulated run up to an exam.

    Attributes:
        cards: Cards in the deck.
        reviews_per_day: The answers a day the first day's forecast asked for.
        planned: The share the first day's forecast predicted for that plan.
        eve: The share the forecast predicted on the exam's eve (mean retrievability).
        actual: The share remembered on the exam day, drawn card by card.
        answers: Answers given over the trial.
        capped: Answers whose due date the exam moved.
        healthy: Whether ``recall check`` held at the end.
    """

    cards: int
    reviews_per_day: int | None
    planned: float
    eve: float
    actual: float
    answers: int
    capped: int
    healthy: bool


def deck_json(cards: int) -> str:
    """A deck of ``cards`` basic cards."""
    return json.dumps(
        {
            "format": "recall-deck",
            "version": 1,
            "id": DECK_KEY,
            "name": "Exam deck",
            "cards": [
                {"id": f"c{index}", "type": "basic", "front": f"Fact {index}?", "back": "Yes."}
                for index in range(cards)
            ],
        }
    )


def run_trial(folder: Path, cards: int, days: int, seed: int = 1) -> Trial:
    """Study a new deck of ``cards`` cards for ``days`` days up to its exam, as above."""
    database = Database(folder / "recall.sqlite3")
    try:
        return _trial(database, cards, days, seed)
    finally:
        database.close()


def _trial(database: Database, cards: int, days: int, seed: int) -> Trial:
    importing.import_deck(database, parse_deck(deck_json(cards), "exam.json"), START)
    with database.transaction() as transaction:
        # Seeds drawn from the trial's seed (an import draws them at random): the same
        # trial gives the same figures every run.
        deck = transaction.decks.by_key(DECK_KEY)
        assert deck is not None
        ids = sorted(row.id for row in transaction.cards.of_deck(deck.id))
        seeds = random.Random(seed)
        transaction.cards.reseed(ids, lambda: seeds.randrange(1, SEED_LIMIT))
        # The learner studies as many cards a day as the plan says: no limit of the preset's.
        open_limits = dataclasses.replace(Preset(), new_per_day=9999, reviews_per_day=99999)
        transaction.options.save_preset(DEFAULT_PRESET_ID, open_limits)
    exam_day = START.date() + timedelta(days=days)
    exam_dates.set_exam_date(database, DECK_KEY, exam_day, START)
    schedulers = Schedulers()
    plan = exam_stats.forecast(database, schedulers, DECK_KEY, exam_day, START, target=0.9)
    per_day = plan.reviews_per_day or cards * 4
    truth = random.Random(seed)
    answers = 0
    for day in range(days):
        now = START + timedelta(days=day)
        session = StudySession(database, schedulers, DECK_KEY, rng=random.Random(seed + day))
        done = 0
        while done < per_day:
            shown = session.next_card(now)
            if shown is None:
                break
            answer = session.reveal(shown, now)
            rating = Rating.GOOD
            if shown.memory.state is CardState.REVIEW:
                scheduler = session.scheduler
                chance = scheduler.retrievability(shown.seed, shown.memory, now)
                rating = Rating.GOOD if truth.random() < chance else Rating.AGAIN
            session.record(answer, rating, now)
            answers += 1
            done += 1
            now += timedelta(seconds=20)
    eve = exam_stats.forecast(
        database, schedulers, DECK_KEY, exam_day, START + timedelta(days=days - 1)
    ).share
    _name, held, study_days = exam_stats.exam_cards(database, schedulers, DECK_KEY)
    at = exam.exam_moment(exam_day, study_days)
    actual = _remembered(held, at, random.Random(seed * 7919))
    report = integrity.check(database, schedulers, at)
    with database.reading() as transaction:
        capped = sum(row.set_due is not None for row in transaction.history.all())
    return Trial(
        cards=cards,
        reviews_per_day=plan.reviews_per_day,
        planned=plan.planned_share,
        eve=eve,
        actual=actual,
        answers=answers,
        capped=capped,
        healthy=report.healthy,
    )


def _remembered(cards: list[ExamCard], at: datetime, draws: random.Random) -> float:
    """The share of cards remembered at ``at``, each drawn with its retrievability then."""
    remembered = sum(
        draws.random() < card.scheduler.retrievability(card.seed, card.memory, at) for card in cards
    )
    return remembered / len(cards) if cards else 0.0


def measure_exam(work: Path, cards: int = 1000, days: int = 30) -> Figure:
    """The share remembered on the exam day against the forecast's, as a figure."""
    folder = work / "exam"
    folder.mkdir(parents=True, exist_ok=True)
    trial = run_trial(folder, cards, days)
    miss = max(abs(trial.actual - trial.planned), abs(trial.actual - trial.eve))
    return Figure(
        title=f"Exam forecast, {cards:,} cards over {days} days",
        measures=(
            "the share of a new deck remembered on its exam day by a learner simulated "
            "through the study session (FSRS as ground truth, answers drawn from each card's "
            "retrievability, the exam's cap applied), against the forecast's prediction: "
            f"the first day's plan ({trial.reviews_per_day} answers a day for 90%) predicted "
            f"{trial.planned:.1%}, the eve's mean retrievability {trial.eve:.1%}; "
            f"{trial.answers:,} answers, {trial.capped:,} of them due dates the exam moved; "
            f"recall check {'held' if trial.healthy else 'FAILED'}"
        ),
        recall=[100 * trial.actual],
        baseline_name="predicted by the first day's forecast",
        baseline=[100 * trial.planned],
        unit="%",
        goal="within 3 points of both predictions",
        goal_met=miss <= 0.03 and trial.healthy,
    )


def main() -> None:
    """Run the full trial alone and print it."""
    with tempfile.TemporaryDirectory() as work:
        trial = run_trial(Path(work), 1000, 30)
    print(trial)
    print(
        f"actual {trial.actual:.1%}, planned {trial.planned:.1%} "
        f"({(trial.actual - trial.planned) * 100:+.1f} points), eve {trial.eve:.1%} "
        f"({(trial.actual - trial.eve) * 100:+.1f} points)"
    )


if __name__ == "__main__":
    main()
