"""Cards an earlier Recall imported from Anki without their note gain it when the package is
imported again: fields, template number and note type, with the schedule, history and what
the learner changed left as they were, and no card added."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from anki.collection import Collection, DeckIdLimit, ExportAnkiPackageOptions

# isort: split
from anki.decks import DeckId

from recall.changes.cards import Changes
from recall.collection import importing
from recall.content.deck_format import CARD_ADAPTER, BasicCard
from recall.core.memory import Rating
from recall.core.preferences import Preferences
from recall.safekeeping import integrity
from recall.scheduling import Schedulers
from recall.storage import Database, NewCard
from recall.study.session import StudySession
from tests.conftest import ZONE
from tests.helpers.anki_notes import make_note_package
from tests.helpers.anki_templates import make_template_packages, plain


def _cards(database: Database) -> dict[str, tuple[int, BasicCard]]:
    """Every stored card by its key: (row id, card)."""
    cards = {}
    with database.reading() as transaction:
        for deck in transaction.browsing.decks():
            for row in transaction.cards.of_deck(deck.id):
                card = CARD_ADAPTER.validate_json(row.content)
                assert isinstance(card, BasicCard)
                cards[row.key] = (row.id, card)
    return cards


def _strip_notes(database: Database, now: datetime) -> None:
    """Store every card as an earlier Recall did: its rendered sides alone, no note, and
    no note type kept."""
    with database.transaction() as transaction:
        transaction.sql.run("DELETE FROM anki_note_type")
        for deck in transaction.browsing.decks():
            for row in transaction.cards.of_deck(deck.id):
                card = CARD_ADAPTER.validate_json(row.content)
                stripped = card.model_copy(update={"anki": None})
                content = stripped.model_dump_json(exclude_defaults=True)
                assert '"anki"' not in content
                transaction.cards.update(
                    row.id, NewCard(row.key, row.position, row.kind, content), now
                )


def _study(database: Database, card_id: int, deck_key: str, now: datetime) -> None:
    session = StudySession(database, Schedulers(fuzz=False), deck_key, random.Random(1), ZONE)
    shown = session.show(card_id, now)
    answer = session.reveal(shown, now + timedelta(seconds=4))
    session.record(answer, Rating.GOOD, now + timedelta(seconds=4))


def _schedules(database: Database) -> tuple[list[tuple[object, ...]], list[tuple[object, ...]]]:
    """Every review row and every memory row, as stored."""
    with database.reading() as transaction:
        reviews = transaction.sql.rows("SELECT * FROM review ORDER BY id")
        memories = transaction.sql.rows("SELECT * FROM card_memory ORDER BY card_id")
    return [tuple(row) for row in reviews], [tuple(row) for row in memories]


def _deck_key(database: Database, card_id: int) -> str:
    with database.reading() as transaction:
        deck_id = transaction.cards.get(card_id).deck_id
        (key,) = [deck.key for deck in transaction.browsing.decks() if deck.id == deck_id]
    return key


def _package_time(package: Path, folder: Path) -> datetime:
    """When the package's notes last changed in Anki (its latest note modification time)."""
    staging = folder / "read"
    staging.mkdir()
    return max(importing.read_file(package, staging).modified.values())


def test_reimporting_gives_cards_their_note_and_keeps_their_schedule(
    database: Database, tmp_path: Path
) -> None:
    package = make_note_package(tmp_path)
    # Imported after it was made: Recall's copy is newer than the package's notes.
    now = _package_time(package, tmp_path) + timedelta(minutes=1)
    importing.import_files(database, Schedulers(fuzz=False), [package], now)
    imported = _cards(database)
    assert len(imported) == 4
    _strip_notes(database, now + timedelta(minutes=1))
    studied_id = next(card_id for card_id, card in imported.values() if plain(card.front) == "dog")
    _study(database, studied_id, _deck_key(database, studied_id), now + timedelta(hours=1))
    before = _schedules(database)
    assert len(before[0]) == 1

    (report,) = importing.import_files(
        database, Schedulers(fuzz=False), [package], now + timedelta(hours=2)
    )

    (deck,) = [deck for deck in report.decks if deck.updated or deck.unchanged]
    assert (deck.added, deck.updated, deck.noted, deck.newer_kept) == (0, 4, 4, 0)
    assert "4 given their Anki note" in deck.describe()
    after = _cards(database)
    assert set(after) == set(imported)
    for key, (card_id, card) in after.items():
        assert card.anki is not None
        assert card == imported[key][1]
        assert card_id == imported[key][0]
    with database.reading() as transaction:
        for _, card in after.values():
            assert card.anki is not None
            assert transaction.note_types.content(card.anki.note_type) is not None
    assert _schedules(database) == before
    assert integrity.check(database, Schedulers(fuzz=False), now + timedelta(hours=2)).healthy

    # Once noted, the same package again changes nothing.
    (again,) = importing.import_files(
        database, Schedulers(fuzz=False), [package], now + timedelta(hours=3)
    )
    assert sum(deck.updated + deck.noted + deck.added for deck in again.decks) == 0
    assert _cards(database) == after


