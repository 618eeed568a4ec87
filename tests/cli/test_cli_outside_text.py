"""Values from outside at the command line: options beyond their bounds, an empty sync folder,
names that carry terminal controls, and answer times no one takes. Each gives a clear message
(or is shown safely), never a traceback."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from recall import stats
from recall.cli.main import main
from recall.cli.shared import terminal_text
from recall.core.memory import LONGEST_ANSWER_MS
from recall.core.preferences import Preferences
from recall.core.presets import PARAMETER_BOUNDS as BOUNDS
from recall.scheduling import Schedulers
from recall.storage import Database
from recall.study.session import StudySession
from tests.conftest import Clock

DECK = "activation-recompute"


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    status = main(list(args))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


@pytest.mark.parametrize(
    ("assignment", "message"),
    [
        ("learning_steps=999999999d", "Learning steps: '999999999d' is longer than 365d"),
        ("learning_steps=1m 366d", "Learning steps: '366d' is longer than 365d"),
        ("relearning_steps=" + "9" * 400 + "d", "Relearning steps: '" + "9" * 400 + "d' is"),
        (
            "parameters=" + " ".join(["100"] * 21),
            "parameters: w4 = 100, FSRS takes 1 to 10; w5 = 100, FSRS takes 0.001 to 4;",
        ),
        (
            "parameters=" + " ".join(["0.2"] * 20 + ["0.9"]),
            "parameters: w4 = 0.2, FSRS takes 1 to 10; w16 = 0.2, FSRS takes 1 to 6; "
            "w20 = 0.9, FSRS takes 0.1 to 0.8",
        ),
    ],
)
def test_an_option_beyond_its_bounds_is_refused_in_words(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], assignment: str, message: str
) -> None:
    status, _out, err = run(
        capsys, "--data-dir", str(tmp_path), "options", DECK, "--set", assignment
    )
    assert status == 1
    assert err.startswith(f"recall: {message}")
    assert "Traceback" not in err
    shown = run(capsys, "--data-dir", str(tmp_path), "options", DECK, "--json")[1]
    preset = json.loads(shown)["preset"]
    assert (preset["learning_steps"], preset["parameters"]) == ("1m 10m", [])


def test_the_longest_step_and_fsrs_extreme_parameters_are_taken(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    highest = " ".join(f"{high:g}" for _, high in BOUNDS)
    for assignment in ("learning_steps=1m 365d", f"parameters={highest}"):
        status, _, err = run(
            capsys, "--data-dir", str(tmp_path), "options", DECK, "--set", assignment
        )
        assert status == 0, err
    shown = json.loads(run(capsys, "--data-dir", str(tmp_path), "options", DECK, "--json")[1])
    assert shown["preset"]["learning_steps"] == "1m 365d"
    assert shown["preset"]["parameters"] == [high for _, high in BOUNDS]


@pytest.mark.parametrize("folder", ["", "   "])
def test_an_empty_sync_folder_is_refused_not_the_current_one(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    folder: str,
) -> None:
    here = tmp_path / "here"
    here.mkdir()
    monkeypatch.chdir(here)
    status, _out, err = run(
        capsys, "--data-dir", str(tmp_path / "data"), "sync", "--folder", folder
    )
    assert status == 1
    assert err == (
        f"recall: --folder: {folder!r} names no folder; give its path (. for the current folder)\n"
    )
    assert list(here.iterdir()) == []


def test_names_with_terminal_controls_are_printed_escaped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    name = "Evil\x1b[2J\x1b[H\nfake line\r\u202eeman"
    deck = {
        "format": "recall-deck",
        "version": 1,
        "id": "evil",
        "name": name,
        "cards": [{"id": "b1", "type": "basic", "front": "Q\x1b[31m?", "back": "A"}],
    }
    path = tmp_path / "evil.json"
    path.write_text(json.dumps(deck), encoding="utf-8")
    data = str(tmp_path / "data")
    status, out, _ = run(capsys, "--data-dir", data, "import", str(path))
    assert status == 0
    assert "\x1b" not in out
    assert "\r" not in out
    assert "Evil\\x1b[2J\\x1b[H\\nfake line\\r\\u202eeman" in out

    status, out, _ = run(capsys, "--data-dir", data, "decks")
    assert status == 0
    assert "\x1b" not in out
    assert "\r" not in out
    assert "\u202e" not in out
    lines = out.splitlines()
    assert len(lines) == 3  # the header, the bundled deck, this one: no fake line
    assert lines[2].split()[:2] == ["evil", "Evil\\x1b[2J\\x1b[H\\nfake"]

    status, out, _ = run(capsys, "--data-dir", data, "search", "deck:evil")
    assert "Q\\x1b[31m?" in out
    assert "\x1b" not in out

    # JSON escapes them itself: the name comes back as it was.
    out = run(capsys, "--data-dir", data, "decks", "--json")[1]
    assert {deck["name"] for deck in json.loads(out)} >= {name}


def test_terminal_text_escapes_only_what_a_terminal_acts_on() -> None:
    assert terminal_text("Café 😀 ß \\n a\tb") == "Café 😀 ß \\n a\\tb"
    assert terminal_text("\x00\x7f\x85\u2028\ud83d") == "\\x00\\x7f\\x85\\u2028\\ud83d"


def test_an_answer_left_open_for_weeks_counts_as_the_longest_answer(
    bundled: Database, clock: Clock
) -> None:
    session = StudySession(bundled, Schedulers(fuzz=False), DECK)
    shown = session.next_card(clock())
    assert shown is not None
    answer = session.answer_choice(shown, {shown.order[0]}, clock.advance(days=40))
    assert answer.duration_ms == 40 * 86_400_000
    session.record(answer, answer.proposed, clock())
    figures = stats.collect(bundled, Preferences(), clock(), DECK)
    assert figures.today.time_ms == LONGEST_ANSWER_MS
    assert "in 1 h" in stats.text_report(figures)
    assert "in 1 h 0" not in stats.text_report(figures)
