"""Fitting parameters: a history made from known parameters is fitted about as well as the
truth, the fit is applied only when it predicts better, and the words say what happened."""

from __future__ import annotations

import json
import random
from datetime import UTC, datetime, timedelta
from pathlib import Path

import genanki
import pytest

from recall.cli.main import main
from recall.collection import importing
from recall.core.memory import NEW_CARD, CardState, Rating
from recall.core.presets import DEFAULT_PRESET_ID, Preset
from recall.options import deck_options, optimizing
from recall.safekeeping import integrity
from recall.scheduling import DEFAULT_PARAMETERS, Scheduler, Schedulers
from recall.scheduling.optimize import evaluate, optimize, training_items
from recall.storage import Database, NewCard, NewReview
from recall.storage.records import CardKey
from tests.helpers.anki_packages import add_reviews, build_package, card_ids

START = datetime(2025, 1, 1, 8, tzinfo=UTC)


def truth(first: tuple[float, float, float, float], lapse: float) -> tuple[float, ...]:
    """FSRS's defaults with other initial stabilities and another lapse factor."""
    parameters = list(DEFAULT_PARAMETERS)
    parameters[0:4] = first
    parameters[8] = lapse
    return tuple(parameters)


def simulate(
    parameters: tuple[float, ...], cards: int, days: int, seed: int
) -> list[list[tuple[datetime, Rating]]]:
    """Each card studied when due, recalled with the chance the true parameters give."""
    rng = random.Random(seed)
    scheduler = Scheduler(Preset(parameters=parameters), fuzz=False)
    histories = []
    for card in range(cards):
        moment = START + timedelta(days=rng.uniform(0, days / 2))
        memory = NEW_CARD
        history: list[tuple[datetime, Rating]] = []
        while moment < START + timedelta(days=days):
            if memory.state is CardState.NEW:
                rating = rng.choices(list(Rating), [0.2, 0.1, 0.6, 0.1])[0]
            elif rng.random() < scheduler.retrievability(card, memory, moment):
                rating = rng.choices([Rating.HARD, Rating.GOOD, Rating.EASY], [0.1, 0.8, 0.1])[0]
            else:
                rating = Rating.AGAIN
            history.append((moment, rating))
            memory = scheduler.review(card, memory, rating, moment)
            assert memory.due is not None
            moment = memory.due + timedelta(hours=rng.uniform(0, 12))
        histories.append(history)
    return histories


def by_day(histories: list[list[tuple[datetime, Rating]]]) -> list[list[tuple[int, int]]]:
    return [
        [(optimizing.day_number(moment, 4, UTC), int(rating)) for moment, rating in history]
        for history in histories
    ]


def recall_after_good(parameters: tuple[float, ...], days: int) -> float:
    """The chance of recalling a card ``days`` after it was learned with two Goods."""
    scheduler = Scheduler(Preset(parameters=parameters), fuzz=False)
    memory = scheduler.review(1, NEW_CARD, Rating.GOOD, START)
    memory = scheduler.review(1, memory, Rating.GOOD, START + timedelta(minutes=10))
    return scheduler.retrievability(1, memory, START + timedelta(days=days))


@pytest.mark.parametrize(
    ("first", "lapse", "seed"),
    [((0.5, 2.0, 6.0, 20.0), 1.2, 1), ((0.3, 0.8, 1.5, 5.0), 2.2, 2)],
)
def test_a_history_from_known_parameters_is_fitted_about_as_well_as_the_truth(
    first: tuple[float, float, float, float], lapse: float, seed: int
) -> None:
    true = truth(first, lapse)
    histories = by_day(simulate(true, cards=400, days=365, seed=seed))
    result = optimize(histories, ())
    items, _reviews, _cards = training_items(histories)
    assert result.better
    assert result.after is not None
    assert result.before is not None
    # As good a predictor of the history as the parameters that made it...
    assert result.after.log_loss <= evaluate(true, items).log_loss + 0.005
    assert result.after.rmse_bins <= evaluate(true, items).rmse_bins + 0.01
    # ...and the forgetting curve of a learned card, over the weeks the history covers, is close.
    for days in (1, 3, 7):
        assert abs(recall_after_good(result.fitted, days) - recall_after_good(true, days)) < 0.06


def test_items_count_days_by_study_day_and_same_day_reviews_as_short_term() -> None:
    history = [(10, 3), (10, 3), (12, 1), (12, 3), (20, 3)]
    items, reviews, cards = training_items([history, [(5, 3)]])
    assert (len(items), reviews, cards) == (2, 5, 1)
    # fsrs-rs-python shows a review only as text: rating and days since the previous one.
    assert [repr(review) for review in items[-1].reviews] == [
        f"FSRSReview {{ rating: {rating}, delta_t: {delta} }}"
        for rating, delta in ((3, 0), (3, 0), (1, 2), (3, 0), (3, 8))
    ]


