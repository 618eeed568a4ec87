"""Editing a card imported from Anki edits its note: every card of the note is rendered
again from the new fields, its stored sides and search text follow, and undo puts all back."""

from __future__ import annotations

from pathlib import Path

import pytest

from recall.changes.cards import Changes
from recall.changes.change import restore
from recall.changes.editing import card_data, edit_card
from recall.changes.note_editing import NoteEditError
from recall.changes.tags import mark_leech
from recall.collection import importing
from recall.content.deck_format import CARD_ADAPTER, BasicCard
from recall.core.preferences import Preferences
from recall.core.presets import LeechPolicy
from recall.scheduling import Schedulers
from recall.storage import Database
from tests.conftest import Clock
from tests.helpers.anki_notes import make_note_package
from tests.helpers.anki_templates import make_template_packages, plain


def _cards(database: Database) -> dict[int, BasicCard]:
    with database.reading() as transaction:
        found = {}
        for deck in transaction.browsing.decks():
            for row in transaction.cards.of_deck(deck.id):
                card = CARD_ADAPTER.validate_json(row.content)
                assert isinstance(card, BasicCard)
                found[row.id] = card
        return found


def _search_text(database: Database, card_id: int) -> str:
    with database.reading() as transaction:
        return str(transaction.sql.value("SELECT search_text FROM card WHERE id = ?", (card_id,)))


@pytest.fixture
def imported(database: Database, tmp_path: Path, clock: Clock) -> dict[str, int]:
    importing.import_files(database, Schedulers(fuzz=False), [make_note_package(tmp_path)], clock())
    return {plain(card.front): card_id for card_id, card in _cards(database).items()}


def test_saving_a_notes_fields_renders_every_card_of_the_note(
    database: Database, imported: dict[str, int], clock: Clock
) -> None:
    forward, reverse = imported["chien"], imported["dog"]
    before = _cards(database)
    data = card_data(before[forward].model_dump_json(exclude_defaults=True))
    data["anki"]["fields"]["Word"] = "<b>loup</b>"
    change = edit_card(database, forward, data, clock())
    assert change.changed == 2
    assert set(change.card_ids) == {forward, reverse}
    after = _cards(database)
    assert (
        after[forward].front
        == '<div style="font-family:serif"><div style="color:#36c"><b>loup</b></div></div>'
    )
    assert plain(after[reverse].back) == "loup"
    assert plain(after[reverse].front) == "dog"
    origin = after[reverse].anki
    assert origin is not None
    assert origin.fields["Word"] == "<b>loup</b>"
    assert "loup" in _search_text(database, reverse)
    assert "chien" not in _search_text(database, forward)
    # The cloze note is another note: untouched.
    cloze = [card_id for front, card_id in imported.items() if "capital" in front]
    assert all(after[card_id] == before[card_id] for card_id in cloze)
    # Undo puts both cards back as they were.
    with database.transaction() as transaction:
        restore(transaction, change.restore)
    assert _cards(database) == before


def test_a_field_edit_that_empties_a_cards_front_is_refused(
    database: Database, imported: dict[str, int], clock: Clock
) -> None:
    forward = imported["chien"]
    before = _cards(database)
    data = card_data(before[forward].model_dump_json(exclude_defaults=True))
    data["anki"]["fields"]["Meaning"] = ""
    with pytest.raises(NoteEditError, match="template 2 would show nothing on its front"):
        edit_card(database, forward, data, clock())
    assert _cards(database) == before


def test_a_tag_changed_in_the_editor_is_the_notes(
    database: Database, imported: dict[str, int], clock: Clock
) -> None:
    forward, reverse = imported["chien"], imported["dog"]
    before = _cards(database)
    data = card_data(before[forward].model_dump_json(exclude_defaults=True))
    data["tags"] = ["animals", "french"]
    change = edit_card(database, forward, data, clock())
    assert set(change.card_ids) == {forward, reverse}
    assert change.label == "Edit a note's 2 cards"
    after = _cards(database)
    assert after[forward].tags == after[reverse].tags == ["animals", "french"]
    assert after[reverse] == before[reverse].model_copy(update={"tags": ["animals", "french"]})
    with database.transaction() as transaction:
        restore(transaction, change.restore)
    assert _cards(database) == before


def test_tagging_a_card_of_a_note_tags_every_card_of_it_as_one_change(
    database: Database, imported: dict[str, int], clock: Clock
) -> None:
    forward, reverse = imported["chien"], imported["dog"]
    before = _cards(database)
    others = {card_id for card_id in before if card_id not in (forward, reverse)}
    assert len(others) == 2  # the cloze note's two cards, another note
    changes = Changes(database, Schedulers(fuzz=False), Preferences())

    change = changes.tag([forward], clock(), add=["verb"], remove=["animals"])

    assert set(change.card_ids) == {forward, reverse}
    assert change.changed == 2
    after = _cards(database)
    assert after[forward].tags == after[reverse].tags == ["verb"]
    assert {card_id: after[card_id] for card_id in others} == {
        card_id: before[card_id] for card_id in others
    }
    assert changes.undo() is change
    assert _cards(database) == before

    # Both cards of the cloze note chosen at once: each is changed once.
    (first, second) = sorted(others)
    both = changes.tag([first, second], clock(), add=["geography"])
    assert sorted(both.card_ids) == [first, second]
    assert _cards(database)[second].tags == ["geography"]


def test_a_leech_tags_its_note_and_only_it_is_suspended(
    database: Database, imported: dict[str, int], clock: Clock
) -> None:
    forward, reverse = imported["chien"], imported["dog"]
    before = _cards(database)
    with database.transaction() as transaction:
        undo = mark_leech(
            transaction, forward, LeechPolicy(leech_threshold=8, leech_action="suspend"), clock()
        )
    after = _cards(database)
    assert "leech" in after[forward].tags
    assert "leech" in after[reverse].tags
    with database.reading() as transaction:
        suspended = transaction.browsing.values("card_memory", ("suspended",), [forward, reverse])
    assert {card_id: bool(flag) for card_id, flag in suspended} == {forward: True, reverse: False}
    with database.transaction() as transaction:
        restore(transaction, undo)
    assert _cards(database) == before


def test_a_tag_change_renders_again_a_card_whose_template_shows_its_tags(
    database: Database, tmp_path: Path, clock: Clock
) -> None:
    (tmp_path / "made").mkdir()
    _, paths = make_template_packages(tmp_path / "made")
    importing.import_files(database, Schedulers(fuzz=False), [paths["latest"]], clock())
    cards = _cards(database)
    (special,) = [i for i, card in cards.items() if plain(card.front).startswith("Bonjour")]
    assert plain(cards[special].back).endswith("[french greeting]")
    changes = Changes(database, Schedulers(fuzz=False), Preferences())

    changes.tag([special], clock(), add=["polite"])

    assert plain(_cards(database)[special].back).endswith("[french greeting polite]")
    changes.undo()
    assert _cards(database) == cards


def test_tags_saved_on_a_card_whose_note_type_is_missing_reach_its_note(
    database: Database, imported: dict[str, int], clock: Clock
) -> None:
    forward, reverse = imported["chien"], imported["dog"]
    with database.transaction() as transaction:
        transaction.sql.run("DELETE FROM anki_note_type")
    before = _cards(database)
    data = card_data(before[forward].model_dump_json(exclude_defaults=True))
    data["tags"] = ["french"]
    change = edit_card(database, forward, data, clock())
    assert set(change.card_ids) == {forward, reverse}
    after = _cards(database)
    assert after[reverse] == before[reverse].model_copy(update={"tags": ["french"]})
    assert after[forward].tags == ["french"]
