"""`recall import` and `recall decks` with decks of one name: none is out of sight."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from recall.storage import Database
from tests.cli.test_cli import run
from tests.collection.test_deck_merging import SPANISH_A, SPANISH_B, _package


def test_two_shared_spanish_decks_become_one_deck_of_six_cards(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    first = _package(
        tmp_path / "a", [(SPANISH_A, "Spanish", [("uno", "1"), ("dos", "2"), ("tres", "3")])]
    )
    second = _package(
        tmp_path / "b", [(SPANISH_B, "Spanish", [("cuatro", "4"), ("cinco", "5"), ("seis", "6")])]
    )
    data = str(tmp_path / "data")
    status, out, err = run(capsys, "--data-dir", data, "import", str(first), str(second))
    assert (status, err) == (0, "")
    assert (
        f"{second}: merged deck 'Spanish' (anki-deck-{SPANISH_B}) into the existing deck "
        f"'Spanish' (anki-deck-{SPANISH_A}): 3 added, 0 updated, 0 unchanged cards"
    ) in out

    status, out, _ = run(capsys, "--data-dir", data, "decks", "--json")
    spanish = [deck for deck in json.loads(out) if deck["name"] == "Spanish"]
    assert [(deck["id"], deck["total"]) for deck in spanish] == [(f"anki-deck-{SPANISH_A}", 6)]


def test_decks_of_one_name_from_before_both_show_with_their_ids(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run(capsys, "--data-dir", str(tmp_path), "decks")
    database = Database(tmp_path / "recall.sqlite3")
    try:
        with database.transaction() as transaction:
            now = datetime(2026, 1, 15, tzinfo=UTC)
            for key in ("spanish-a", "spanish-b"):
                transaction.decks.add(key, "Spanish", "", now)
    finally:
        database.close()

    status, out, _ = run(capsys, "--data-dir", str(tmp_path), "decks")
    assert status == 0
    rows = [line.split() for line in out.splitlines()[1:]]
    assert ["spanish-a", "Spanish", "(spanish-a)", "0", "0", "0"] in rows
    assert ["spanish-b", "Spanish", "(spanish-b)", "0", "0", "0"] in rows

    status, out, _ = run(capsys, "--data-dir", str(tmp_path), "decks", "--json")
    keys = [deck["id"] for deck in json.loads(out) if deck["name"] == "Spanish"]
    assert keys == ["spanish-a", "spanish-b"]
