"""A card the learner moved to another deck is found there when its deck file comes again:
updated where it is, its history kept and extended, never added a second time."""

from __future__ import annotations

import json
import random
import shutil
import sqlite3
from datetime import UTC, datetime, timedelta
from pathlib import Path

from recall.changes import decks as deck_changes
from recall.changes.cards import Changes
from recall.collection import importing, opening
from recall.collection.import_report import DeckReport, ImportReport
from recall.content.deck_format import load_deck
from recall.core.preferences import Preferences
from recall.safekeeping import integrity
from recall.scheduling import Schedulers
from recall.storage import Database, DeckRow
from tests.collection.test_import_end_to_end import DAY_MS, package_with_history
from tests.conftest import DATA, ZONE, Clock, answer_cards
from tests.helpers.anki_packages import add_reviews

BUNDLED = DATA.parent.parent / "decks" / "activation_recompute.json"
TINY = DATA / "decks" / "tiny.json"


def move(database: Database, card_id: int, deck_key: str) -> None:
    Changes(database, Schedulers(), Preferences(), ZONE, random.Random(1)).move(
        [card_id], deck(database, deck_key)
    )


def deck(database: Database, key: str) -> DeckRow:
    with database.reading() as transaction:
        found = transaction.decks.by_key(key)
    assert found is not None
    return found


def cards(database: Database, deck_key: str) -> dict[str, tuple[int, str]]:
    """The deck's cards: key -> (id, content)."""
    with database.reading() as transaction:
        keys = transaction.cards.keys(deck(database, deck_key).id)
    return {key: (card.id, card.content) for key, card in keys.items()}


def reviews_of(database: Database, card_id: int) -> int:
    with database.reading() as transaction:
        return len(transaction.history.of_card(card_id))


def healthy(database: Database, now: datetime) -> None:
    report = integrity.check(database, Schedulers(fuzz=True), now)
    assert report.healthy, report.problems


def only_deck(reports: list[ImportReport], key: str) -> DeckReport:
    (report,) = [deck for file in reports for deck in file.decks if deck.deck_key == key]
    return report


def test_a_moved_card_is_updated_where_it_is_and_not_added_again(
    bundled: Database, clock: Clock, tmp_path: Path
) -> None:
    answer_cards(bundled, clock, 2)
    importing.import_deck(bundled, load_deck(TINY), clock())
    studied = [
        (key, card_id)
        for key, (card_id, _) in cards(bundled, "activation-recompute").items()
        if reviews_of(bundled, card_id)
    ]
    key, card_id = studied[0]
    history = reviews_of(bundled, card_id)
    move(bundled, card_id, "tiny")
    assert key not in cards(bundled, "activation-recompute")

    raw = json.loads(BUNDLED.read_text(encoding="utf-8"))
    (changed,) = [card for card in raw["cards"] if card["id"] == key]
    changed["question"] = "Asked anew: " + changed["question"]
    newer = tmp_path / "activation.json"
    newer.write_text(json.dumps(raw), encoding="utf-8")
    clock.advance(minutes=5)
    reports = importing.import_files(bundled, Schedulers(), [newer], clock())

    report = only_deck(reports, "activation-recompute")
    assert (report.added, report.updated, report.elsewhere) == (0, 1, 1)
    assert "1 found in the deck it was moved to" in report.describe()
    assert key not in cards(bundled, "activation-recompute")  # not added a second time
    tiny = cards(bundled, "tiny")
    assert set(tiny) == {"q1", "b1", key}
    moved_id, content = tiny[key]
    assert moved_id == card_id
    stored = json.loads(content)
    assert stored["question"] == changed["question"]
    assert stored["id"] == key  # its key in the deck it is in
    assert reviews_of(bundled, card_id) == history
    healthy(bundled, clock())

    reports = importing.import_files(bundled, Schedulers(), [newer], clock.advance(minutes=5))
    again = only_deck(reports, "activation-recompute")
    assert (again.added, again.updated, again.elsewhere) == (0, 0, 1)  # as it left it
    assert cards(bundled, "tiny") == tiny


