"""A card imported from Anki is shown from its stored note, note type and CSS, rendered when
shown; cards stored before (or without their note type) show their stored sides."""

from __future__ import annotations

import random
import shutil
from pathlib import Path

from recall.changes import decks
from recall.changes.cards import Changes
from recall.changes.editing import card_data, edit_card
from recall.collection import importing
from recall.content.anki_note import AnkiNoteType, note_type_json, note_type_key, parse_note_type
from recall.content.deck_format import CARD_ADAPTER, BasicCard
from recall.core.preferences import Preferences
from recall.scheduling import Schedulers
from recall.storage import Database
from recall.study.anki_cards import ShownNotes
from recall.study.session import StudySession
from tests.conftest import ZONE, Clock
from tests.helpers.anki_notes import make_note_package
from tests.helpers.anki_templates import make_template_packages, plain

DATA = Path(__file__).resolve().parent.parent / "data"


def _import(database: Database, tmp_path: Path, clock: Clock) -> dict[str, tuple[int, BasicCard]]:
    """The package's cards by their stored front's text: (row id, card as stored)."""
    package = make_note_package(tmp_path)
    importing.import_files(database, Schedulers(fuzz=False), [package], clock())
    cards = {}
    with database.reading() as transaction:
        for deck in transaction.browsing.decks():
            for row in transaction.cards.of_deck(deck.id):
                card = CARD_ADAPTER.validate_json(row.content)
                if isinstance(card, BasicCard) and card.anki is not None:
                    cards[plain(card.front)] = (row.id, card)
    return cards


def _store(database: Database, clock: Clock, changes: dict[int, BasicCard]) -> None:
    with database.transaction() as transaction:
        transaction.browsing.set_content(
            [
                (card_id, card.model_dump_json(exclude_defaults=True))
                for card_id, card in changes.items()
            ],
            clock(),
        )


def _shown(database: Database, card_id: int, clock: Clock) -> BasicCard:
    with database.reading() as transaction:
        (deck,) = [
            d
            for d in transaction.browsing.decks()
            if d.id == transaction.cards.get(card_id).deck_id
        ]
    session = StudySession(database, Schedulers(fuzz=False), deck.key, random.Random(1), ZONE)
    card = session.show(card_id, clock()).card
    assert isinstance(card, BasicCard)
    return card


def _with_field(card: BasicCard, name: str, value: str) -> BasicCard:
    assert card.anki is not None
    origin = card.anki.model_copy(update={"fields": {**card.anki.fields, name: value}})
    return card.model_copy(update={"anki": origin})  # the stored sides are left stale


def test_a_shown_card_renders_from_its_stored_note(
    database: Database, tmp_path: Path, clock: Clock
) -> None:
    cards = _import(database, tmp_path, clock)
    forward_id, forward = cards["chien"]
    reverse_id, reverse = cards["dog"]
    assert forward.anki is not None
    assert reverse.anki is not None
    assert forward.anki.guid == reverse.anki.guid
    assert forward.anki.note_type == reverse.anki.note_type
    assert (forward.anki.ord, reverse.anki.ord) == (0, 1)
    # Unchanged, the card renders as the import stored it, its picture named as stored.
    shown = _shown(database, forward_id, clock)
    assert (shown.front, shown.back) == (forward.front, forward.back)
    assert "<img" in shown.back
    # A field changed in the note: both cards show it, though their stored sides are old.
    _store(
        database,
        clock,
        {
            forward_id: _with_field(forward, "Word", "loup"),
            reverse_id: _with_field(reverse, "Word", "loup"),
        },
    )
    assert plain(_shown(database, forward_id, clock).front) == "loup"
    assert plain(_shown(database, reverse_id, clock).back) == "loup"
    assert plain(_shown(database, reverse_id, clock).front) == "dog"


def test_the_note_types_css_is_applied_when_shown(
    database: Database, tmp_path: Path, clock: Clock
) -> None:
    cards = _import(database, tmp_path, clock)
    card_id, card = cards["chien"]
    assert card.anki is not None
    shown = _shown(database, card_id, clock)
    assert shown.front == '<div style="font-family:serif"><div style="color:#36c">chien</div></div>'
    # Another note type (new CSS, so a new key) for the same note: the card shows its CSS.
    with database.reading() as transaction:
        content = transaction.note_types.content(card.anki.note_type)
    assert content is not None
    restyled = parse_note_type(content).model_copy(
        update={"css": ".q { color: #c63; font-weight: bold }"}
    )
    key = note_type_key(restyled)
    with database.transaction() as transaction:
        assert transaction.note_types.add(key, note_type_json(restyled))
    _store(
        database,
        clock,
        {
            card_id: card.model_copy(
                update={"anki": card.anki.model_copy(update={"note_type": key})}
            )
        },
    )
    assert _shown(database, card_id, clock).front == (
        '<div style="color:#c63;font-weight:bold">chien</div>'
    )


def test_a_card_is_rendered_once_per_content(
    database: Database, tmp_path: Path, clock: Clock
) -> None:
    cards = _import(database, tmp_path, clock)
    card_id, card = cards["chien"]
    notes = ShownNotes(database)
    content = card.model_dump_json(exclude_defaults=True)
    first = notes.shown(card_id, content, card)
    assert notes.shown(card_id, content, card) is first
    changed = _with_field(card, "Word", "loup")
    again = notes.shown(card_id, changed.model_dump_json(exclude_defaults=True), changed)
    assert isinstance(again, BasicCard)
    assert again is not first
    assert plain(again.front) == "loup"


