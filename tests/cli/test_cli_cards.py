"""The card commands as a script uses them: search, suspend, unsuspend, tag, and decks' tree."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from recall.changes import decks as deck_changes
from recall.storage import Database
from tests.cli.test_cli import run
from tests.conftest import DATA, Clock

TINY = DATA / "decks" / "tiny.json"


@pytest.fixture
def data_dir(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    folder = tmp_path / "data"
    assert run(capsys, "--data-dir", str(folder), "import", str(TINY))[0] == 0
    return folder


def test_search_prints_a_table_and_json(data_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "--data-dir", str(data_dir), "search", "deck:tiny")
    assert status == 0
    lines = out.splitlines()
    assert lines[0].split() == ["ID", "DECK", "STATE", "DUE", "QUESTION"]
    assert "Two plus two?" in out
    assert lines[-1] == "2 cards"
    status, out, _ = run(capsys, "--data-dir", str(data_dir), "search", '"two plus"', "--json")
    cards = json.loads(out)
    assert [card["question"] for card in cards] == ["Two plus two?"]
    assert set(cards[0]) >= {"deck", "id", "question", "state", "due", "tags", "suspended", "flag"}
    assert cards[0]["deck"] == "Tiny deck"
    assert cards[0]["tags"] == ["math"]
    assert cards[0]["state"] == "new"
    assert cards[0]["suspended"] is False


def test_search_keeps_a_hash_inside_a_word(
    data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = str(data_dir)
    assert run(capsys, "--data-dir", folder, "import", str(DATA / "decks" / "sharp.json"))[0] == 0
    status, out, _ = run(capsys, "--data-dir", folder, "search", "deck:sharp")
    assert status == 0
    assert "What does C# compile to?" in out
    cards = json.loads(run(capsys, "--data-dir", folder, "search", "deck:sharp", "--json")[1])
    assert [card["question"] for card in cards] == ["What does C# compile to?"]


def test_suspend_unsuspend_and_tag_say_how_many_changed(
    data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = str(data_dir)
    assert run(capsys, "--data-dir", folder, "suspend", "deck:tiny")[1] == (
        "suspended 2 of 2 matching cards\n"
    )
    assert run(capsys, "--data-dir", folder, "suspend", "deck:tiny")[1] == (
        "suspended 0 of 2 matching cards\n"
    )
    assert run(capsys, "--data-dir", folder, "unsuspend", "capital")[1] == (
        "unsuspended 1 of 1 matching cards\n"
    )
    out = run(capsys, "--data-dir", folder, "tag", "deck:tiny", "--add", "quiz", "--remove", "math")
    assert out[1] == "changed the tags of 2 of 2 matching cards\n"
    cards = json.loads(run(capsys, "--data-dir", folder, "search", "tag:quiz", "--json")[1])
    assert sorted((card["question"], card["tags"], card["suspended"]) for card in cards) == [
        ("Capital of France?", ["quiz"], False),
        ("Two plus two?", ["quiz"], True),
    ]


def test_a_bad_query_says_where_and_changes_nothing(
    data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, err = run(capsys, "--data-dir", str(data_dir), "suspend", "is:dew")
    assert status == 1
    assert out == ""
    assert err.startswith("recall: unknown `is:` value 'dew' at column 4; expected one of new")
    status, _, err = run(capsys, "--data-dir", str(data_dir), "tag", "deck:tiny")
    assert status == 1
    assert "--add TAG" in err


def test_decks_json_stays_flat_with_parents_and_the_table_shows_the_tree(
    data_dir: Path, capsys: pytest.CaptureFixture[str], clock: Clock
) -> None:
    database = Database(data_dir / "recall.sqlite3")
    deck_changes.new_deck(database, "Courses::Maths", clock())
    with database.reading() as transaction:
        tiny = transaction.decks.by_key("tiny")
    assert tiny is not None
    deck_changes.rename_deck(database, tiny.id, "Courses::Maths::Tiny", clock())
    database.close()
    decks = json.loads(run(capsys, "--data-dir", str(data_dir), "decks", "--json")[1])
    by_id = {deck["id"]: deck for deck in decks}
    assert by_id["tiny"]["parent"] == "courses-maths"
    assert by_id["courses-maths"]["parent"] == "courses"
    assert by_id["courses"]["parent"] is None
    assert by_id["courses"]["total"] == 0  # its own cards, not summed
    assert by_id["tiny"]["total"] == 2
    table = run(capsys, "--data-dir", str(data_dir), "decks")[1].splitlines()
    rows = {line.split()[1]: line.split()[2:] for line in table[1:]}
    assert rows["Courses"] == ["2", "0", "2"]  # summed up the tree
    assert rows["Maths"] == ["2", "0", "2"]
    assert rows["Tiny"] == ["2", "0", "2"]
    assert "    Tiny" in table[[row.split()[1] for row in table].index("Tiny")]
