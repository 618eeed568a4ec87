"""Writing cards and decks by hand: the deck format's checks, history kept, undo, the tree,
and the bundled deck keeping what the learner changed."""

from __future__ import annotations

import json
import random
import sqlite3
from pathlib import Path

import pytest

from recall.changes import decks as deck_changes
from recall.changes import editing
from recall.changes.cards import Changes
from recall.collection import importing
from recall.content.deck_format import parse_deck
from recall.core import deck_tree
from recall.core.errors import RecallError
from recall.core.preferences import Preferences
from recall.host import paths
from recall.safekeeping import integrity
from recall.scheduling import Schedulers
from recall.storage import Database, DeckRow
from recall.study.session import StudySession
from tests.changes.test_card_changes import healthy, ids, snapshot
from tests.conftest import ZONE, Clock, answer_cards

CHOICE = {
    "type": "choice",
    "question": "Which planet is largest?",
    "choices": [
        {"text": "Jupiter", "correct": True},
        {"text": "Mars", "why": "Mars is smaller than Earth."},
        {"text": "Venus", "why": "Venus is about Earth's size."},
    ],
    "explanation": "Jupiter's mass is twice all other planets together.",
    "tags": ["space"],
}


def _deck(database: Database, key: str) -> DeckRow:
    with database.reading() as transaction:
        deck = transaction.decks.by_key(key)
    assert deck is not None
    return deck


def _changes(database: Database) -> Changes:
    schedulers = Schedulers(fuzz=True)
    settings = Preferences()
    return Changes(database, schedulers, settings, ZONE, random.Random(1))


def test_a_card_gets_the_deck_formats_messages_in_the_editors_labels() -> None:
    bad = {**CHOICE, "choices": [{"text": "Only", "correct": True}, {"text": " "}]}
    with pytest.raises(editing.CardError) as caught:
        editing.check_card(bad)
    assert caught.value.problems == ["Choice 2: must not be empty"]  # choices[1].text
    with pytest.raises(editing.CardError) as caught:
        editing.check_card({**CHOICE, "choices": [{"text": "a"}, {"text": "b"}]})
    assert caught.value.problems == [
        'no choice is marked correct: tick "Correct" beside the right one'
    ]
    with pytest.raises(editing.CardError) as caught:
        editing.check_card({"type": "basic", "front": "Q", "back": "", "tags": ["two words"]})
    assert caught.value.problems == [
        "Back: must not be empty",
        "Tags, tag 1: a tag is one word, without spaces",
    ]


def test_added_cards_are_studied_and_undo_removes_them(bundled: Database, clock: Clock) -> None:
    deck = _deck(bundled, "activation-recompute")
    before = snapshot(bundled.path)
    change, card_id = editing.add_card(bundled, deck, CHOICE, clock())
    assert ids(bundled, clock, 'question:"which planet is largest?"') == [card_id]
    assert ids(bundled, clock, "mars smaller") == [card_id]
    assert editing.is_duplicate(bundled, deck.id, " Which planet is largest? ")
    assert not editing.is_duplicate(bundled, deck.id, "Which planet is largest?", but=card_id)
    second_change, second = editing.add_card(bundled, deck, {**CHOICE, "tags": []}, clock())
    assert second != card_id
    # The new cards come last in the deck, so they are studied after the bundled ones.
    with bundled.reading() as transaction:
        keys = [card.id for card in transaction.cards.of_deck(deck.id)]
    assert keys[-2:] == [card_id, second]
    changes = _changes(bundled)
    changes.push(change)
    changes.push(second_change)
    changes.undo()
    changes.undo()
    assert snapshot(bundled.path) == before


def test_editing_keeps_history_and_schedule_and_undo_restores_the_text(
    bundled: Database, clock: Clock
) -> None:
    answer_cards(bundled, clock, 3)
    clock.advance(days=2)
    card_id = ids(bundled, clock, "-is:new")[0]
    before = snapshot(bundled.path)
    with bundled.reading() as transaction:
        stored = transaction.cards.get(card_id)
    data = editing.card_data(stored.content)
    data["choices"][0]["text"] = data["choices"][0]["text"] + " (fixed)"
    change = editing.edit_card(bundled, card_id, data, clock())
    assert change.changed == 1
    with bundled.reading() as transaction:
        after = transaction.cards.get(card_id)
        history = transaction.history.of_card(card_id)
    assert after.memory == stored.memory
    assert len(history) == 1
    assert "(fixed)" in after.content
    assert ids(bundled, clock, "edited:1") == [card_id]
    healthy(bundled, clock)
    assert editing.edit_card(bundled, card_id, data, clock()).changed == 0
    changes = _changes(bundled)
    changes.push(change)
    changes.undo()
    assert snapshot(bundled.path) == before


