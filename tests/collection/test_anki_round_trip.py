"""Recall -> Anki -> Recall: Anki's own library opens the export with every schedule, flag,
suspension and review, and its re-export imports back adding no card and no review."""

from __future__ import annotations

import json
import random
from datetime import date, datetime, timedelta
from pathlib import Path

import pytest
from anki.collection import Collection, ExportAnkiPackageOptions, ImportAnkiPackageRequest
from anki.generic_pb2 import Empty
from anki.import_export_pb2 import ExportLimit, ImportAnkiPackageOptions

from recall.changes.cards import Changes
from recall.collection import exporting, importing
from recall.content.deck_format import ChoiceCard
from recall.core import days
from recall.core.memory import CardState, ReviewKind
from recall.core.preferences import Preferences
from recall.importers.recall_notes import recall_keys
from recall.scheduling import Schedulers
from recall.storage import Database, ReviewRow
from recall.storage.browsing import BrowseRow
from recall.study.session import StudySession
from tests.conftest import ZONE, Clock
from tests.study.test_follow_ups import DECK as CAPITALS
from tests.study.test_follow_ups import make_deck, pick
from tests.study.test_follow_ups import session_for as capitals_session

PARENT = {
    "format": "recall-deck",
    "version": 1,
    "id": "spanish",
    "name": "Spanish",
    "cards": [
        {"id": "hola", "type": "basic", "front": "hola", "back": "hello", "tags": ["greeting"]},
        {"id": "adios", "type": "basic", "front": "adiós", "back": "goodbye."},
        {
            "id": "ser",
            "type": "choice",
            "question": "Which verb means *to be* (lasting)?",
            "choices": [
                {"text": "ser", "correct": True, "why": "Lasting traits."},
                {"text": "estar", "why": "Passing states."},
                {"text": "tener"},
            ],
            "explanation": "Ser is for identity.",
            "source": "A grammar book, p. 12",
        },
        {"id": "uno", "type": "basic", "front": "uno", "back": "one"},
    ],
}
CHILD = {
    "format": "recall-deck",
    "version": 1,
    "id": "spanish-verbs",
    "name": "Spanish::Verbs",
    "cards": [
        {"id": "comer", "type": "basic", "front": "comer", "back": "to eat"},
        {
            "id": "colors",
            "type": "choice",
            "question": "Pick the colours",
            "choices": [
                {"text": "rojo", "correct": True},
                {"text": "perro"},
                {"text": "azul", "correct": True},
            ],
        },
    ],
}


@pytest.fixture
def studied(database: Database, clock: Clock, tmp_path: Path) -> Database:
    """Two decks (one inside the other), studied over days, with every kind of change."""
    files = []
    for deck in (PARENT, CHILD):
        path = tmp_path / f"{deck['id']}.json"
        path.write_text(json.dumps(deck))
        files.append(path)
    schedulers = Schedulers(fuzz=False)
    importing.import_files(database, schedulers, files, clock())
    for deck_key in ("spanish", "spanish-verbs"):
        for _ in range(3):
            session = StudySession(database, schedulers, deck_key)
            for _ in range(6):
                shown = session.next_card(clock())
                if shown is None:
                    break
                if shown.card.type == "choice":
                    answer = session.answer_choice(shown, {0}, clock.advance(seconds=7))
                else:
                    answer = session.reveal(shown, clock.advance(seconds=4))
                session.record(answer, answer.proposed, clock.advance(seconds=1))
            clock.advance(days=2)
    ids = _card_ids(database)
    changes = Changes(database, schedulers, Preferences(), ZONE, random.Random(3))
    changes.suspend([ids["spanish", "adios"]])
    changes.bury([ids["spanish", "uno"]], clock())
    changes.flag([ids["spanish", "hola"]], 3)
    changes.flag([ids["spanish-verbs", "colors"]], 7)
    changes.forget([ids["spanish-verbs", "comer"]], clock.advance(minutes=1))
    changes.set_due([ids["spanish", "ser"]], "5", clock.advance(minutes=1))
    clock.advance(minutes=5)
    return database


def _card_ids(database: Database) -> dict[tuple[str, str], int]:
    with database.reading() as transaction:
        return {
            (deck.key, key): row.id
            for deck in transaction.browsing.decks()
            for key, row in transaction.cards.keys(deck.id).items()
        }


