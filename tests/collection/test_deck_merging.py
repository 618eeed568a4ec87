"""Importing Anki decks of one name, parents of subdecks, and packages imported again."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path

import genanki

from recall.changes.cards import Changes
from recall.collection import deck_list, importing
from recall.core.preferences import Preferences
from recall.scheduling import Schedulers
from recall.storage import Database
from tests.conftest import Clock
from tests.helpers.anki_packages import add_reviews, build_package, card_ids, edit_collection

SPANISH_A = 1_500_000_001
SPANISH_B = 1_500_000_002


def _package(
    folder: Path, decks: list[tuple[int, str, list[tuple[str, str]]]], tags: Sequence[str] = ()
) -> Path:
    """A package of basic notes: (Anki deck id, deck name, [(front, back)]) per deck."""
    folder.mkdir(parents=True, exist_ok=True)
    made = []
    for deck_id, name, notes in decks:
        deck = genanki.Deck(deck_id, name)
        for front, back in notes:
            deck.add_note(
                genanki.Note(
                    model=genanki.BASIC_MODEL,
                    fields=[front, back],
                    tags=list(tags),
                    guid=genanki.guid_for(front),
                )
            )
        made.append(deck)
    path = folder / "deck.apkg"
    genanki.Package(made).write_to_file(path, 1_700_000_000)
    return path


def _set_note_times(package: Path, moment: datetime) -> None:
    seconds = int(moment.timestamp())
    edit_collection(package, lambda db: db.execute("UPDATE notes SET mod = ?", (seconds,)))


def _decks(database: Database) -> dict[str, int]:
    """Each deck's name with how many cards it holds."""
    connection = sqlite3.connect(database.path)
    try:
        rows = connection.execute(
            "SELECT deck.name, count(card.id) FROM deck LEFT JOIN card ON card.deck_id = deck.id "
            "GROUP BY deck.id ORDER BY deck.name"
        ).fetchall()
    finally:
        connection.close()
    return dict(rows)


def _contents(database: Database) -> dict[str, dict[str, object]]:
    with database.reading() as transaction:
        return {
            json.loads(card.content)["front"]: json.loads(card.content)
            for deck in transaction.browsing.decks()
            for card in transaction.cards.of_deck(deck.id)
        }


def test_decks_of_one_name_from_two_packages_are_merged_with_their_history(
    database: Database, clock: Clock, tmp_path: Path
) -> None:
    first = _package(tmp_path / "a", [(SPANISH_A, "Spanish", [("uno", "one"), ("dos", "two")])])
    second = _package(
        tmp_path / "b",
        [(SPANISH_B, "Spanish", [("tres", "three"), ("cuatro", "four"), ("cinco", "five")])],
    )
    tres = card_ids(second)[("tres", 0)]
    add_reviews(second, [(1_767_000_000_000, tres, 3, 4000, 1)])

    importing.import_files(database, Schedulers(), [first], clock())
    (report,) = importing.import_files(database, Schedulers(), [second], clock.advance(hours=1))

    assert _decks(database) == {"Spanish": 5}
    (deck,) = report.decks
    line = deck.describe()
    assert line.startswith(
        f"merged deck 'Spanish' (anki-deck-{SPANISH_B}) into the existing deck 'Spanish' "
        f"(anki-deck-{SPANISH_A}): 3 added"
    )
    assert deck.reviews == 1
    with database.reading() as transaction:
        spanish = transaction.decks.by_key(f"anki-deck-{SPANISH_A}")
        assert spanish is not None
        history = {
            card.key: len(reviews) for card, reviews in transaction.history.per_card(spanish.id)
        }
    # genanki numbered both packages' cards alike: the merged one is filed apart.
    assert history[f"anki-{tres}.anki-deck-{SPANISH_B}"] == 1
    assert history[f"anki-{tres}"] == 0
    overviews = deck_list.deck_overviews(database, clock())
    assert [(view.name, view.total) for view in overviews] == [("Spanish", 5)]

    # The same package again finds the merged deck by name: nothing new, nothing changed.
    (again,) = importing.import_files(database, Schedulers(), [second], clock.advance(hours=1))
    (deck,) = again.decks
    assert (deck.added, deck.updated, deck.unchanged, deck.reviews) == (0, 0, 3, 0)
    assert _decks(database) == {"Spanish": 5}


def test_decks_of_one_name_in_one_package_become_one(
    database: Database, clock: Clock, tmp_path: Path
) -> None:
    package = _package(
        tmp_path,
        [
            (SPANISH_A, "Spanish", [("uno", "one"), ("dos", "two"), ("tres", "three")]),
            (SPANISH_B, "Spanish", [("cuatro", "four"), ("cinco", "five"), ("seis", "six")]),
        ],
    )
    (report,) = importing.import_files(database, Schedulers(), [package], clock())

    assert _decks(database) == {"Spanish": 6}
    (deck,) = report.decks
    assert deck.describe().startswith(
        f"merged deck 'Spanish' (anki-deck-{SPANISH_B}) into the deck 'Spanish' "
        f"(anki-deck-{SPANISH_A}): 6 added"
    )