def test_the_bundled_deck_keeps_what_the_learner_changed(
    bundled: Database, clock: Clock, tmp_path: Path
) -> None:
    deck = _deck(bundled, "activation-recompute")
    edited_id, moved_id, plain_id = ids(bundled, clock, "deck:activation-recompute")[:3]
    with bundled.reading() as transaction:
        edited = transaction.cards.get(edited_id)
    data = editing.card_data(edited.content)
    data["question"] = "My own wording?"
    editing.edit_card(bundled, edited_id, data, clock())
    deck_changes.new_deck(bundled, "Mine", clock())
    _changes(bundled).move([moved_id], _deck(bundled, "mine"))
    deck_changes.rename_deck(bundled, deck.id, "Courses::Activation", clock())
    # A newer Recall ships every bundled card with new text.
    (bundled_file,) = paths.bundled_decks()
    raw = json.loads(bundled_file.read_bytes())
    for card in raw["cards"]:
        card["explanation"] = "Rewritten upstream."
    newer = parse_deck(json.dumps(raw), "newer bundled deck")
    report = importing.import_deck(bundled, newer, clock(), keep_edited=True)
    assert report.added == 0
    with bundled.reading() as transaction:
        assert "My own wording?" in transaction.cards.get(edited_id).content
        assert "Rewritten upstream." not in transaction.cards.get(edited_id).content
        assert "Rewritten upstream." in transaction.cards.get(plain_id).content
        assert transaction.cards.get(moved_id).deck_id == _deck(bundled, "mine").id
        assert transaction.decks.get(deck.id).name == "Courses::Activation"
    # Starting again changes nothing more; an explicit import applies the file.
    assert importing.import_deck(bundled, newer, clock(), keep_edited=True).updated == 0
    importing.import_deck(bundled, newer, clock())
    with bundled.reading() as transaction:
        assert "Rewritten upstream." in transaction.cards.get(edited_id).content
    healthy(bundled, clock)


def test_new_rename_describe_and_delete_decks_each_undo(bundled: Database, clock: Clock) -> None:
    answer_cards(bundled, clock, 2)
    changes = _changes(bundled)
    before = snapshot(bundled.path)
    changes.push(deck_changes.new_deck(bundled, "Languages :: Spanish::Verbs", clock()))
    with bundled.reading() as transaction:
        names = [deck.name for deck in transaction.browsing.decks()]
    assert "Languages" in names
    assert "Languages::Spanish" in names
    assert "Languages::Spanish::Verbs" in names
    with pytest.raises(deck_changes.DeckNameError, match="already a deck named"):
        deck_changes.new_deck(bundled, "languages::spanish", clock())
    with pytest.raises(deck_changes.DeckNameError, match="empty step"):
        deck_changes.new_deck(bundled, "A::::B", clock())
    spanish = next(deck for deck in _decks(bundled) if deck.name == "Languages::Spanish")
    with pytest.raises(deck_changes.DeckNameError, match="inside itself"):
        deck_changes.rename_deck(bundled, spanish.id, "Languages::Spanish::Verbs::X", clock())
    changes.push(deck_changes.rename_deck(bundled, spanish.id, "Español", clock()))
    assert {"Español", "Español::Verbs"} <= {deck.name for deck in _decks(bundled)}
    bundled_deck = _deck(bundled, "activation-recompute")
    changes.push(deck_changes.rename_deck(bundled, bundled_deck.id, "Español::ML", clock()))
    changes.push(deck_changes.describe_deck(bundled, bundled_deck.id, "Mine now.", clock()))
    # Studying the parent studies the moved deck inside it.
    schedulers = Schedulers()
    session = StudySession(bundled, schedulers, _key_of(bundled, "Español"))
    shown = session.next_card(clock())
    assert shown is not None
    contents = deck_changes.contents(bundled, _id_of(bundled, "Español"))
    assert (len(contents.decks), contents.cards, contents.reviews) == (3, 8, 2)
    changes.push(deck_changes.delete_deck(bundled, _id_of(bundled, "Español"), clock()))
    assert [deck.name for deck in _decks(bundled)] == ["Languages"]
    healthy(bundled, clock)
    while changes.undo_label is not None:
        changes.undo()
    assert snapshot(bundled.path) == before
    healthy(bundled, clock)


def _decks(database: Database) -> list[DeckRow]:
    with database.reading() as transaction:
        return transaction.browsing.decks()


def _id_of(database: Database, name: str) -> int:
    return next(deck.id for deck in _decks(database) if deck.name == name)


def _key_of(database: Database, name: str) -> str:
    return next(deck.key for deck in _decks(database) if deck.name == name)