def test_a_card_whose_note_type_is_missing_or_damaged_shows_its_stored_sides(
    database: Database, tmp_path: Path, clock: Clock
) -> None:
    cards = _import(database, tmp_path, clock)
    card_id, card = cards["chien"]
    assert card.anki is not None
    missing = "0" * 64
    stale = _with_field(card, "Word", "loup")
    assert stale.anki is not None
    _store(
        database,
        clock,
        {
            card_id: stale.model_copy(
                update={"anki": stale.anki.model_copy(update={"note_type": missing})}
            )
        },
    )
    assert plain(_shown(database, card_id, clock).front) == "chien"
    with database.transaction() as transaction:
        transaction.note_types.add(missing, '{"name": "broken"}')
    assert plain(_shown(database, card_id, clock).front) == "chien"


def test_a_migrated_database_keeps_its_cards_and_shows_imported_notes(
    tmp_path: Path, clock: Clock
) -> None:
    path = tmp_path / "data" / "recall.sqlite3"
    path.parent.mkdir()
    shutil.copyfile(DATA / "schema-16.sqlite3", path)
    database = Database(path)
    try:
        with database.reading() as transaction:
            assert transaction.note_types.stored_keys() == []
            old = [
                (row.id, row.content)
                for deck in transaction.browsing.decks()
                for row in transaction.cards.of_deck(deck.id)
            ]
        notes = ShownNotes(database)
        for card_id, content in old[:50]:
            card = CARD_ADAPTER.validate_json(content)
            assert notes.shown(card_id, content, card) == card  # as stored, as before
        cards = _import(database, tmp_path, clock)
        with database.reading() as transaction:
            stored = [
                AnkiNoteType.model_validate_json(transaction.note_types.content(key) or "")
                for key in transaction.note_types.stored_keys()
            ]
        assert sorted(note_type.name for note_type in stored) == ["Cloze", "Styled pair"]
        for front, (card_id, card) in cards.items():
            shown = _shown(database, card_id, clock)
            assert (plain(shown.front), shown.back) == (front, card.back)
        assert set(cards) == {
            "chien",
            "dog",
            "[...] is the capital of France",
            "Paris is the capital of [...]",
        }
    finally:
        database.close()


def _special_card(database: Database, tmp_path: Path, clock: Clock) -> tuple[int, BasicCard]:
    """The card of the note type whose front shows ``{{Deck}} / {{Subdeck}}``."""
    (tmp_path / "made").mkdir()
    _, paths = make_template_packages(tmp_path / "made")
    importing.import_files(database, Schedulers(fuzz=False), [paths["latest"]], clock())
    with database.reading() as transaction:
        for deck in transaction.browsing.decks():
            for row in transaction.cards.of_deck(deck.id):
                card = CARD_ADAPTER.validate_json(row.content)
                if isinstance(card, BasicCard) and plain(card.front).startswith("Bonjour"):
                    return row.id, card
    raise AssertionError("no card shows the deck")


def _deck_id(database: Database, name: str) -> int:
    with database.reading() as transaction:
        (deck_id,) = [deck.id for deck in transaction.browsing.decks() if deck.name == name]
    return deck_id


def test_the_deck_a_template_names_is_the_cards_recall_deck_now(
    database: Database, tmp_path: Path, clock: Clock
) -> None:
    card_id, stored = _special_card(database, tmp_path, clock)
    imported = "Bonjour Languages::French / French / Only card / Special fields"
    assert plain(stored.front) == imported
    assert plain(_shown(database, card_id, clock).front) == imported

    french = _deck_id(database, "Languages::French")
    decks.rename_deck(database, french, "Langues::Français", clock())
    renamed = "Bonjour Langues::Français / Français / Only card / Special fields"
    assert plain(_shown(database, card_id, clock).front) == renamed

    decks.new_deck(database, "Elsewhere::Mine", clock())
    with database.reading() as transaction:
        mine = transaction.decks.get(_deck_id(database, "Elsewhere::Mine"))
    Changes(database, Schedulers(fuzz=False), Preferences()).move([card_id], mine)
    moved = "Bonjour Elsewhere::Mine / Mine / Only card / Special fields"
    assert plain(_shown(database, card_id, clock).front) == moved

    # A session that showed the card before the move shows it in its new deck too.
    with database.reading() as transaction:
        row = transaction.cards.get(card_id)
    notes = ShownNotes(database)
    first = notes.shown(row.id, row.content, CARD_ADAPTER.validate_json(row.content), row.deck_id)
    assert isinstance(first, BasicCard)
    assert plain(first.front) == moved
    decks.rename_deck(database, mine.id, "Elsewhere::Ours", clock())
    again = notes.shown(row.id, row.content, CARD_ADAPTER.validate_json(row.content), row.deck_id)
    assert isinstance(again, BasicCard)
    assert plain(again.front) == "Bonjour Elsewhere::Ours / Ours / Only card / Special fields"

    # Editing the note stores its sides rendered in the card's deck now.
    data = card_data(row.content)
    data["anki"]["fields"]["Front"] = "Salut"
    edit_card(database, card_id, data, clock())
    with database.reading() as transaction:
        edited = CARD_ADAPTER.validate_json(transaction.cards.get(card_id).content)
    assert isinstance(edited, BasicCard)
    assert plain(edited.front) == "Salut Elsewhere::Ours / Ours / Only card / Special fields"
