"""Optimizing a preset whose decks hold choice cards: the guess correction is measured, said,
stored with the parameters when adopted, and left off when it does not win."""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from benchmarks.learners import START, timed_learners

from recall.cli.main import main
from recall.core import fields
from recall.core.memory import NEW_CARD, Rating
from recall.core.presets import DEFAULT_PRESET_ID, Preset
from recall.options import deck_options, optimizing
from recall.safekeeping import integrity
from recall.scheduling import Scheduler, Schedulers
from recall.storage import Database, NewCard, NewReview
from recall.storage.records import CardKey

NOW = START + timedelta(days=320)


def content(key: str, chance: float) -> tuple[str, str]:
    """A card's kind and content: a choice card with 1 / chance options, one right, or a
    basic card for no guess."""
    if not chance:
        return "basic", json.dumps({"id": key, "type": "basic", "front": "f", "back": "b"})
    options = [{"text": f"option {at}", "correct": at == 0} for at in range(round(1 / chance))]
    return "choice", json.dumps({"id": key, "type": "choice", "question": "q", "choices": options})


def store(database: Database, histories: list[tuple[float, list[tuple[datetime, Rating]]]]) -> None:
    """The cards and their answers in one deck, schedules replayed as studying would."""
    scheduler = Scheduler(fuzz=True)
    with database.transaction() as tx:
        deck = tx.decks.add("quiz", "Quiz", "", NOW)
        tx.cards.add(
            deck.id,
            [
                NewCard(f"c{at}", at, *content(f"c{at}", chance))
                for at, (chance, _answers) in enumerate(histories)
            ],
            NOW,
        )
        keys: dict[str, CardKey] = tx.cards.keys(deck.id)
        reviews = []
        for at, (_chance, answers) in enumerate(histories):
            card_id, seed = keys[f"c{at}"].id, keys[f"c{at}"].seed
            memory = NEW_CARD
            for moment, rating in answers:
                reviews.append(NewReview.rated(card_id, moment, rating, 5000, memory.state))
                memory = scheduler.review(seed, memory, rating, moment)
            tx.cards.set_memory(card_id, memory)
        tx.history.add_many(reviews)


def test_a_guessing_learner_gets_the_correction_stored_with_the_parameters(
    database: Database,
) -> None:
    store(database, timed_learners(160, 300, seed=1, choices=(2, 4, 0), guessing=True))
    schedulers = Schedulers()
    report = optimizing.optimize_preset(database, schedulers, DEFAULT_PRESET_ID, NOW, apply=True)
    assert report.guesses is not None
    assert report.guess_correction
    assert report.applied
    words = report.words()
    assert f"log loss {report.guesses.plain.log_loss:.4f} without" in words
    assert f"{report.guesses.guessing.log_loss:.4f} with" in words
    assert "adopted: the parameters are fitted with it" in words
    shown = report.to_json()
    assert shown["guess_correction"] is True
    assert shown["guesses"]["with"]["log_loss"] < shown["guesses"]["without"]["log_loss"]
    preset = deck_options.deck_options(database, "quiz").preset
    assert preset.guess_correction
    assert preset.parameters == report.result.fitted == report.guesses.fitted
    assert integrity.check(database, schedulers, NOW).healthy


def test_answers_from_recall_alone_leave_the_correction_off(
    database: Database, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store(database, timed_learners(160, 300, seed=1, choices=(2, 4, 0), guessing=False))
    database.close()
    data = ["--data-dir", str(tmp_path / "data")]
    assert main([*data, "optimize", "--deck", "quiz", "--apply", "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["guess_correction"] is False
    guesses = shown["guesses"]
    assert guesses["adopted"] is False
    assert guesses["with"]["log_loss"] > guesses["without"]["log_loss"]
    assert set(guesses["with"]) == set(guesses["without"]) == {"log_loss", "rmse_bins"}
    assert "not adopted: a right pick counts as recall" in shown["message"]
    assert shown["applied"] is True
    reopened = Database(tmp_path / "data" / "recall.sqlite3")
    try:
        preset = deck_options.deck_options(reopened, "quiz").preset
    finally:
        reopened.close()
    assert preset.parameters == tuple(shown["parameters"])
    assert not preset.guess_correction


def test_the_choice_round_trips_and_an_older_stored_preset_reads_it_off() -> None:
    preset = Preset(name="Quiz", guess_correction=True)
    stored = fields.to_stored(preset)
    assert fields.from_stored(Preset, stored) == preset
    del stored["guess_correction"]
    assert fields.from_stored(Preset, stored) == Preset(name="Quiz")
    assert not fields.from_stored(Preset, stored).guess_correction