def test_a_card_moved_twice_is_found_from_its_first_deck(
    bundled: Database, clock: Clock, tmp_path: Path
) -> None:
    importing.import_deck(bundled, load_deck(TINY), clock())
    importing.import_deck(bundled, load_deck(DATA / "decks" / "sharp.json"), clock())
    key, (card_id, _) = next(iter(cards(bundled, "activation-recompute").items()))
    move(bundled, card_id, "tiny")
    move(bundled, card_id, "sharp")
    reports = importing.import_files(bundled, Schedulers(), [BUNDLED], clock())
    report = only_deck(reports, "activation-recompute")
    assert (report.added, report.elsewhere) == (0, 1)
    assert cards(bundled, "sharp")[key][0] == card_id
    assert key not in cards(bundled, "activation-recompute")


def test_a_moved_card_is_found_when_its_deck_was_deleted_and_comes_again(
    bundled: Database, clock: Clock
) -> None:
    importing.import_deck(bundled, load_deck(TINY), clock())
    key, (card_id, _) = next(iter(cards(bundled, "activation-recompute").items()))
    move(bundled, card_id, "tiny")
    deck_changes.delete_deck(bundled, deck(bundled, "activation-recompute").id, clock())
    reports = importing.import_files(bundled, Schedulers(), [BUNDLED], clock())
    report = only_deck(reports, "activation-recompute")
    assert (report.new_deck, report.elsewhere) == (True, 1)
    assert key not in cards(bundled, "activation-recompute")
    assert cards(bundled, "tiny")[key][0] == card_id


def test_a_moved_card_gains_the_reviews_its_package_brings_later(
    database: Database, tmp_path: Path
) -> None:
    start = datetime.now(UTC).replace(microsecond=0) - timedelta(days=5)
    package, chat = package_with_history(tmp_path, start)
    french = "anki-deck-2059400110"
    importing.import_files(database, Schedulers(), [package], datetime.now(UTC))
    key = f"anki-{chat}"
    card_id = cards(database, french)[key][0]
    before = reviews_of(database, card_id)
    assert before > 0
    move(database, card_id, "anki-deck-2059400111")

    first = int(start.timestamp() * 1000)
    add_reviews(package, [(first + 4 * DAY_MS + 60_000, chat, 3, 7_000, 1)])  # Good, later
    again = importing.import_files(database, Schedulers(), [package], datetime.now(UTC))

    assert key not in cards(database, french)
    assert cards(database, "anki-deck-2059400111")[key][0] == card_id
    with database.reading() as transaction:
        history = transaction.history.of_card(card_id)
    answered = [entry.reviewed_at for entry in history if entry.rating is not None]
    later = datetime.fromtimestamp((first + 4 * DAY_MS + 60_000) / 1000, UTC)
    assert answered[-1] == later  # the review made in Anki after the move, on the card
    assert len(history) > before
    assert only_deck(again, french).elsewhere == 1
    healthy(database, datetime.now(UTC))


def bundled_tiny(database: Database, clock: Clock, tmp_path: Path) -> Path:
    """The tiny deck installed as a bundled deck; its file, which a test may change."""
    folder = tmp_path / "decks"
    folder.mkdir()
    deck_file = folder / "tiny.json"
    shutil.copyfile(TINY, deck_file)
    opening.install_bundled_decks(database, clock(), [deck_file])
    return deck_file


def bundled_q1_moved(database: Database, clock: Clock, tmp_path: Path) -> tuple[Path, int]:
    """The tiny deck installed as a bundled deck, its q1 moved by the learner to the sharp
    deck: the bundled file, and q1's id."""
    deck_file = bundled_tiny(database, clock, tmp_path)
    importing.import_deck(database, load_deck(DATA / "decks" / "sharp.json"), clock())
    q1 = cards(database, "tiny")["q1"][0]
    move(database, q1, "sharp")
    return deck_file, q1


def shipped_again(database: Database, clock: Clock, deck_file: Path, **changes: str) -> DeckReport:
    """The bundled tiny deck shipped a month later with its first card's question (and
    ``changes`` to its second card) changed: the report of the start that installs it."""
    raw = json.loads(TINY.read_text(encoding="utf-8"))
    raw["cards"][0]["question"] = "What is two plus two?"
    raw["cards"][1].update(changes)
    deck_file.write_text(json.dumps(raw), encoding="utf-8")
    (report,) = opening.install_bundled_decks(database, clock.advance(days=30), [deck_file])
    return report


