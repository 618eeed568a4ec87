"""`recall options` shows and sets load balancing and Easy Days as it does every option."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from recall.cli.main import main

DECK = "activation-recompute"


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    status = main(list(args))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_options_show_and_set_load_balancing_and_easy_days(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = ("--data-dir", str(tmp_path))
    shown = json.loads(run(capsys, *data, "options", DECK, "--json")[1])["preset"]
    assert shown["load_balancing"] is True
    assert shown["easy_sunday"] == "normal"
    status, _, err = run(
        capsys,
        *data,
        "options",
        DECK,
        "--set",
        "load_balancing=off",
        "--set",
        "easy_sunday=minimum",
        "--set",
        "easy_saturday=reduced",
    )
    assert status == 0, err
    shown = json.loads(run(capsys, *data, "options", DECK, "--json")[1])["preset"]
    assert (shown["load_balancing"], shown["easy_saturday"], shown["easy_sunday"]) == (
        False,
        "reduced",
        "minimum",
    )
    _, text, _ = run(capsys, *data, "options", DECK)
    assert ["easy_sunday", "minimum"] in [line.split() for line in text.splitlines()]
    status, _, err = run(capsys, *data, "options", DECK, "--set", "easy_monday=light")
    assert status == 1
    assert "'light' is not one of normal, reduced, minimum" in err
