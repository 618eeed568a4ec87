"""A small deck with a single-answer and a select-all choice card, studied until mature."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path

from recall.content.deck_format import ChoiceCard
from recall.core.memory import CardState, MemoryState, Rating
from recall.core.presets import DEFAULT_PRESET_ID, Preset
from recall.storage import Database
from recall.study.session import StudySession
from recall.study.values import StudyCard
from tests.conftest import Clock

CARDS = [
    {
        "id": "france",
        "type": "choice",
        "question": "What is the capital of France?",
        "choices": [
            {"text": "**Paris**", "correct": True, "why": "On the Seine."},
            {"text": "Lyon", "why": "The third city of France, not its capital."},
            {"text": "Marseille"},
        ],
        "explanation": "Paris has been the capital since 987.",
    },
    {
        "id": "primes",
        "type": "choice",
        "question": "Which are prime?",
        "choices": [
            {"text": "2", "correct": True},
            {"text": "3", "correct": True},
            {"text": "4"},
        ],
    },
]


def write_deck(folder: Path) -> Path:
    path = folder / "capitals.json"
    deck = {"format": "recall-deck", "version": 1, "id": "capitals", "name": "Capitals"}
    path.write_text(json.dumps({**deck, "cards": CARDS}))
    return path


def use_threshold(database: Database, days: int) -> None:
    with database.transaction() as tx:
        tx.options.save_preset(DEFAULT_PRESET_ID, Preset(type_in_from_stability=days))


def answer_right(session: StudySession, clock: Clock, shown: StudyCard) -> Rating:
    assert isinstance(shown.card, ChoiceCard)
    clock.advance(seconds=6)
    graded = session.answer_choice(shown, set(shown.card.correct_indexes), clock())
    session.record(graded, graded.proposed, clock.advance(seconds=1))
    return graded.proposed


def due_review(session: StudySession, clock: Clock, key: str) -> StudyCard:
    """Study right until both cards are in review, then wait until ``key`` is due."""
    dues: dict[str, MemoryState] = {}
    for _ in range(20):
        shown = session.next_card(clock())
        if shown is None:
            break
        answer_right(session, clock, shown)
        dues[shown.card.id] = session.show(shown.card_id, clock()).memory
    memory = dues[key]
    assert memory.state is CardState.REVIEW
    assert memory.due is not None
    clock.now = max(clock.now, memory.due) + timedelta(hours=1)
    shown = session.next_card(clock())
    assert shown is not None
    if shown.card.id != key:
        answer_right(session, clock, shown)
        shown = session.next_card(clock())
        assert shown is not None
    assert shown.card.id == key
    return shown
