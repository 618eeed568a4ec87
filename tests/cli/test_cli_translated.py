"""The command line in the learner's language: help, tables and messages, not JSON."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from recall.cli.main import main
from recall.core import i18n


@pytest.fixture
def german(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The system asks for German, as ``LANGUAGE=de recall ...`` does; English again after."""
    for name in ("LC_ALL", "LC_MESSAGES", "LANG"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("LANGUAGE", "de")
    try:
        yield
    finally:
        i18n.install(i18n.ENGLISH)


def test_help_tables_and_messages_follow_the_systems_language(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], german: None
) -> None:
    data = ["--data-dir", str(tmp_path)]
    with pytest.raises(SystemExit):
        main(["--help"])
    helped = " ".join(capsys.readouterr().out.split())  # as argparse wraps it
    assert "Lernen mit verteilter Wiederholung. Ohne Befehl öffnet sich das Fenster." in helped
    assert "Stapel mit ihren neuen, fälligen und allen Karten auflisten" in helped
    assert main([*data, "decks"]) == 0
    table = capsys.readouterr().out
    assert table.splitlines()[0].split() == ["ID", "NAME", "NEU", "FÄLLIG", "GESAMT"]
    assert main([*data, "search", "deck:activation-recompute"]) == 0
    assert capsys.readouterr().out.splitlines()[-1].endswith(" Karten")
    assert main([*data, "backups"]) == 0
    backups = capsys.readouterr().err.strip()
    assert backups == "noch keine Sicherungen (`recall backup` legt eine an)"
    assert main([*data, "decks", "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert {"id", "name", "new", "due", "total"} <= listed[0].keys()  # JSON stays English
