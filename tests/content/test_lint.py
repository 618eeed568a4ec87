"""The deck checker: each warning on a small deck, errors as import gives them, the bundled deck."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings

from recall.cli.main import main
from recall.content.deck_format import ChoiceCard, Deck, load_deck, parse_deck
from recall.content.lint import lint_card, lint_deck, lint_file
from recall.content.lint_warning import CODES, LintWarning
from recall.host import paths
from tests.conftest import DATA
from tests.content.test_deckfile import decks

ROOT = Path(__file__).resolve().parents[2]


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    status = main(list(args))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def found(path: Path) -> set[tuple[str, str | None, str]]:
    return {(w.code, w.card_id, w.field) for w in lint_file(path).warnings}


# Each fixture is a valid deck that earns exactly these warnings and nothing else.
EXPECTED: dict[str, set[tuple[str, str | None, str]]] = {
    "lint_clean.json": set(),
    "lint_longest.json": {("correct-longest", None, "cards")},
    "lint_position.json": {("same-position", None, "cards")},
    "lint_missing.json": {
        ("missing-why", "moon", "choices[2].why"),
        ("missing-explanation", "moon", "explanation"),
        ("missing-source", "moon", "source"),
        ("missing-source", "front-only", "source"),
    },
    "lint_duplicates.json": {
        ("duplicate-choice", "france", "choices[1].text"),
        ("near-duplicate-choice", "france", "choices[3].text"),
    },
    "lint_above.json": {
        ("all-of-the-above", "primes", "choices[2].text"),
        ("none-of-the-above", "evens", "choices[2].text"),
    },
    "lint_giveaway.json": {
        ("give-away", "liquid", "question"),
        ("give-away", "states", "question"),
    },
}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_each_fixture_earns_exactly_its_warnings(name: str) -> None:
    assert found(DATA / name) == EXPECTED[name]


def test_every_warning_code_has_a_fixture() -> None:
    covered = {code for warnings in EXPECTED.values() for code, _card, _field in warnings}
    assert covered == set(CODES)


def test_give_away_names_the_echoed_words_and_ignores_shared_ones() -> None:
    report = lint_file(DATA / "lint_giveaway.json")
    messages = {w.card_id: w.message for w in report.warnings}
    assert messages["liquid"].startswith("repeats 'liquid', 'metal' from the right option")
    # "states" in the question and "state" in the right option are the same word.
    assert messages["states"].startswith("repeats 'state' from")
    # "metal" is in a wrong option of this card too, so it gives nothing away.
    assert "conductor" not in messages


def test_near_duplicate_gives_how_alike() -> None:
    (near,) = [w for w in lint_file(DATA / "lint_duplicates.json").warnings if "near" in w.code]
    assert "nearly repeats choices[2] 'The city of Lyon' (97% alike)" in near.message


def test_lint_card_checks_one_card_as_an_editor_would() -> None:
    deck = load_deck(DATA / "lint_missing.json")
    moon, basic = deck.cards
    assert [w.code for w in lint_card(moon)] == [
        "missing-why",
        "missing-explanation",
        "missing-source",
    ]
    assert lint_card(basic) == [
        LintWarning(
            "missing-source", "front-only", "source", "no source: say where a reader can check"
        )
    ]


def test_deck_patterns_need_three_choice_cards() -> None:
    raw = json.loads((DATA / "lint_longest.json").read_text())
    raw["cards"] = raw["cards"][:2]
    assert lint_deck(parse_deck(json.dumps(raw), "two cards")) == []


def test_ties_for_longest_do_not_count() -> None:
    raw = json.loads((DATA / "lint_longest.json").read_text())
    for card in raw["cards"]:
        for letter, choice in zip("abc", card["choices"], strict=True):
            choice["text"] = letter * 5
    assert lint_deck(parse_deck(json.dumps(raw), "ties")) == []


def test_give_away_compares_words_of_any_script() -> None:
    raw = json.loads((DATA / "lint_giveaway.json").read_text())
    liquid = raw["cards"][0]
    liquid["question"] = "Quel métal est liquide à température ambiante ?"
    liquid["choices"][1]["text"] = "Le mercure, métal liquide"
    (warning,) = lint_card(parse_deck(json.dumps(raw), "fr").cards[0])
    assert warning.message.startswith("repeats 'liquide', 'métal' from")


@settings(max_examples=100, deadline=None)
@given(decks())
def test_any_valid_deck_is_checked_without_failing(deck: Deck) -> None:
    warnings = lint_deck(deck)
    ids = {card.id for card in deck.cards}
    assert all(w.code in CODES and (w.card_id is None or w.card_id in ids) for w in warnings)
    per_card = [w for card in deck.cards for w in lint_card(card)]
    assert [w for w in warnings if w.card_id is not None] == per_card


# Exit status and output through the real command line.


def test_clean_deck_exits_0(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run(capsys, "lint", str(DATA / "lint_clean.json"))
    assert (status, out, err) == (0, "1 file checked: 0 errors, 0 warnings\n", "")


def test_warnings_exit_2_with_one_line_each(capsys: pytest.CaptureFixture[str]) -> None:
    path = DATA / "lint_missing.json"
    status, out, _ = run(capsys, "lint", str(path))
    assert status == 2
    lines = out.splitlines()
    assert lines[0] == (
        f"{path}: card moon: choices[2].why: the wrong option 'Venus' has no 'why': say why it "
        "is wrong, since a learner who picks it sees this note [missing-why]"
    )
    assert lines[-1] == "1 file checked: 0 errors, 4 warnings"
    assert len(lines) == 5


def test_deck_wide_warning_names_the_deck(capsys: pytest.CaptureFixture[str]) -> None:
    path = DATA / "lint_position.json"
    status, out, _ = run(capsys, "lint", str(path))
    assert status == 2
    assert out.startswith(f"{path}: deck lint-position: cards: the right option is choices[0]")


@pytest.mark.parametrize("bad", sorted((DATA / "decks" / "bad").glob("*.json")), ids=str)
def test_errors_are_the_lines_import_prints(
    bad: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, _ = run(capsys, "lint", str(bad))
    assert status == 1
    *errors, summary = out.splitlines()
    imported, _, import_err = run(capsys, "--data-dir", str(tmp_path), "import", str(bad))
    assert imported == 1
    assert errors == import_err.splitlines()
    assert errors
    assert all(line.startswith(f"{bad}: ") for line in errors)
    assert re.fullmatch(rf"1 file checked: {len(errors)} errors?, 0 warnings", summary)


def test_errors_win_over_warnings_across_files(capsys: pytest.CaptureFixture[str]) -> None:
    bad = DATA / "decks" / "bad" / "missing-question.json"
    status, _, _ = run(capsys, "lint", str(DATA / "lint_missing.json"), str(bad))
    assert status == 1


def test_missing_file_and_other_formats_are_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, _ = run(capsys, "lint", str(tmp_path / "nowhere.json"), str(tmp_path / "a.txt"))
    assert status == 1
    assert out.splitlines()[:2] == [
        f"{tmp_path / 'nowhere.json'}: no such file",
        f"{tmp_path / 'a.txt'}: not a Recall deck file (.json); lint checks only those",
    ]


def test_accepted_warnings_are_shown_but_do_not_count(capsys: pytest.CaptureFixture[str]) -> None:
    path = str(DATA / "lint_giveaway.json")
    status, out, _ = run(capsys, "lint", path, "--accept", "give-away:liquid")
    assert status == 2
    assert "[give-away, accepted]" in out
    assert out.endswith("1 file checked: 0 errors, 1 warning (1 accepted)\n")
    status, out, _ = run(
        capsys, "lint", path, "--accept", "give-away:liquid", "--accept", "give-away:states"
    )
    assert status == 0
    status, _, _ = run(capsys, "lint", path, "--accept", "give-away")
    assert status == 0


def test_an_accepted_warning_that_does_not_occur_fails(
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = str(DATA / "lint_clean.json")
    status, out, _ = run(capsys, "lint", path, "--accept", "give-away:planet")
    assert status == 2
    assert "--accept give-away:planet: matched no warning; drop it" in out.splitlines()


def test_an_unknown_code_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = run(capsys, "lint", str(DATA / "lint_clean.json"), "--accept", "gve-away")
    assert status == 1
    assert err.startswith("recall: --accept gve-away: there is no warning code 'gve-away'")


def test_json_output_for_scripts(capsys: pytest.CaptureFixture[str]) -> None:
    path = str(DATA / "lint_duplicates.json")
    status, out, _ = run(capsys, "lint", "--json", path, "--accept", "near-duplicate-choice")
    report = json.loads(out)
    assert status == report["status"] == 2
    (entry,) = report["files"]
    assert (entry["file"], entry["deck"], entry["errors"]) == (path, "lint-duplicates", [])
    assert [(w["code"], w["card"], w["field"], w["accepted"]) for w in entry["warnings"]] == [
        ("duplicate-choice", "france", "choices[1].text", False),
        ("near-duplicate-choice", "france", "choices[3].text", True),
    ]
    assert report["unmatched_accepts"] == []


def test_lint_runs_as_a_program() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "recall", "lint", str(DATA / "lint_position.json")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 2
    assert "[same-position]" in result.stdout


# The bundled deck. Its questions and options are the seed quiz's, word for word (the deckfile
# tests pin them), so two kinds of warning come from the seed's wording and are accepted:
ACCEPTED = {
    # The seed's right option is the longest in seven of its eight cards; only by rewording
    # options could that change. Recall shuffles options, so their position is no cue.
    "correct-longest": "the seed's right options are longer than its wrong ones",
    # "what storage scaling ... comparable activations" and "O(sqrt(N)) for activation
    # storage": the seed's question shares two words with the right option only.
    "give-away:sqrt-n-checkpointing": "the seed question echoes 'activation' and 'storage'",
    # "stored activations ... optimizer states" and "does not remove optimizer-state storage".
    "give-away:optimizer-state-oom": "the seed question echoes 'activation' and 'state'",
}


def _bundled_deck() -> Path:
    (entry,) = [e for e in paths.bundled_decks() if e.name == "activation_recompute.json"]
    return Path(str(entry))


def test_bundled_deck_earns_only_the_accepted_warnings() -> None:
    report = lint_file(_bundled_deck())
    assert report.errors == []
    assert sorted(w.key for w in report.warnings) == sorted(ACCEPTED)
    (longest,) = [w for w in report.warnings if w.code == "correct-longest"]
    assert "the right option is the longest in 7 of 8 choice cards" in longest.message


def test_bundled_deck_notes_every_wrong_option_and_cites_sources() -> None:
    deck = load_deck(_bundled_deck())
    for card in deck.cards:
        assert isinstance(card, ChoiceCard)
        codes = {w.code for w in lint_card(card)}
        assert not codes & {"missing-why", "missing-explanation", "missing-source"}, card.id


def test_ci_accepts_exactly_the_documented_warnings() -> None:
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    (line,) = [line for line in makefile.splitlines() if line.startswith("DECK_ACCEPTED :=")]
    assert sorted(line.split(":=", 1)[1].split()) == sorted(ACCEPTED)
    assert "lint-deck" in next(line for line in makefile.splitlines() if line.startswith("test:"))
    documented = (ROOT / "docs" / "bundled-deck.md").read_text(encoding="utf-8")
    for entry in ACCEPTED:
        assert f"`{entry}`" in documented