def test_the_deck_tree_nests_by_name_and_sums_up() -> None:
    decks = [
        DeckRow(1, "a", "Spanish", ""),
        DeckRow(2, "b", "Spanish::Verbs", ""),
        DeckRow(3, "c", "spanish::Nouns", ""),
        DeckRow(4, "d", "Maths::Algebra", ""),
        DeckRow(5, "e", "Spanish::Verbs::Irregular", ""),
    ]
    roots = deck_tree.build(decks)
    assert [(node.name, depth) for node, depth in deck_tree.walk(roots)] == [
        ("Maths", 0),
        ("Maths::Algebra", 1),
        ("Spanish", 0),
        ("Spanish::Nouns", 1),
        ("Spanish::Verbs", 1),
        ("Spanish::Verbs::Irregular", 2),
    ]
    assert roots[0].deck is None
    assert deck_tree.summed(roots[1], lambda deck: deck.id, lambda a, b: a + b, 0) == 1 + 3 + 2 + 5
    assert deck_tree.parent(decks, decks[4]) == decks[1]
    assert deck_tree.parent(decks, decks[3]) is None
    assert [deck.id for deck in deck_tree.subtree(decks, decks[0])] == [1, 3, 2, 5]


def test_unshuffled_choices_keep_the_files_order(database: Database, clock: Clock) -> None:
    deck = {
        "format": "recall-deck",
        "version": 1,
        "id": "scale",
        "name": "Scale",
        "cards": [{**CHOICE, "id": "q", "shuffle": False}],
    }
    importing.import_deck(database, parse_deck(json.dumps(deck), "scale"), clock())
    schedulers = Schedulers()
    session = StudySession(database, schedulers, "scale", random.Random(5))
    for _ in range(5):
        shown = session.next_card(clock())
        assert shown is not None
        assert shown.order == (0, 1, 2)


def test_an_edit_of_a_card_that_is_gone_says_so(database: Database, clock: Clock) -> None:
    with pytest.raises(RecallError, match="no longer exists"):
        editing.edit_card(database, 999, CHOICE, clock())
    report = integrity.check(database, Schedulers(), clock())
    assert report.healthy


def _stored(database: Database, card_id: int) -> str:
    with database.reading() as transaction:
        return transaction.cards.get(card_id).content


def _written(database: Database) -> dict[str, list[tuple[object, ...]]]:
    """The cards, their history and the sync events waiting to be sent, read without Recall."""
    connection = sqlite3.connect(database.path)
    try:
        return {
            table: sorted(connection.execute(f"SELECT * FROM {table}").fetchall())
            for table in ("card", "card_memory", "review", "card_tag", "sync_outbox")
        }
    finally:
        connection.close()


def test_an_edit_of_a_card_changed_since_it_began_is_refused_and_writes_nothing(
    bundled: Database, clock: Clock
) -> None:
    answer_cards(bundled, clock, 2)
    card_id = ids(bundled, clock, "-is:new")[0]
    began_from = _stored(bundled, card_id)
    # Elsewhere (a sync, an import, another window) the card's explanation changes.
    elsewhere = editing.card_data(began_from)
    elsewhere["explanation"] = "Written on the other computer."
    editing.edit_card(bundled, card_id, elsewhere, clock())
    before = _written(bundled)
    assert any(before["sync_outbox"])  # the other edit is waiting to be sent
    mine = editing.card_data(began_from)
    mine["question"] = "My own wording?"
    with pytest.raises(editing.CardChangedElsewhereError) as caught:
        editing.edit_card(bundled, card_id, mine, clock(), began_from=began_from)
    assert caught.value.card_id == card_id
    assert str(caught.value) == (
        f"card {card_id} was changed elsewhere (a sync, an import or another window) "
        "since this edit began"
    )
    assert isinstance(caught.value, RecallError)
    assert _written(bundled) == before
    assert "Written on the other computer." in _stored(bundled, card_id)
    # Without the text it began from, the edit replaces what is stored, as before.
    change = editing.edit_card(bundled, card_id, mine, clock())
    assert change.changed == 1
    assert "My own wording?" in _stored(bundled, card_id)
    assert "Written on the other computer." not in _stored(bundled, card_id)
    healthy(bundled, clock)


def test_saving_the_text_stored_now_is_no_conflict(bundled: Database, clock: Clock) -> None:
    card_id = ids(bundled, clock, "")[0]
    began_from = _stored(bundled, card_id)
    same = editing.card_data(began_from)
    same["explanation"] = "Both windows wrote this."
    editing.edit_card(bundled, card_id, same, clock())  # elsewhere
    before = _written(bundled)
    change = editing.edit_card(bundled, card_id, same, clock(), began_from=began_from)
    assert change.changed == 0
    assert _written(bundled) == before
    # Nothing changed elsewhere: an edit begun from the stored text saves.
    now = _stored(bundled, card_id)
    same["explanation"] = "Changed again here."
    assert editing.edit_card(bundled, card_id, same, clock(), began_from=now).changed == 1
    assert "Changed again here." in _stored(bundled, card_id)
