"""The command line in the learner's language: help, tables and messages, not JSON."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from recall.cli.main import main
from tests.helpers.catalogs import Translations, installed

GERMAN: Translations = {
    "Spaced-repetition quizzes. With no command, opens the window.": (
        "Lernen mit verteilter Wiederholung. Ohne Befehl öffnet sich das Fenster."
    ),
    "list decks with their new, due and total cards": "Stapel auflisten",
    "ID": "ID",
    "NAME": "NAME",
    "NEW": "NEU",
    "DUE": "FÄLLIG",
    "TOTAL": "GESAMT",
    "{count} card": ("{count} Karte", "{count} Karten"),
    "no backups yet (`recall backup` makes one)": "noch keine Sicherungen",
}


def test_help_tables_and_messages_follow_the_catalog(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = ["--data-dir", str(tmp_path)]
    with installed(GERMAN):
        with pytest.raises(SystemExit):
            main(["--help"])
        helped = capsys.readouterr().out
        assert "Lernen mit verteilter Wiederholung." in helped
        assert "Stapel auflisten" in helped
        assert main([*data, "decks"]) == 0
        table = capsys.readouterr().out
        assert table.splitlines()[0].split() == ["ID", "NAME", "NEU", "FÄLLIG", "GESAMT"]
        assert main([*data, "search", "deck:activation-recompute"]) == 0
        assert capsys.readouterr().out.splitlines()[-1].endswith(" Karten")
        assert main([*data, "backups"]) == 0
        assert capsys.readouterr().err.strip() == "noch keine Sicherungen"
        assert main([*data, "decks", "--json"]) == 0
        listed = json.loads(capsys.readouterr().out)
        assert {"id", "name", "new", "due", "total"} <= listed[0].keys()  # JSON stays English
