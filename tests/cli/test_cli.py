"""The command line, run as a user would: exit codes, output, and the database afterwards."""

from __future__ import annotations

import csv
import io
import json
import os
import sqlite3
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest

from recall import __version__
from recall.cli.main import main
from recall.collection import opening
from recall.host import paths
from recall.storage import BUSY_TIMEOUT_MS, Database
from tests.conftest import DATA, Clock, answer_cards

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
            "parent": None,
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
    assert out == f"{TINY}: added deck 'Tiny deck' (tiny): 2 added, 0 updated, 0 unchanged cards\n"
    status, out, _ = run(capsys, "--data-dir", str(tmp_path), "import", str(TINY))
    assert "updated deck 'Tiny deck' (tiny): 0 added, 0 updated, 2 unchanged cards" in out


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


def test_export_reviews_without_a_file_name_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, _, err = run(capsys, "--data-dir", str(tmp_path), "export-reviews", "")
    assert status == 1
    assert "no file name given" in err
    assert sorted(path.name for path in tmp_path.iterdir() if path.suffix == ".tmp") == []


def test_export_reviews_into_a_folder_says_it_is_a_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, _, err = run(capsys, "--data-dir", str(tmp_path), "export-reviews", str(tmp_path))
    assert status == 1
    assert "it is a folder" in err


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