def test_a_card_the_learner_changed_keeps_what_they_did(database: Database, tmp_path: Path) -> None:
    package = make_note_package(tmp_path)
    now = _package_time(package, tmp_path) + timedelta(minutes=1)  # imported after it was made
    importing.import_files(database, Schedulers(fuzz=False), [package], now)
    _strip_notes(database, now)
    by_front = {
        plain(card.front): (key, card_id) for key, (card_id, card) in _cards(database).items()
    }
    tagged_key, tagged_id = by_front["chien"]
    rewritten_key, rewritten_id = by_front["dog"]
    changes = Changes(database, Schedulers(fuzz=False), Preferences())
    changes.tag([tagged_id], now + timedelta(minutes=1), add=["mine"])
    rewritten = _cards(database)[rewritten_key][1]
    with database.transaction() as transaction:
        edited = rewritten.model_copy(update={"front": "<b>dog</b> (in French?)"})
        transaction.browsing.set_content(
            [(rewritten_id, edited.model_dump_json(exclude_defaults=True))],
            now + timedelta(minutes=2),
        )

    (report,) = importing.import_files(
        database, Schedulers(fuzz=False), [package], now + timedelta(hours=1)
    )

    cards = _cards(database)
    tagged = cards[tagged_key][1]
    assert tagged.anki is not None  # its sides are the note's: it gains the note
    assert tagged.tags == ["animals", "mine"]
    kept = cards[rewritten_key][1]
    assert kept.anki is None  # the note would show its sides instead of the learner's
    assert kept.front == "<b>dog</b> (in French?)"
    (deck,) = [deck for deck in report.decks if deck.updated or deck.unchanged]
    assert (deck.added, deck.noted, deck.kept_sides) == (0, 3, 1)
    assert "1 card changed here kept its own sides without its Anki note" in deck.describe()


def _two_exports(folder: Path) -> tuple[Path, Path, datetime]:
    """One reversible note exported, then changed in Anki a day later and exported again;
    and the first export's note time."""
    home = folder / "anki-twice"
    home.mkdir()
    collection = Collection(str(home / "collection.anki2"))
    try:
        deck_id = DeckId(collection.decks.id("Words") or 0)
        basic = collection.models.by_name("Basic (and reversed card)")
        assert basic is not None
        note = collection.new_note(basic)
        note["Front"], note["Back"] = "chien", "dog"
        collection.add_note(note, deck_id)
        options = ExportAnkiPackageOptions(
            with_scheduling=False, with_deck_configs=False, with_media=False, legacy=False
        )
        first, second = folder / "first.apkg", folder / "second.apkg"
        collection.export_anki_package(
            out_path=str(first), options=options, limit=DeckIdLimit(deck_id)
        )
        note["Back"] = "hound"
        collection.update_note(note)
        assert collection.db is not None
        collection.db.execute("UPDATE notes SET mod = mod + 86400")  # changed a day later
        collection.export_anki_package(
            out_path=str(second), options=options, limit=DeckIdLimit(deck_id)
        )
        made = collection.db.scalar("SELECT mod FROM notes") - 86400
    finally:
        collection.close()
    return first, second, datetime.fromtimestamp(made, UTC)