def test_a_subdeck_alone_gets_its_parent_as_a_deck(
    database: Database, clock: Clock, tmp_path: Path
) -> None:
    package = _package(
        tmp_path,
        [
            (SPANISH_A, "Español::Verbos", [("ser", "to be"), ("estar", "to be (state)")]),
            (SPANISH_B, "Español::Nombres::Casa", [("mesa", "table")]),
        ],
    )
    (report,) = importing.import_files(database, Schedulers(), [package], clock())

    assert _decks(database) == {
        "Español": 0,
        "Español::Nombres": 0,
        "Español::Nombres::Casa": 1,
        "Español::Verbos": 2,
    }
    assert "note: added the deck 'Español' (espa-ol) to hold its subdecks, as Anki has it" in (
        report.lines(with_source=False)
    )
    rows = deck_list.deck_tree_rows(deck_list.deck_overviews(database, clock()))
    assert [(row.label, row.depth, row.total, bool(row.key)) for row in rows] == [
        ("Español", 0, 3, True),
        ("Nombres", 1, 1, True),
        ("Casa", 2, 1, True),
        ("Verbos", 1, 2, True),
    ]
    # Imported again: the parents are there, so none is added twice.
    (again,) = importing.import_files(database, Schedulers(), [package], clock())
    assert not [line for line in again.lines() if "to hold its subdecks" in line]
    assert len(_decks(database)) == 4


def test_an_older_package_never_overwrites_a_newer_copy(
    database: Database, clock: Clock, tmp_path: Path
) -> None:
    newer = _package(tmp_path / "new", [(SPANISH_A, "Spanish", [("uno", "one, revised")])])
    _set_note_times(newer, datetime(2026, 1, 10, tzinfo=UTC))
    older = _package(tmp_path / "old", [(SPANISH_A, "Spanish", [("uno", "one")])])
    _set_note_times(older, datetime(2025, 6, 1, tzinfo=UTC))

    importing.import_files(database, Schedulers(), [newer], clock())
    (report,) = importing.import_files(database, Schedulers(), [older], clock.advance(hours=1))

    (deck,) = report.decks
    assert (deck.updated, deck.unchanged, deck.newer_kept) == (0, 0, 1)
    assert "1 changed here since kept" in deck.describe()
    assert _contents(database)["uno"]["back"] == "one, revised"


def test_a_note_changed_in_anki_after_the_import_updates_the_card(
    database: Database, clock: Clock, tmp_path: Path
) -> None:
    first = _package(tmp_path / "first", [(SPANISH_A, "Spanish", [("uno", "one")])])
    _set_note_times(first, datetime(2025, 6, 1, tzinfo=UTC))
    importing.import_files(database, Schedulers(), [first], clock())

    later = clock.advance(days=2)
    revised = _package(tmp_path / "revised", [(SPANISH_A, "Spanish", [("uno", "one!")])])
    _set_note_times(revised, clock.advance(days=-1))  # edited in Anki a day after the import
    (report,) = importing.import_files(database, Schedulers(), [revised], later)

    (deck,) = report.decks
    assert (deck.updated, deck.unchanged, deck.newer_kept) == (1, 0, 0)
    assert _contents(database)["uno"]["back"] == "one!"


def test_reimport_keeps_the_learners_tags_and_replaces_the_packages(
    database: Database, clock: Clock, tmp_path: Path
) -> None:
    first = _package(
        tmp_path / "first", [(SPANISH_A, "Spanish", [("uno", "one"), ("dos", "two")])], ["old"]
    )
    _set_note_times(first, datetime(2025, 6, 1, tzinfo=UTC))
    importing.import_files(database, Schedulers(), [first], clock())
    with database.reading() as transaction:
        deck = transaction.decks.by_key(f"anki-deck-{SPANISH_A}")
        assert deck is not None
        uno = next(
            card.id
            for card in transaction.cards.of_deck(deck.id)
            if json.loads(card.content)["front"] == "uno"
        )
    changes = Changes(database, Schedulers(), Preferences())
    changes.tag([uno], clock.advance(hours=1), add=["mine"])

    revised = _package(
        tmp_path / "revised",
        [(SPANISH_A, "Spanish", [("uno", "one"), ("dos", "two")])],
        ["new"],
    )
    _set_note_times(revised, clock.advance(days=1))
    (report,) = importing.import_files(database, Schedulers(), [revised], clock.advance(hours=1))

    contents = _contents(database)
    # A card the learner tagged keeps every tag it had, the package's new ones first.
    assert contents["uno"]["tags"] == ["new", "old", "mine"]
    assert contents["dos"]["tags"] == ["new"]  # on an untouched card the package's replace
    (deck_report,) = report.decks
    assert (deck_report.updated, deck_report.unchanged) == (2, 0)


def test_cards_only_moved_in_the_package_count_as_unchanged(
    database: Database, clock: Clock, tmp_path: Path
) -> None:
    package = build_package(tmp_path)
    importing.import_files(database, Schedulers(), [package], clock())
    # Studied in Anki since: a studied card comes before the new ones in Recall's order.
    chien = card_ids(package)[("chien", 1)]
    edit_collection(
        package,
        lambda db: db.execute("UPDATE cards SET type = 2, queue = 2 WHERE id = ?", (chien,)),
    )

    (report,) = importing.import_files(database, Schedulers(), [package], clock.advance(hours=1))

    for deck in report.decks:
        assert (deck.added, deck.updated) == (0, 0), deck.describe()
    assert sum(deck.unchanged for deck in report.decks) > 0
    with database.reading() as transaction:
        french = transaction.decks.by_key("anki-deck-2059400110")
        assert french is not None
        order = [card.key for card in transaction.cards.of_deck(french.id)]
    assert order[0] == f"anki-{chien}"


def test_opening_gives_parents_left_by_an_older_import_a_deck(tmp_path: Path, clock: Clock) -> None:
    from recall.collection import opening

    database = opening.open_library(tmp_path, clock())
    try:
        with database.transaction() as transaction:
            transaction.decks.add("anki-deck-1", "Español::Verbos", "", clock())
    finally:
        database.close()
    database = opening.open_library(tmp_path, clock())
    try:
        assert _decks(database)["Español"] == 0
        views = deck_list.deck_overviews(database, clock())
        assert "" not in {row.key for row in deck_list.deck_tree_rows(views)}
    finally:
        database.close()
