"""Cards keep where Anki's own scheduler left them: due day, state, suspension, burying, flags."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import fsrs
import pytest

from recall.collection import importing
from recall.core import days
from recall.core.memory import CardState, Rating, ReviewKind
from recall.importers._anki_schedule import memory_state
from recall.safekeeping import integrity
from recall.scheduling import PastReview, Schedulers
from recall.storage import Database
from recall.storage.records import CardRow
from recall.storage.times import to_micros
from tests.helpers.anki_studied import Studied, study

ROLLOVER = 4  # Anki's default, and the collections' time zone is UTC


@pytest.fixture(scope="module", params=[(True, False), (False, True)], ids=["fsrs", "sm2-legacy"])
def studied(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Studied:
    fsrs, legacy = request.param
    return study(tmp_path_factory.mktemp("anki"), 240, 45, fsrs, 7, legacy=legacy)


def _import(studied: Studied, folder: Path) -> tuple[Database, datetime]:
    database = Database(folder / "data" / "recall.sqlite3")
    now = datetime.fromtimestamp(studied.export_time + 60, UTC)
    importing.import_files(database, Schedulers(), [studied.package], now)
    return database, now


def _cards(database: Database) -> dict[str, tuple[Any, ...]]:
    with database.reading() as reading:
        rows = reading.sql.rows(
            "SELECT card.key, card_memory.state, card_memory.due, card_memory.suspended, "
            "card_memory.buried_until, card.flag FROM card "
            "JOIN card_memory ON card_memory.card_id = card.id"
        )
    return {row[0]: tuple(row[1:]) for row in rows}


def _anki_day(studied: Studied, micros: int) -> int:
    created = datetime.fromtimestamp(studied.anki["crt"], UTC) - timedelta(hours=ROLLOVER)
    moment = datetime.fromtimestamp(micros / 10**6, UTC) - timedelta(hours=ROLLOVER)
    return (moment.date() - created.date()).days


def test_every_review_card_is_due_on_anki_s_day(studied: Studied, tmp_path: Path) -> None:
    database, _ = _import(studied, tmp_path)
    cards = _cards(database)
    reviews = {cid: card for cid, card in studied.anki["cards"].items() if card["type"] == 2}
    assert len(reviews) > 100
    for card_id, card in reviews.items():
        state, due, *_ = cards[f"anki-{card_id}"]
        assert (state, _anki_day(studied, due)) == (int(CardState.REVIEW), card["due"]), card_id
    for card_id, card in studied.anki["cards"].items():
        if card["type"] == 0:  # new, forgotten ones too
            assert cards[f"anki-{card_id}"][0] == int(CardState.NEW), card_id
    database.close()


def test_the_day_after_import_recall_and_anki_count_the_same_reviews_due(
    studied: Studied, tmp_path: Path
) -> None:
    database, now = _import(studied, tmp_path)
    tomorrow_ends = days.study_day(now + timedelta(days=1), ROLLOVER, UTC)[1]
    due = sum(
        1
        for state, when, suspended, *_ in _cards(database).values()
        if state == int(CardState.REVIEW)
        and not suspended
        and when < tomorrow_ends.timestamp() * 1e6
    )
    assert studied.anki["due_tomorrow"] > 10
    assert due == studied.anki["due_tomorrow"]
    database.close()


def test_suspended_buried_and_flagged_cards_stay_so(studied: Studied, tmp_path: Path) -> None:
    database, now = _import(studied, tmp_path)
    cards = _cards(database)
    end_of_day = days.study_day(now, ROLLOVER, UTC)[1]
    seen = {"suspended": 0, "buried": 0, "flagged": 0}
    for card_id, card in studied.anki["cards"].items():
        _, _, suspended, buried_until, flag = cards[f"anki-{card_id}"]
        assert bool(suspended) == (card["queue"] == -1), card_id
        buried = card["queue"] in (-2, -3)
        expected = end_of_day.timestamp() * 10**6 if buried else None
        assert buried_until == expected, card_id
        assert flag == card["flag"], card_id
        seen["suspended"] += bool(suspended)
        seen["buried"] += buried
        seen["flagged"] += flag != 0
    assert all(count >= 3 for count in seen.values()), seen
    database.close()


def test_imported_schedules_are_the_replay_of_their_history(
    studied: Studied, tmp_path: Path
) -> None:
    database, now = _import(studied, tmp_path)
    report = integrity.check(database, Schedulers(), now)
    assert report.healthy, report.problems
    assert report.stale == {}
    database.close()


def test_importing_the_same_file_again_changes_nothing(studied: Studied, tmp_path: Path) -> None:
    database, now = _import(studied, tmp_path)
    before, memories = _cards(database), _memories(database)
    entries = _entries(database)
    reports = importing.import_files(database, Schedulers(), [studied.package], now)
    assert all(deck.reviews == 0 for report in reports for deck in report.decks)
    assert _cards(database) == before
    assert _memories(database) == memories  # stability and difficulty too
    assert _entries(database) == entries  # no forget, due date or memory entry twice
    database.close()


def _entries(database: Database) -> int:
    with database.reading() as reading:
        ((count,),) = reading.sql.rows("SELECT count(*) FROM review")
    return int(count)


def test_each_anki_preset_comes_along_shared_by_its_decks(studied: Studied, tmp_path: Path) -> None:
    database, _ = _import(studied, tmp_path)
    with database.reading() as reading:
        presets = reading.options.deck_presets()
        decks = {deck.name: deck.id for deck in reading.options.decks()}
    for deck_name, preset_name in studied.anki["deck_presets"].items():
        if deck_name not in decks:
            continue  # a deck without cards is not imported
        preset = presets.of_deck(decks[deck_name])
        config = studied.anki["configs"][preset_name]
        assert preset.name.startswith(preset_name)
        assert preset.desired_retention == pytest.approx(config["desiredRetention"])
        assert [step.total_seconds() / 60 for step in preset.learning_steps] == pytest.approx(
            config["new"]["delays"]
        )
        assert [step.total_seconds() / 60 for step in preset.relearning_steps] == pytest.approx(
            config["lapse"]["delays"]
        )
        assert (preset.maximum_interval, preset.new_per_day, preset.reviews_per_day) == (
            config["rev"]["maxIvl"],
            config["new"]["perDay"],
            config["rev"]["perDay"],
        )
        assert preset.leech_threshold == config["lapse"]["leechFails"]
        assert preset.leech_action == ("tag" if config["lapse"]["leechAction"] else "suspend")
        assert (preset.bury_new_siblings, preset.bury_review_siblings) == (
            config["new"]["bury"],
            config["rev"]["bury"],
        )
        assert list(preset.parameters) == pytest.approx(config.get("fsrsParams6") or [])
    custom = presets.of_deck(decks["Custom studies"])
    assert custom.desired_retention == 0.85
    assert custom.maximum_interval == 180
    database.close()


def test_decks_of_one_anki_preset_share_one_recall_preset(studied: Studied, tmp_path: Path) -> None:
    database, now = _import(studied, tmp_path)
    with database.reading() as reading:
        before = reading.options.deck_presets()
    importing.import_files(database, Schedulers(), [studied.package], now)
    with database.reading() as reading:
        after = reading.options.deck_presets()
    # A re-import makes no second copy of a preset.
    assert after.presets.keys() == before.presets.keys()
    assert len(set(after.decks.values())) == len(set(studied.anki["deck_presets"].values()))
    database.close()


def _memories(database: Database) -> dict[str, CardRow]:
    with database.reading() as reading:
        decks = [deck.id for deck in reading.browsing.decks()]
        return {card.key: card for deck in decks for card in reading.cards.of_deck(deck)}


def test_every_fsrs_review_card_keeps_anki_s_memory_state(studied: Studied, tmp_path: Path) -> None:
    database, _ = _import(studied, tmp_path)
    cards = _memories(database)
    kept = {
        card_id: card
        for card_id, card in studied.anki["cards"].items()
        if card["type"] == 2 and card["stability"] is not None
    }
    if any(card["stability"] is not None for card in studied.anki["cards"].values()):
        assert len(kept) > 100
    for card_id, card in kept.items():
        memory = cards[f"anki-{card_id}"].memory
        # Anki keeps stability to 4 decimal places and difficulty to 3, and hands them over
        # as 32-bit floats; where Recall's own replay rounds to them it is kept instead.
        assert memory.stability == pytest.approx(card["stability"], rel=1e-6, abs=5e-5), card_id
        assert memory.difficulty == pytest.approx(card["difficulty"], rel=1e-6, abs=5e-4), card_id
        assert memory.due is not None
        assert _anki_day(studied, to_micros(memory.due) or 0) == card["due"], card_id
    with database.reading() as reading:
        (entries,) = reading.sql.rows(
            f"SELECT count(*) FROM review WHERE kind = {int(ReviewKind.MEMORY)}"
        )[0]
    # One memory entry per such card, unless its history already gives Anki's memory state
    # (the entry is then left out as only restating it); none for any other card.
    assert entries <= len(kept)
    assert entries > 100 or not kept
    database.close()


def test_an_answer_after_import_is_scheduled_from_anki_s_memory_state(
    studied: Studied, tmp_path: Path
) -> None:
    database = Database(tmp_path / "data" / "recall.sqlite3")
    schedulers = Schedulers(fuzz=False)
    now = datetime.fromtimestamp(studied.export_time + 60, UTC)
    importing.import_files(database, schedulers, [studied.package], now)
    cards = _memories(database)
    kept = [
        (card_id, card)
        for card_id, card in studied.anki["cards"].items()
        if card["type"] == 2 and card["stability"] is not None
    ]
    if not kept:
        assert all(card["stability"] is None for card in studied.anki["cards"].values())
        database.close()
        return
    with database.reading() as reading:
        presets = reading.options.deck_presets()
        with_entries = {
            row[0]
            for row in reading.sql.rows(
                f"SELECT card_id FROM review WHERE kind = {int(ReviewKind.MEMORY)}"
            )
        }
        kept = [
            (card_id, anki) for card_id, anki in kept if cards[f"anki-{card_id}"].id in with_entries
        ]
        assert len(kept) > 100
        for card_id, anki in kept[:20]:
            card = cards[f"anki-{card_id}"]
            scheduler = schedulers.for_deck(
                presets, reading.sql.rows("SELECT deck_id FROM card WHERE id = ?", (card.id,))[0][0]
            )
            last, due = card.memory.last_review, card.memory.due
            assert last is not None
            assert due is not None
            # Answered Good on its due day, at the hour of its last answer.
            at = last + timedelta(days=max(1, round((due - last) / timedelta(days=1))))
            history = [integrity.past(review) for review in reading.history.of_card(card.id)]
            replayed = scheduler.replay(card.seed, [*history, PastReview(at, Rating.GOOD)])
            preset = scheduler.preset
            expected, _ = fsrs.Scheduler(
                parameters=preset.parameters or fsrs.scheduler.DEFAULT_PARAMETERS,
                desired_retention=preset.desired_retention,
                maximum_interval=preset.maximum_interval,
                enable_fuzzing=False,
            ).review_card(
                fsrs.Card(
                    card_id=1,
                    state=fsrs.State.Review,
                    step=None,
                    stability=anki["stability"],
                    difficulty=anki["difficulty"],
                    due=due,
                    last_review=last,
                ),
                fsrs.Rating.Good,
                at,
            )
            assert replayed.due is not None
            assert replayed.due - at == expected.due - at, card_id
            assert replayed.stability == pytest.approx(expected.stability, rel=1e-6), card_id
    database.close()


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        ('{"s": 48.5614, "d": 5.1234, "dr": 0.9}', (48.5614, 5.1234)),
        ('{"s": 3, "d": 10}', (3.0, 10.0)),
        ("", None),  # never studied with FSRS, or Anki before 23.10
        ("{}", None),
        ('{"s": 0.0, "d": 5.0}', None),  # below FSRS's least stability
        ('{"s": 40000.0, "d": 5.0}', None),
        ('{"s": 4.0, "d": 0.5}', None),
        ('{"s": 4.0, "d": true}', None),
        ('{"s": NaN, "d": 5.0}', None),
        ('{"s": "4", "d": 5.0}', None),
        ("[1, 2]", None),
        ("not json", None),
    ],
)
def test_anki_s_memory_state_is_read_only_within_fsrs_s_bounds(
    data: str, expected: tuple[float, float] | None
) -> None:
    assert memory_state(data) == expected