def _recall_cards(
    database: Database,
) -> dict[tuple[str, str], tuple[BrowseRow, list[ReviewRow]]]:
    """Every card by (deck id, card id), with its history."""
    ids = _card_ids(database)
    with database.reading() as transaction:
        rows = {row.id: row for row in transaction.browsing.rows(list(ids.values()))}
        histories = {card.id: history for card, history in transaction.history.per_card(None)}
    return {key: (rows[card_id], histories[card_id]) for key, card_id in ids.items()}


def _study_date(moment: datetime) -> date:
    return days.study_day(moment, Preferences().day_rollover_hour)[0].astimezone().date()


def _into_anki(package: Path, folder: Path) -> Collection:
    folder.mkdir()
    collection = Collection(str(folder / "collection.anki2"))
    options = ImportAnkiPackageOptions(with_scheduling=True, with_deck_configs=False)
    collection.import_anki_package(
        ImportAnkiPackageRequest(package_path=str(package), options=options)
    )
    return collection


def _check_against_recall(collection: Collection, database: Database, now: datetime) -> int:
    """Each Anki card holds what Recall holds of it; returns how many cards were checked."""
    recall = _recall_cards(database)
    crt_date = datetime.fromtimestamp(collection.crt).astimezone().date()
    checked = 0
    for card_id in collection.find_cards(""):
        card = collection.get_card(card_id)
        keys = recall_keys(card.note().guid)
        assert keys is not None
        row, history = recall.pop(keys)
        memory = row.memory
        assert collection.decks.name(card.did) == row.deck_name
        assert card.flags == row.flag
        if row.suspended:
            assert card.queue == -1
        elif row.buried_until is not None and row.buried_until > now:
            assert card.queue == -3
        if memory.state is CardState.NEW:
            assert (card.type, card.memory_state) == (0, None)
        else:
            assert card.type == {CardState.LEARNING: 1, CardState.REVIEW: 2}.get(memory.state, 3)
            assert card.memory_state is not None
            assert memory.stability is not None
            assert memory.difficulty is not None
            assert card.memory_state.stability == pytest.approx(memory.stability, abs=1e-3)
            assert card.memory_state.difficulty == pytest.approx(memory.difficulty, abs=1e-3)
        if memory.state is CardState.REVIEW:
            assert memory.due is not None
            assert crt_date + timedelta(days=card.due) == _study_date(memory.due)
            if not row.suspended and not row.buried_until:
                assert card.queue == 2
        log = collection.db.all(  # type: ignore[union-attr]
            "SELECT ease, type FROM revlog WHERE cid = ? ORDER BY id", card_id
        )
        expected = [
            [int(review.rating), log[index][1]]
            if review.kind is ReviewKind.ANSWER and review.rating is not None
            else [int(review.rating), 3]
            if review.kind in (ReviewKind.CRAM, ReviewKind.FOLLOW_UP) and review.rating is not None
            else [0, 5 if review.kind is ReviewKind.SET_DUE else 4]
            for index, review in enumerate(history)
        ]
        assert log == expected
        checked += 1
    assert recall == {}, "every Recall card is in Anki"
    return checked


def test_anki_opens_the_deck_with_its_subdecks_schedules_flags_and_history(
    studied: Database, clock: Clock, tmp_path: Path
) -> None:
    package = tmp_path / "spanish.apkg"
    assert exporting.export_deck(studied, "spanish", package, clock()) == 6
    collection = _into_anki(package, tmp_path / "anki")
    try:
        assert _check_against_recall(collection, studied, clock()) == 6
        assert sorted(collection.decks.all_names()) == ["Default", "Spanish", "Spanish::Verbs"]
        queues = sorted(
            collection.db.list(  # type: ignore[union-attr]
                "SELECT queue FROM cards"
            )
        )
        assert -1 in queues
        assert -3 in queues
        kinds = {n["name"] for n in collection.models.all()}
        assert "AllInOne (kprim, mc, sc)" in kinds
    finally:
        collection.close()


