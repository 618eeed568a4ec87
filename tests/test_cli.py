"""The command line, run as a user would: exit codes, output, and the database afterwards."""

from __future__ import annotations

import csv
import io
import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from recall import __version__
from recall.cli import main
from tests.conftest import DATA

TINY = DATA / "decks" / "tiny.json"


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    status = main(list(args))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_decks_on_a_fresh_data_dir_shows_the_bundled_deck(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, _ = run(capsys, "--data-dir", str(tmp_path), "decks", "--json")
    assert status == 0
    assert json.loads(out) == [
        {
            "id": "activation-recompute",
            "name": "Activation Recomputation Tradeoffs",
            "total": 8,
            "new": 8,
            "due": 0,
            "unseen": 8,
        }
    ]
    assert (tmp_path / "recall.sqlite3").exists()


def test_decks_table(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "--data-dir", str(tmp_path), "decks")
    assert status == 0
    header, row = out.splitlines()
    assert header.split() == ["ID", "NAME", "NEW", "DUE", "TOTAL"]
    assert row.split()[0] == "activation-recompute"
    assert row.split()[-3:] == ["8", "0", "8"]


def test_data_dir_from_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("RECALL_DATA_DIR", str(tmp_path / "from-env"))
    assert run(capsys, "decks")[0] == 0
    assert (tmp_path / "from-env" / "recall.sqlite3").exists()


def test_import_reports_what_changed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run(capsys, "--data-dir", str(tmp_path), "import", str(TINY))
    assert (status, err) == (0, "")
    assert out == f"{TINY}: added deck 'Tiny deck' (tiny): 2 new, 0 updated, 0 unchanged cards\n"
    status, out, _ = run(capsys, "--data-dir", str(tmp_path), "import", str(TINY))
    assert "updated deck 'Tiny deck' (tiny): 0 new, 0 updated, 2 unchanged cards" in out


def test_invalid_import_exits_1_and_changes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run(capsys, "--data-dir", str(tmp_path), "decks")
    database = tmp_path / "recall.sqlite3"
    before = _dump(database)
    bad = DATA / "decks" / "bad" / "missing-question.json"
    status, out, err = run(capsys, "--data-dir", str(tmp_path), "import", str(TINY), str(bad))
    assert status == 1
    assert out == ""
    assert err == f"{bad}: cards[0] (id 'q1'): question: missing (this field is required)\n"
    assert _dump(database) == before


def test_export_reviews_of_an_empty_history(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "reviews.csv"
    status, _, err = run(capsys, "--data-dir", str(tmp_path), "export-reviews", str(target))
    assert status == 0
    assert "wrote 0 reviews" in err
    rows = list(csv.reader(io.StringIO(target.read_text())))
    assert rows == [["card_id", "review_time", "review_rating", "review_state", "review_duration"]]


def test_export_to_a_missing_folder_is_a_clear_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "no-such-folder" / "reviews.csv"
    status, _, err = run(capsys, "--data-dir", str(tmp_path), "export-reviews", str(target))
    assert status == 1
    assert err.startswith(f"recall: cannot write {target}")
    assert not target.exists()


def test_schema_is_json_schema(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "schema")
    assert status == 0
    assert json.loads(out)["title"] == "Recall deck"


def test_refuses_a_database_from_a_newer_recall(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run(capsys, "--data-dir", str(tmp_path), "decks")
    connection = sqlite3.connect(tmp_path / "recall.sqlite3")
    connection.execute("PRAGMA user_version = 99")
    connection.close()
    status, _, err = run(capsys, "--data-dir", str(tmp_path), "decks")
    assert status == 1
    assert "was made by a newer Recall" in err


def test_python_dash_m_and_version(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "recall", "--version"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert result.stdout.strip() == f"Recall {__version__}"


def _dump(path: Path) -> list[str]:
    connection = sqlite3.connect(path)
    try:
        return list(connection.iterdump())
    finally:
        connection.close()


def test_self_test_takes_no_command(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["--self-test", "decks"])
    assert exit_.value.code == 2
    assert "--self-test takes no command" in capsys.readouterr().err