def test_a_newer_export_replaces_a_changed_card_and_gives_it_its_note(
    database: Database, tmp_path: Path
) -> None:
    first, second, made = _two_exports(tmp_path)
    now = made + timedelta(minutes=1)
    importing.import_files(database, Schedulers(fuzz=False), [first], now)
    _strip_notes(database, now)
    by_front = {
        plain(card.front): (key, card_id) for key, (card_id, card) in _cards(database).items()
    }
    key, card_id = by_front["dog"]
    card = _cards(database)[key][1]
    with database.transaction() as transaction:
        edited = card.model_copy(update={"front": "dog?", "tags": ["mine"]})
        transaction.browsing.set_content(
            [(card_id, edited.model_dump_json(exclude_defaults=True))], now
        )

    (report,) = importing.import_files(
        database, Schedulers(fuzz=False), [second], made + timedelta(days=2)
    )

    cards = _cards(database)
    changed = cards[key][1]
    assert changed.anki is not None  # Anki's copy is newer: it replaces the learner's
    assert plain(changed.front) == "hound"
    assert changed.tags == ["mine"]
    assert {plain(c.front) for _, c in cards.values()} == {"chien", "hound"}
    (deck,) = report.decks
    assert (deck.added, deck.updated, deck.noted, deck.kept_sides) == (0, 2, 2, 0)


def _studied_package(folder: Path) -> tuple[Path, datetime]:
    """A package of two reversible notes, three cards answered in Anki, exported with their
    scheduling; and the time of its last answer."""
    home = folder / "anki-studied"
    home.mkdir()
    collection = Collection(str(home / "collection.anki2"))
    try:
        deck_id = DeckId(collection.decks.id("Words") or 0)
        basic = collection.models.by_name("Basic (and reversed card)")
        assert basic is not None
        for front, back in (("chien", "dog"), ("chat", "cat")):
            note = collection.new_note(basic)
            note["Front"], note["Back"] = front, back
            collection.add_note(note, deck_id)
        collection.decks.select(deck_id)
        for _ in range(3):
            card = collection.sched.getCard()
            assert card is not None
            collection.sched.answerCard(card, 3)
        assert collection.db is not None
        last = collection.db.scalar("SELECT max(id) FROM revlog")
        path = folder / "studied.apkg"
        options = ExportAnkiPackageOptions(
            with_scheduling=True, with_deck_configs=True, with_media=True, legacy=False
        )
        collection.export_anki_package(
            out_path=str(path), options=options, limit=DeckIdLimit(deck_id)
        )
    finally:
        collection.close()
    return path, datetime.fromtimestamp(last / 1000, UTC)


def test_a_package_with_its_scheduling_gives_the_note_and_leaves_recalls_schedule(
    database: Database, tmp_path: Path
) -> None:
    package, answered = _studied_package(tmp_path)
    now = answered + timedelta(minutes=5)
    importing.import_files(database, Schedulers(fuzz=False), [package], now)
    _strip_notes(database, now)
    with database.reading() as transaction:
        (deck,) = [d for d in transaction.browsing.decks() if transaction.cards.of_deck(d.id)]
    later = now + timedelta(days=3)
    session = StudySession(database, Schedulers(fuzz=False), deck.key, random.Random(1), ZONE)
    for _ in range(3):  # studied in Recall since: its schedule is no longer the package's
        shown = session.next_card(later)
        assert shown is not None
        answer = session.reveal(shown, later + timedelta(seconds=5))
        session.record(answer, Rating.GOOD, later + timedelta(seconds=6))
    before = _schedules(database)
    assert len(before[0]) == 6

    (report,) = importing.import_files(
        database, Schedulers(fuzz=False), [package], later + timedelta(minutes=1)
    )

    (deck_report,) = report.decks
    assert (deck_report.added, deck_report.noted, deck_report.reviews) == (0, 4, 0)
    assert all(card.anki is not None for _, card in _cards(database).values())
    assert _schedules(database) == before
    assert integrity.check(database, Schedulers(fuzz=False), later + timedelta(minutes=2)).healthy


@pytest.mark.parametrize("layout", ["latest", "legacy"])
def test_every_stock_and_custom_note_type_gains_its_note_in_both_layouts(
    database: Database, tmp_path: Path, layout: str
) -> None:
    (tmp_path / "made").mkdir()
    _, paths = make_template_packages(tmp_path / "made")
    package = paths[layout]
    now = _package_time(package, tmp_path) + timedelta(minutes=1)
    importing.import_files(database, Schedulers(fuzz=False), [package], now)
    imported = _cards(database)
    noted = {key for key, (_, card) in imported.items() if card.anki is not None}
    assert len(noted) > 20
    _strip_notes(database, now)

    (report,) = importing.import_files(
        database, Schedulers(fuzz=False), [package], now + timedelta(hours=1)
    )

    assert sum(deck.noted for deck in report.decks) == len(noted)
    assert sum(deck.added for deck in report.decks) == 0
    assert _cards(database) == imported