def store_history(
    database: Database, histories: list[list[tuple[datetime, Rating]]], now: datetime
) -> None:
    """Cards with these histories in one deck, schedules replayed as studying would."""
    scheduler = Scheduler(fuzz=True)
    with database.transaction() as tx:
        deck = tx.decks.add("generated", "Generated", "", now)
        tx.cards.add(
            deck.id,
            [
                NewCard(
                    f"c{i}",
                    i,
                    "basic",
                    json.dumps({"id": f"c{i}", "type": "basic", "front": "f", "back": "b"}),
                )
                for i in range(len(histories))
            ],
            now,
        )
        keys: dict[str, CardKey] = tx.cards.keys(deck.id)
        reviews = []
        for index, history in enumerate(histories):
            card_id, seed = keys[f"c{index}"].id, keys[f"c{index}"].seed
            memory = NEW_CARD
            for moment, rating in history:
                reviews.append(NewReview.rated(card_id, moment, rating, 5000, memory.state))
                memory = scheduler.review(seed, memory, rating, moment)
            tx.cards.set_memory(card_id, memory)
        tx.history.add_many(reviews)


def test_optimize_applies_only_a_better_fit_and_says_so(database: Database) -> None:
    now = START + timedelta(days=400)
    store_history(database, simulate(truth((0.5, 2.0, 6.0, 20.0), 1.2), 150, 300, 3), now)
    schedulers = Schedulers()
    report = optimizing.optimize_preset(database, schedulers, DEFAULT_PRESET_ID, now, apply=True)
    assert report.applied
    assert report.words().startswith(f"Fitted to {report.result.reviews:,} reviews of 150 cards")
    assert ", applied (150 cards rescheduled" in report.words()
    stored = deck_options.deck_options(database, "generated").preset.parameters
    assert stored == report.result.fitted
    assert integrity.check(database, schedulers, now).healthy
    again = optimizing.optimize_preset(database, schedulers, DEFAULT_PRESET_ID, now, apply=True)
    assert not again.applied
    assert "your current parameters already fit best, kept" in again.words()
    assert deck_options.deck_options(database, "generated").preset.parameters == stored
    undone = deck_options.undo(database, schedulers, report.change, now)  # type: ignore[arg-type]
    assert undone.rescheduled == 150
    assert deck_options.deck_options(database, "generated").preset == Preset()
    assert integrity.check(database, schedulers, now).healthy


def test_with_few_reviews_it_says_how_many_and_keeps_the_parameters(database: Database) -> None:
    now = START + timedelta(days=100)
    store_history(database, simulate(DEFAULT_PARAMETERS, 6, 20, 4), now)
    report = optimizing.optimize_preset(database, Schedulers(), DEFAULT_PRESET_ID, now, apply=True)
    assert not report.applied
    assert report.words().startswith(f"Only {report.result.reviews} reviews of 6 cards")
    assert "keeps FSRS's default parameters" in report.words()


def test_cli_optimize_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    database = Database(tmp_path / "recall.sqlite3")
    store_history(database, simulate(truth((0.5, 2.0, 6.0, 20.0), 1.2), 120, 300, 5), START)
    database.close()
    assert main(["--data-dir", str(tmp_path), "optimize", "--deck", "generated", "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["cards"] == 120
    assert set(shown["before"]) == set(shown["after"]) == {"log_loss", "rmse_bins"}
    assert shown["after"]["log_loss"] < shown["before"]["log_loss"]
    assert shown["applied"] is False
    assert main(["--data-dir", str(tmp_path), "optimize", "--apply"]) == 0
    assert ", applied" in capsys.readouterr().out
    assert main(["--data-dir", str(tmp_path), "check"]) == 0


def test_optimize_on_an_imported_anki_history(database: Database, tmp_path: Path) -> None:
    notes = {
        "Spanish::Verbs": [
            genanki.Note(model=genanki.BASIC_MODEL, fields=[f"verbo {i}", f"verb {i}"])
            for i in range(120)
        ]
    }
    package = build_package(tmp_path, notes)
    ids = card_ids(package)
    rows = []
    histories = simulate(truth((0.5, 2.0, 6.0, 20.0), 1.2), 120, 300, 8)
    for index, history in enumerate(histories):
        for number, (moment, rating) in enumerate(history):
            millis = int(moment.timestamp() * 1000) + index  # revlog ids are unique
            rows.append((millis, ids[(f"verbo {index}", 0)], int(rating), 7000, min(number, 1)))
    add_reviews(package, rows)
    now = START + timedelta(days=320)
    (report,) = importing.import_files(database, Schedulers(), [package], now)
    assert report.decks[0].reviews == len(rows)
    deck = report.decks[0].deck_key
    options = deck_options.deck_options(database, deck)
    result = optimizing.optimize_preset(database, Schedulers(), options.preset_id, now, apply=True)
    assert result.words().startswith(f"Fitted to {len(rows):,} reviews of 120 cards: log loss")
    assert result.applied
    assert integrity.check(database, Schedulers(), now).healthy