def test_anki_takes_the_whole_collection_as_a_colpkg(
    studied: Database, clock: Clock, tmp_path: Path
) -> None:
    package = tmp_path / "everything.colpkg"
    assert exporting.export_deck(studied, "spanish-verbs", package, clock()) == 6
    folder = tmp_path / "anki"
    folder.mkdir()
    path = folder / "collection.anki2"
    Collection(str(path)).close(downgrade=False)
    from anki._backend import RustBackend

    backend = RustBackend()
    backend.import_collection_package(
        col_path=str(path),
        backup_path=str(package),
        media_folder=str(folder / "collection.media"),
        media_db=str(folder / "collection.media.db2"),
    )
    collection = Collection(str(path))
    try:
        assert _check_against_recall(collection, studied, clock()) == 6
    finally:
        collection.close()


def test_round_trip_through_anki_adds_no_card_and_loses_no_review(
    studied: Database, clock: Clock, tmp_path: Path
) -> None:
    before = _recall_cards(studied)
    package = tmp_path / "spanish.apkg"
    exporting.export_deck(studied, "spanish", package, clock())
    collection = _into_anki(package, tmp_path / "anki")
    back = tmp_path / "from-anki.apkg"
    try:
        collection.export_anki_package(
            out_path=str(back),
            options=ExportAnkiPackageOptions(
                with_scheduling=True, with_deck_configs=False, with_media=True, legacy=True
            ),
            limit=ExportLimit(whole_collection=Empty()),
        )
    finally:
        collection.close()
    reports = importing.import_files(studied, Schedulers(fuzz=False), [back], clock())
    decks = {deck.deck_key: deck for deck in reports[0].decks}
    assert set(decks) == {"spanish", "spanish-verbs"}
    assert all(
        not deck.new_deck and deck.added == 0 and deck.reviews == 0 for deck in decks.values()
    )
    after = _recall_cards(studied)
    assert after.keys() == before.keys()
    for key, (row, history) in before.items():
        again, history_again = after[key]
        assert again.content == row.content  # each card keeps its own text
        assert (again.suspended, again.flag, again.memory) == (row.suspended, row.flag, row.memory)
        assert [(r.reviewed_at, r.kind, r.rating) for r in history_again] == [
            (r.reviewed_at, r.kind, r.rating) for r in history
        ]


def test_a_choice_card_comes_back_from_anki_as_the_same_choice_card(
    studied: Database, clock: Clock, tmp_path: Path
) -> None:
    package = tmp_path / "spanish.apkg"
    exporting.export_deck(studied, "spanish", package, clock())
    fresh = Database(tmp_path / "fresh" / "recall.sqlite3")
    try:
        importing.import_files(fresh, Schedulers(fuzz=False), [package], clock())
        card = exporting.load_stored_deck(fresh, "spanish").cards[2]
    finally:
        fresh.close()
    assert isinstance(card, ChoiceCard)
    assert card.id == "ser"
    assert [(c.text, c.correct, c.why) for c in card.choices] == [
        ("ser", True, "Lasting traits\\."),
        ("estar", False, "Passing states\\."),
        ("tener", False, None),
    ]
    assert card.explanation == "Ser is for identity\\."
    assert card.source == "A grammar book, p. 12"


def test_follow_up_answers_go_to_anki_as_filtered_reviews_that_kept_the_schedule(
    database: Database, clock: Clock, tmp_path: Path
) -> None:
    make_deck(database, clock)
    session = capitals_session(database)
    answered = 0
    while answered < 30:
        shown = session.next_card(clock())
        if shown is None:
            clock.advance(minutes=11)
            continue
        if not isinstance(shown.card, ChoiceCard):
            reveal = session.reveal(shown, clock.advance(seconds=3))
            session.record(reveal, reveal.proposed, clock.advance(seconds=1))
            continue
        pick(session, shown, "Lyon" if answered < 2 else "Paris", clock)
        answered += 1
        if shown.follow_up is not None:
            break
    package = tmp_path / "capitals.apkg"
    exporting.export_deck(database, CAPITALS, package, clock())
    collection = _into_anki(package, tmp_path / "anki")
    try:
        _check_against_recall(collection, database, clock())
        types = collection.db.list(  # type: ignore[union-attr]
            "SELECT type FROM revlog WHERE factor = 0 AND ease > 0"
        )
        assert types == [3]  # the one follow-up answer, no reset
    finally:
        collection.close()
