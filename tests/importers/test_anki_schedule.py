"""Cards keep where Anki's own scheduler left them: due day, state, suspension, burying, flags."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from recall.collection import importing
from recall.core import days
from recall.core.memory import CardState
from recall.safekeeping import integrity
from recall.scheduling import Schedulers
from recall.storage import Database
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
    before = _cards(database)
    reports = importing.import_files(database, Schedulers(), [studied.package], now)
    assert all(deck.reviews == 0 for report in reports for deck in report.decks)
    assert _cards(database) == before
    database.close()


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
