"""Importing Anki files end to end: decks, history kept and replayed, images, twice = once."""

from __future__ import annotations

import csv
import io
import json
import sqlite3
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from recall.cli.main import main
from recall.host import paths
from recall.safekeeping import integrity
from recall.scheduling import Schedulers
from recall.storage import Database
from tests.conftest import DATA
from tests.helpers.anki_packages import add_reviews, build_package, card_ids, edit_collection

DAY_MS = 86_400_000


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    status = main(list(args))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def package_with_history(folder: Path, start: datetime) -> tuple[Path, int]:
    package = build_package(folder)
    chat = card_ids(package)[('le chat <img src="cat.png">', 0)]
    first = int(start.timestamp() * 1000)
    add_reviews(
        package,
        [
            (first, chat, 3, 8_000, 0),  # learning, Good
            (first + 600_000, chat, 3, 6_000, 0),  # learning, Good: graduates
            (first + 3 * DAY_MS, chat, 3, 5_000, 1),  # review, Good
            (first + 3 * DAY_MS + 1, chat, 0, 0, 4),  # manual reschedule: a due date set
            (first + 4 * DAY_MS, chat, 4, 4_000, 3),  # cram: left out
        ],
    )

    def in_review(connection: sqlite3.Connection) -> None:
        # Anki keeps the card in review, due on its day numbered from the collection's start.
        (created,) = connection.execute("SELECT crt FROM col").fetchone()
        due = (first // 1000 + 7 * DAY_MS // 1000 - created) // 86_400
        connection.execute(
            "UPDATE cards SET type = 2, queue = 2, ivl = 4, due = ? WHERE id = ?", (due, chat)
        )

    edit_collection(package, in_review)
    return package, chat


def deck_counts(capsys: pytest.CaptureFixture[str], data: Path) -> dict[str, dict[str, int]]:
    status, out, _ = run(capsys, "--data-dir", str(data), "decks", "--json")
    assert status == 0
    return {deck["id"]: deck for deck in json.loads(out)}


def test_apkg_with_history_keeps_the_earned_schedule(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    start = datetime.now(UTC).replace(microsecond=0) - timedelta(days=5)
    package, chat = package_with_history(tmp_path, start)
    data = tmp_path / "data"

    status, out, err = run(capsys, "--data-dir", str(data), "import", str(package))
    assert (status, err) == (0, "")
    assert f"{package}: added deck 'Languages::French' (anki-deck-2059400110):" in out
    assert "3 reviews" in out
    assert "note: 1 review history entry left out of the replay" in out
    assert "1 sound or video left out: 'miaou.mp3'" in out
    assert f"{package}: 1 image\n" in out

    decks = deck_counts(capsys, data)
    assert set(decks) == {
        "activation-recompute",
        "anki-deck-2059400110",
        "anki-deck-2059400111",
        "anki-deck-2059400112",
        "languages",  # the parent of Languages::French, a deck as in Anki
    }
    assert decks["languages"]["total"] == 0
    french = decks["anki-deck-2059400110"]
    assert french["total"] == 3  # le chat, and chien both ways
    assert french["unseen"] == 2  # the reviewed card is no longer new

    status, out, _ = run(capsys, "--data-dir", str(data), "export-reviews", "-")
    rows = list(csv.DictReader(io.StringIO(out)))
    assert [int(row["review_time"]) for row in rows] == [
        int(start.timestamp() * 1000) + offset for offset in (0, 600_000, 3 * DAY_MS)
    ]
    assert [row["review_state"] for row in rows] == ["0", "1", "2"]

    database = Database(paths.database_path(data))
    with database.transaction() as tx:
        deck = tx.decks.by_key("anki-deck-2059400110")
        assert deck is not None
        (card,) = [c for c in tx.cards.of_deck(deck.id) if c.key == f"anki-{chat}"]
    assert card.memory.due is not None
    assert card.memory.due > start + timedelta(days=3)
    report = integrity.check(database, Schedulers(), datetime.now(UTC))
    assert report.healthy, report.problems
    media = paths.media_dir(data)
    (image,) = list(media.iterdir())
    assert f'src=\\"{image.name}\\"' in card.content  # JSON-escaped quotes
    database.close()


def test_importing_the_same_package_twice_changes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    package, _ = package_with_history(tmp_path, datetime(2026, 1, 1, tzinfo=UTC))
    data = tmp_path / "data"
    run(capsys, "--data-dir", str(data), "import", str(package))
    database = paths.database_path(data)
    before = _dump(database)
    status, out, _ = run(capsys, "--data-dir", str(data), "import", str(package))
    assert status == 0
    assert "0 added, 0 updated" in out
    assert _dump(database) == before


def test_a_bad_package_leaves_the_database_and_media_as_they_were(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = tmp_path / "data"
    run(capsys, "--data-dir", str(data), "decks")
    before = _dump(paths.database_path(data))
    good = build_package(tmp_path)
    broken = tmp_path / "broken.apkg"
    broken.write_bytes(good.read_bytes()[:-200])
    status, out, err = run(capsys, "--data-dir", str(data), "import", str(good), str(broken))
    assert status == 1
    assert out == ""
    assert err.startswith(f"{broken}: ")
    assert _dump(paths.database_path(data)) == before
    assert not paths.media_dir(data).exists() or not any(paths.media_dir(data).iterdir())
    assert not any((data / "tmp").iterdir())


def test_anki_text_export_imports_and_updates_by_front(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = tmp_path / "data"
    export = tmp_path / "words.txt"
    export.write_text("#separator:tab\n#html:false\n#deck:Words\nhello\tbonjour\ncat\tchat\n")
    status, out, _ = run(capsys, "--data-dir", str(data), "import", str(export))
    assert status == 0
    assert "added deck 'Words'" in out
    assert "2 added" in out
    export.write_text("#separator:tab\n#html:false\n#deck:Words\nhello\tsalut\ncat\tchat\n")
    status, out, _ = run(capsys, "--data-dir", str(data), "import", str(export))
    assert "0 added, 1 updated, 1 unchanged cards" in out


def test_every_text_fixture_imports(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    files = sorted((DATA / "anki").glob("*.txt"))
    assert files
    for file in files:
        status, _, err = run(capsys, "--data-dir", str(tmp_path / file.stem), "import", str(file))
        assert status == 0, err


def _dump(path: Path) -> list[str]:
    connection = sqlite3.connect(path)
    try:
        return list(connection.iterdump())
    finally:
        connection.close()
