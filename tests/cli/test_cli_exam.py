"""`recall exam` sets and clears a deck's exam day; `recall forecast` prints its figures."""

from __future__ import annotations

import json
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import pytest

from recall.options import exam_dates
from recall.storage import Database
from tests.cli.test_cli import run
from tests.cli.test_cli_cards import TINY


@pytest.fixture
def data_dir(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    folder = tmp_path / "data"
    assert run(capsys, "--data-dir", str(folder), "import", str(TINY))[0] == 0
    return folder


def test_exam_sets_shows_and_clears_a_decks_exam_day(
    data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = str(data_dir)
    day = (datetime.now(UTC) + timedelta(days=40)).date()
    status, out, _ = run(capsys, "--data-dir", folder, "exam", "tiny", day.isoformat())
    assert status == 0
    assert out.startswith("Tiny deck: exam on ")
    assert run(capsys, "--data-dir", folder, "exam", "tiny")[1] == f"{day.isoformat()}\n"
    database = Database(data_dir / "recall.sqlite3")
    try:
        assert exam_dates.exam_date(database, "tiny") == day
    finally:
        database.close()
    status, out, _ = run(capsys, "--data-dir", folder, "exam", "tiny", "--clear")
    assert (status, out) == (0, "Tiny deck: no exam day.\n")
    assert run(capsys, "--data-dir", folder, "exam", "tiny")[1] == "no exam day\n"


def test_exam_refuses_a_bad_date_and_an_unknown_deck(
    data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = str(data_dir)
    with pytest.raises(SystemExit):
        run(capsys, "--data-dir", folder, "exam", "tiny", "15/01/2027")
    assert "is not a date like 2027-01-15" in capsys.readouterr().err
    status, _, err = run(capsys, "--data-dir", folder, "exam", "nope", "2027-01-15")
    assert status == 1
    assert "there is no deck with id 'nope'" in err


def test_forecast_prints_the_figures_as_json_and_in_words(
    data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = str(data_dir)
    day = (datetime.now(UTC) + timedelta(days=30)).date()
    status, _, err = run(capsys, "--data-dir", folder, "forecast", "tiny")
    assert status == 1
    assert "has no exam day: give --exam DATE" in err
    status, out, _ = run(
        capsys, "--data-dir", folder, "forecast", "tiny", "--exam", day.isoformat(), "--json"
    )
    assert status == 0
    figures = json.loads(out)
    assert figures["deck"] == "Tiny deck"
    assert figures["exam"] == day.isoformat()
    assert figures["cards"] == 2
    assert figures["studied"] == 0
    assert figures["share_remembered"] == 0.0  # nothing studied: new cards count 0
    assert figures["share_remembered_of_studied"] is None
    assert figures["target"] == 0.9
    assert isinstance(figures["reviews_per_day"], int)
    assert figures["planned_share"] >= 0.9
    assert figures["skipping_today_costs"] >= 0
    assert set(figures) == {
        "deck",
        "exam",
        "days_left",
        "cards",
        "studied",
        "share_remembered",
        "share_remembered_of_studied",
        "target",
        "reviews_per_day",
        "planned_share",
        "share_if_today_skipped",
        "skipping_today_costs",
    }
    run(capsys, "--data-dir", folder, "exam", "tiny", day.isoformat())
    status, out, _ = run(capsys, "--data-dir", folder, "forecast", "tiny", "--target", "0.8")
    assert status == 0
    assert f"Exam on {day.day} {day:%B %Y}:" in out
    assert "To remember 80%, study about" in out
    status, _, err = run(capsys, "--data-dir", folder, "forecast", "tiny", "--target", "2")
    assert status == 1
    assert "the target 2 is not a share" in err
    past = date(2020, 1, 1).isoformat()
    status, _, err = run(capsys, "--data-dir", folder, "forecast", "tiny", "--exam", past)
    assert "2020-01-01 has passed" in err
