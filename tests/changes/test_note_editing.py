"""Editing a card imported from Anki edits its note: every card of the note is rendered
again from the new fields, its stored sides and search text follow, and undo puts all back."""

from __future__ import annotations

from pathlib import Path

import pytest

from recall.changes.cards import restore
from recall.changes.editing import card_data, edit_card
from recall.changes.note_editing import NoteEditError
from recall.collection import importing
from recall.content.deck_format import CARD_ADAPTER, BasicCard
from recall.scheduling import Schedulers
from recall.storage import Database
from tests.conftest import Clock
from tests.helpers.anki_notes import make_note_package
from tests.helpers.anki_templates import plain


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


def test_a_changed_tag_alone_is_a_card_edit_as_before(
    database: Database, imported: dict[str, int], clock: Clock
) -> None:
    forward, reverse = imported["chien"], imported["dog"]
    before = _cards(database)
    data = card_data(before[forward].model_dump_json(exclude_defaults=True))
    data["tags"] = ["animals", "french"]
    change = edit_card(database, forward, data, clock())
    assert change.card_ids == (forward,)
    assert _cards(database)[reverse] == before[reverse]