def test_a_bundled_card_the_learner_moved_stays_where_they_put_it(
    database: Database, clock: Clock, tmp_path: Path
) -> None:
    deck_file, q1 = bundled_q1_moved(database, clock, tmp_path)
    moved_content = cards(database, "sharp")["q1"][1]

    report = shipped_again(database, clock, deck_file, front="Capital of France, the city?")

    assert set(cards(database, "tiny")) == {"b1"}  # q1 is not added back
    assert (report.added, report.updated) == (0, 1)
    assert cards(database, "sharp")["q1"] == (q1, moved_content)  # the learner's, untouched
    assert json.loads(cards(database, "tiny")["b1"][1])["front"] == "Capital of France, the city?"


def test_a_bundled_card_is_updated_though_another_deck_has_an_edited_card_of_its_key(
    database: Database, clock: Clock, tmp_path: Path
) -> None:
    deck_file = bundled_tiny(database, clock, tmp_path)
    mine = load_deck(TINY).model_copy(update={"id": "mine", "name": "Mine"})
    importing.import_deck(database, mine, clock())
    their_q1, content = cards(database, "mine")["q1"]
    edited = json.loads(content) | {"question": "Two plus two, in my words?"}
    with database.transaction() as transaction:
        transaction.browsing.set_content([(their_q1, json.dumps(edited))], clock())

    report = shipped_again(database, clock, deck_file)

    assert report.updated == 1
    assert json.loads(cards(database, "tiny")["q1"][1])["question"] == "What is two plus two?"
    assert json.loads(cards(database, "mine")["q1"][1])["question"] == edited["question"]


def test_a_card_changed_before_origins_were_kept_still_holds_its_key_in_a_bundled_deck(
    database: Database, clock: Clock, tmp_path: Path
) -> None:
    deck_file, q1 = bundled_q1_moved(database, clock, tmp_path)
    with database.transaction() as transaction:  # as the upgrade leaves an older move
        transaction.sql.run("UPDATE card_origin SET deck_key = NULL WHERE card_id = ?", (q1,))
    report = shipped_again(database, clock, deck_file)
    assert (report.added, report.unchanged) == (0, 2)
    assert set(cards(database, "tiny")) == {"b1"}


def test_the_upgrade_takes_the_origins_sync_noted(tmp_path: Path) -> None:
    path = tmp_path / "data" / "recall.sqlite3"
    path.parent.mkdir()
    shutil.copyfile(DATA / "schema-22.sqlite3", path)
    connection = sqlite3.connect(path)
    try:
        (deck_key, card_key), (other_deck, other_key) = connection.execute(
            "SELECT deck.key, card.key FROM card JOIN deck ON deck.id = card.deck_id "
            "ORDER BY card.id LIMIT 2"
        ).fetchall()
        stamp = [1, "device"]
        connection.executemany(
            "INSERT INTO sync_entity (kind, deck_key, card_key, fields) VALUES ('card', ?, ?, ?)",
            [
                # moved twice: from "first" to "between", then to where it is
                (deck_key, card_key, json.dumps({"from": [*stamp, ["between", "k2"]]})),
                ("between", "k2", json.dumps({"from": [*stamp, ["first", "k1"]]})),
                # moved once
                (other_deck, other_key, json.dumps({"from": [*stamp, ["old", "q9"]]})),
            ],
        )
        connection.commit()
    finally:
        connection.close()
    database = Database(path)
    database.close()
    connection = sqlite3.connect(path)
    try:
        origins = connection.execute(
            "SELECT deck.key, card.key, card_origin.deck_key, card_origin.card_key "
            "FROM card_origin JOIN card ON card.id = card_origin.card_id "
            "JOIN deck ON deck.id = card.deck_id ORDER BY card.id"
        ).fetchall()
        edited = connection.execute(
            "SELECT deck.key, card.key, NULL, card.key FROM card "
            "JOIN deck ON deck.id = card.deck_id WHERE edited ORDER BY card.id"
        ).fetchall()
    finally:
        connection.close()
    noted = [(deck_key, card_key, "first", "k1"), (other_deck, other_key, "old", "q9")]
    assert edited  # the fixture has cards tagged in Recall
    # What sync noted, and every other card changed in Recall with its origin unknown.
    noted_cards = {row[:2] for row in noted}
    assert set(origins) == set(noted) | {row for row in edited if row[:2] not in noted_cards}
    assert len(origins) == len(set(origins))
