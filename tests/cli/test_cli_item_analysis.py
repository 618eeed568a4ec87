"""`recall lint --history` and `recall stats` carry the item analysis of a deck's history."""

from __future__ import annotations

import json
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest

from recall.cli.main import main
from recall.host import paths
from recall.storage import Database
from tests.conftest import DATA
from tests.helpers import item_history

DECK = DATA / "decks" / "item_analysis.json"


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    database = Database(paths.database_path(tmp_path))
    item_history.install(database, datetime(2026, 1, 1, 12, tzinfo=UTC))
    database.close()
    return tmp_path


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    status = main(list(args))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_lint_history_adds_the_flags_as_warnings(
    data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, _ = run(capsys, "lint", str(DECK))
    assert status == 0, out  # the file alone is clean
    status, out, _ = run(capsys, "--data-dir", str(data_dir), "lint", "--history", str(DECK))
    assert status == 2
    assert f"{DECK}: card france: choices[3]: the wrong option 'Bern' was never picked" in out
    assert "[maybe-miskeyed]" in out
    assert "card sum: question: right at the first answer and in 100%" in out
    assert "3 warnings" in out


def test_lint_history_codes_can_be_accepted_and_go_to_json(
    data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, _ = run(
        capsys,
        *("--data-dir", str(data_dir), "lint", "--history", "--json", str(DECK)),
        *("--accept", "never-picked", "--accept", "maybe-miskeyed:planet", "--accept", "too-easy"),
    )
    assert status == 0
    (report,) = json.loads(out)["files"]
    assert [(w["code"], w["card"], w["accepted"]) for w in report["warnings"]] == [
        ("never-picked", "france", True),
        ("maybe-miskeyed", "planet", True),
        ("too-easy", "sum", True),
    ]


def test_lint_history_of_a_deck_not_stored_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, _, err = run(capsys, "--data-dir", str(tmp_path), "lint", "--history", str(DECK))
    assert status == 0
    assert "deck items is not in the database: no history to check" in err


def test_stats_json_has_the_item_analysis(
    data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, _ = run(capsys, "--data-dir", str(data_dir), "stats", "--deck", "items", "--json")
    assert status == 0
    items = {card["card"]: card for card in json.loads(out)["item_analysis"]}
    assert set(items) == {"france", "planet", "sum", "unseen"}
    assert set(items["france"]) == {
        "deck",
        "card",
        "answers",
        "strong_answers",
        "first_right",
        "weak_right",
        "flag",
        "options",
    }
    bern = items["france"]["options"][3]
    assert (bern["text"], bern["picks"], bern["flag"]) == ("Bern", 0, "never-picked")
    assert items["sum"]["flag"] == "too-easy"


def test_stats_text_lists_the_flags(data_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "--data-dir", str(data_dir), "stats", "--deck", "items")
    assert status == 0
    lines = out.split("Item analysis (whole history)\n")[1].splitlines()
    assert lines == [
        "  items/france: a wrong option that no answer picked [never-picked]",
        "  items/planet: a wrong option picked more often when the card was known than when "
        "not [maybe-miskeyed]",
        "  items/sum: a card answered right at first sight and while learning [too-easy]",
    ]


def test_stats_reads_the_cards_without_the_deck_format_s_models(
    data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The stored cards are read as plain JSON: a new process printing the item analysis
    loads neither pydantic nor the deck models (its first run installed the bundled deck)."""
    assert run(capsys, "--data-dir", str(data_dir), "stats", "--json")[0] == 0
    arguments = ["--data-dir", str(data_dir), "stats", "--deck", "items", "--json"]
    models = ("pydantic", "recall.content.deck_format")
    script = (
        "import sys\n"
        "from recall.cli.main import main\n"
        f"status = main({arguments!r})\n"
        f"print(status, [name for name in {models!r} if name in sys.modules], file=sys.stderr)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    )
    assert '"card": "france"' in result.stdout
    assert result.stderr.strip().splitlines()[-1] == "0 []"
