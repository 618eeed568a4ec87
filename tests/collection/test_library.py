"""Deck use cases: imports that are all-or-nothing, re-imports, the review-log export."""

from __future__ import annotations

import csv
import io
import json
import sqlite3
from pathlib import Path

import pytest

from recall.collection import importing, review_log
from recall.core.errors import DeckErrors, UnknownDeckError
from recall.scheduling import Schedulers
from recall.storage import Database
from recall.study.session import StudySession
from tests.conftest import DATA, Clock

TINY = DATA / "decks" / "tiny.json"


def dump(database: Database) -> list[str]:
    connection = sqlite3.connect(database.path)
    try:
        return list(connection.iterdump())
    finally:
        connection.close()


def test_reimport_updates_text_and_keeps_history(
    database: Database, schedulers: Schedulers, clock: Clock, tmp_path: Path
) -> None:
    importing.import_files(database, Schedulers(), [TINY], clock())
    session = StudySession(database, schedulers, "tiny")
    shown = session.next_card(clock())
    assert shown is not None
    assert shown.card.id == "q1"
    answer = session.answer_choice(shown, {1}, clock.advance(seconds=5))
    session.record(answer, answer.proposed, clock())

    raw = json.loads(TINY.read_text())
    raw["name"] = "Tiny deck, revised"
    raw["cards"][0]["question"] = "What is two plus two?"
    del raw["cards"][1]  # a card missing from the file is kept, never deleted
    raw["cards"].append({"id": "b2", "type": "basic", "front": "Sky?", "back": "Blue"})
    revised = tmp_path / "tiny.json"
    revised.write_text(json.dumps(raw))
    (file_report,) = importing.import_files(
        database, Schedulers(), [revised], clock.advance(minutes=1)
    )
    (report,) = file_report.decks

    assert (report.added, report.updated, report.unchanged, report.kept) == (1, 1, 0, 1)
    with database.transaction() as tx:
        deck = tx.decks.by_key("tiny")
        assert deck is not None
        assert deck.name == "Tiny deck, revised"
        cards = {card.key: card for card in tx.cards.of_deck(deck.id)}
        assert set(cards) == {"q1", "b1", "b2"}
        assert "What is two plus two?" in cards["q1"].content
        assert len(tx.history.of_card(cards["q1"].id)) == 1
        assert cards["q1"].memory.last_review is not None


def test_a_bad_file_among_good_ones_imports_nothing(
    bundled: Database, clock: Clock, tmp_path: Path
) -> None:
    before = dump(bundled)
    bad = DATA / "decks" / "bad" / "unknown-key.json"
    also_bad = DATA / "decks" / "bad" / "not-json.json"
    with pytest.raises(DeckErrors) as caught:
        importing.import_files(bundled, Schedulers(), [TINY, bad, also_bad], clock())
    lines = str(caught.value).splitlines()
    assert lines[0].startswith(f"{bad}: cards[0] (id 'q1'): explenation: unknown field")
    assert lines[1].startswith(f"{also_bad}: line 5, column 3: not valid JSON")
    assert dump(bundled) == before


def test_import_failing_midway_rolls_back(bundled: Database, clock: Clock) -> None:
    """A failure while writing (here: the database refusing a row) leaves nothing behind."""
    before = dump(bundled)
    connection = sqlite3.connect(bundled.path)
    connection.execute(
        "CREATE TRIGGER refuse_b1 BEFORE INSERT ON card WHEN NEW.key = 'b1' "
        "BEGIN SELECT RAISE(ABORT, 'refused'); END"
    )
    connection.commit()
    connection.close()
    before = list(dump(bundled))
    with pytest.raises(Exception, match="refused"):
        importing.import_files(bundled, Schedulers(), [TINY], clock())
    assert dump(bundled) == before


def test_export_reviews_writes_the_fsrs_review_log(
    bundled: Database, schedulers: Schedulers, clock: Clock
) -> None:
    session = StudySession(bundled, schedulers, "activation-recompute")
    answered = []
    for _ in range(3):
        shown = session.next_card(clock())
        assert shown is not None
        clock.advance(seconds=4)
        answer = session.answer_choice(shown, {shown.order[0]}, clock())
        session.record(answer, answer.proposed, clock())
        answered.append(answer)

    out = io.StringIO()
    assert review_log.export_reviews(bundled, out) == 3
    rows = list(csv.reader(io.StringIO(out.getvalue())))
    assert rows[0] == list(review_log.REVIEW_LOG_HEADER)
    for row, answer in zip(rows[1:], answered, strict=True):
        card_id, time_ms, rating, state, duration = map(int, row)
        assert card_id == answer.card.seed  # the seed, the same on every computer
        assert time_ms == round(answer.answered_at.timestamp() * 1000)
        assert rating in (1, 3)
        assert rating == (3 if answer.correct else 1)
        assert state == 0
        assert duration == 4000


def test_export_for_an_unknown_deck_is_a_clear_error(bundled: Database) -> None:
    with pytest.raises(UnknownDeckError, match="no deck with id 'nope'"):
        review_log.export_reviews(bundled, io.StringIO(), "nope")