def test_backup_list_restore_and_check(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = ["--data-dir", str(tmp_path)]
    run(capsys, *data, "decks")
    status, out, _ = run(capsys, *data, "backup")
    assert status == 0
    backup = Path(out.strip())
    assert backup.parent == tmp_path / "backups"
    status, out, _ = run(capsys, *data, "backups")
    header, row = out.splitlines()
    assert header.split()[:5] == ["DATE", "SIZE", "DECKS", "CARDS", "REVIEWS"]
    assert row.endswith(str(backup))
    status, out, _ = run(capsys, *data, "restore", str(backup))
    assert status == 0
    assert "saved the database as it was to" in out
    assert "healthy: 8 cards and 0 reviews checked" in out
    assert run(capsys, *data, "check")[:2] == (0, "healthy: 8 cards and 0 reviews checked\n")


def test_check_repair_rebuilds_a_tampered_schedule(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = ["--data-dir", str(tmp_path)]
    run(capsys, *data, "decks")
    connection = sqlite3.connect(tmp_path / "recall.sqlite3")
    connection.execute("UPDATE card_memory SET state = 2, due = 0 WHERE card_id = 3")
    connection.commit()
    connection.close()
    status, _, err = run(capsys, *data, "check")
    assert status == 1
    assert "problem: card activation-recompute/measure-overhead: the stored schedule" in err
    status, out, _ = run(capsys, *data, "check", "--repair")
    assert status == 0
    assert "saved the database as it was to" in out
    assert "rebuilt card activation-recompute/measure-overhead" in out
    assert out.rstrip().endswith("healthy: 8 cards and 0 reviews checked")


def test_check_on_a_damaged_file_exits_1_and_points_at_a_backup(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = ["--data-dir", str(tmp_path)]
    run(capsys, *data, "decks")
    run(capsys, *data, "backup")
    database = tmp_path / "recall.sqlite3"
    with database.open("r+b") as handle:
        handle.seek(4096 * 2)
        handle.write(bytes(range(256)) * 24)
    status, _, err = run(capsys, *data, "check")
    assert status == 1
    assert "problem" in err or "damaged" in err
    assert "Traceback" not in err


def test_restore_replaces_a_database_that_cannot_be_opened(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = ["--data-dir", str(tmp_path)]
    run(capsys, *data, "decks")
    _, out, _ = run(capsys, *data, "backup")
    backup = out.strip()
    database = tmp_path / "recall.sqlite3"
    database.write_bytes(b"not a database at all" * 100)
    status, _, err = run(capsys, *data, "decks")
    assert status == 1
    assert f"`recall restore {backup}` brings it back" in err
    status, out, _ = run(capsys, *data, "restore", backup)
    assert status == 0
    (aside,) = tmp_path.glob("recall.sqlite3.damaged-*")
    assert aside.read_bytes().startswith(b"not a database at all")
    assert out.rstrip().endswith("healthy: 8 cards and 0 reviews checked")


def test_export_a_deck_and_import_it_elsewhere(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "deck.json"
    status, _, err = run(
        capsys, "--data-dir", str(tmp_path / "a"), "export", "activation-recompute", str(target)
    )
    assert status == 0
    assert err == f"wrote 8 cards of activation-recompute to {target}\n"
    status, out, _ = run(capsys, "--data-dir", str(tmp_path / "b"), "import", str(target))
    assert status == 0
    assert "updated deck 'Activation Recomputation Tradeoffs'" in out
    assert "0 added, 0 updated, 8 unchanged cards" in out


def test_self_test_takes_no_command(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["--self-test", "decks"])
    assert exit_.value.code == 2
    assert "--self-test takes no command" in capsys.readouterr().err


def test_stats_json_agrees_with_the_exported_review_log(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    database = Database(paths.database_path(tmp_path))
    clock = Clock(datetime.now(UTC))
    opening.install_bundled_decks(database, clock())
    answer_cards(database, clock, 6)
    database.close()

    status, out, _ = run(capsys, "--data-dir", str(tmp_path), "stats", "--json")
    assert status == 0
    figures = json.loads(out)
    for key in ("cards", "reviews", "true_retention", "forecast", "streak", "misconceptions"):
        assert key in figures
    assert len(figures["forecast"]) == 30
    assert figures["streak"]["current"] >= 1
    status, log, _ = run(capsys, "--data-dir", str(tmp_path), "export-reviews", "-")
    assert status == 0
    rows = len(log.splitlines()) - 1
    assert rows == 6
    assert figures["reviews"]["total"] == rows
    _, decks, _ = run(capsys, "--data-dir", str(tmp_path), "decks", "--json")
    assert sum(figures["cards"].values()) == sum(deck["total"] for deck in json.loads(decks))


def test_stats_text_and_bad_arguments(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(
        capsys,
        "--data-dir",
        str(tmp_path),
        "stats",
        "--deck",
        "activation-recompute",
        "--days",
        "7",
    )
    assert status == 0
    assert "True retention" in out
    assert "No reviews yet today" in out
    status, _, err = run(capsys, "--data-dir", str(tmp_path), "stats", "--deck", "nope")
    assert status == 1
    assert "nope" in err
    with pytest.raises(SystemExit):
        main(["--data-dir", str(tmp_path), "stats", "--days", "0"])
    assert "expected a whole number of days" in capsys.readouterr().err


def test_lock_wait_takes_seconds_and_defaults_to_what_the_database_waits(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(capsys, "--lock-wait", "0", "--data-dir", str(tmp_path), "decks")[0] == 0
    for bad in ("soon", "-1", "nan", "3601"):
        with pytest.raises(SystemExit):
            main(["--lock-wait", bad, "--data-dir", str(tmp_path), "decks"])
        assert "is not a number of seconds from 0 to 3600" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["--help"])
    help_text = " ".join(capsys.readouterr().out.split())
    assert f"(default: {BUSY_TIMEOUT_MS / 1000:g})" in help_text


def test_a_closed_pipe_ends_the_command_quietly(tmp_path: Path) -> None:
    # `recall decks --json | head`: the reader has gone before Recall writes.
    assert main(["--data-dir", str(tmp_path), "decks"]) == 0  # the database exists
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        finished = subprocess.run(
            [
                sys.executable,
                "-c",
                "import sys; from recall.cli.main import main; sys.exit(main(sys.argv[1:]))",
                "--data-dir",
                str(tmp_path),
                "decks",
                "--json",
            ],
            stdout=write_end,
            stderr=subprocess.PIPE,
            text=True,
            timeout=120,
            check=False,
        )
    finally:
        os.close(write_end)
    assert finished.stderr == ""
    assert finished.returncode == 141
