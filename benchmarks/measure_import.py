"""Import: Anki packages (genanki's; Anki's own in both formats, with history), Recall against
Anki; a large Recall JSON deck."""

from __future__ import annotations

import json
import sqlite3
import statistics
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

from anki.collection import Collection, ImportAnkiPackageOptions, ImportAnkiPackageRequest

from benchmarks.common import Figure, alternate, elapsed_ms
from recall.collection import importing
from recall.scheduling import Schedulers
from recall.storage import Database


def _recall_import(file: Path, work: Path, bulk: bool | None = None) -> float:
    with tempfile.TemporaryDirectory(dir=work) as name:
        database = Database(Path(name) / "recall.sqlite3")
        try:
            scheduler = Schedulers()
            now = datetime.now(UTC)
            return elapsed_ms(
                lambda: importing.import_files(database, scheduler, [file], now, bulk=bulk)
            )
        finally:
            database.close()


def _cpu_ms(action: Callable[[], float]) -> float:
    """The CPU time of this process (every thread, Anki's backend too) ``action`` took."""
    start = time.process_time()
    action()
    return (time.process_time() - start) * 1000


def _anki_import(package: Path, work: Path) -> float:
    with tempfile.TemporaryDirectory(dir=work) as name:
        collection = Collection(str(Path(name) / "collection.anki2"))
        try:
            request = ImportAnkiPackageRequest(
                package_path=str(package),
                options=ImportAnkiPackageOptions(with_scheduling=True, with_deck_configs=True),
            )
            return elapsed_ms(lambda: collection.import_anki_package(request))
        finally:
            collection.close()


def measure_apkg(
    package: Path,
    notes: int,
    work: Path,
    rounds: int,
    kind: str = "",
    made_by: str = "a package of Basic notes made with genanki",
) -> Figure:
    """Recall and Anki each import the same package into an empty collection, in turns.

    Args:
        package: The package.
        notes: How many notes it holds, for the title.
        work: A scratch folder.
        rounds: How many imports each side makes.
        kind: A few words after the title, such as the package format.
        made_by: How the package was made, for the docs.
    """
    ours, theirs = alternate(
        lambda: _recall_import(package, work), lambda: _anki_import(package, work), rounds
    )
    cpu_ours, cpu_theirs = alternate(
        lambda: _cpu_ms(lambda: _recall_import(package, work)),
        lambda: _cpu_ms(lambda: _anki_import(package, work)),
        rounds,
    )
    by_rows = _recall_import(package, work, bulk=False)
    figure = Figure(
        title=f"Import a {notes:,}-note .apkg{f' ({kind})' if kind else ''}",
        measures=(
            f"{made_by}, imported into an empty collection (opening the collection not counted)"
        ),
        recall=ours,
        baseline_name="Anki: import_anki_package of the same file",
        baseline=theirs,
        goal="ratio <= 1.0",
        notes=[
            f"CPU time in the same run (median, alternating): Recall "
            f"{statistics.median(cpu_ours):,.0f} ms, Anki {statistics.median(cpu_theirs):,.0f} "
            f"ms ({statistics.median(cpu_ours) / statistics.median(cpu_theirs):.2f}x)",
            f"the same import written row by row, every per-row trigger firing (bulk=False, "
            f"one sample): {by_rows:,.0f} ms",
        ],
    )
    return Figure(**{**figure.__dict__, "goal_met": figure.ratio <= 1.0})


# A Recall deck is checked card by card (untrusted), which the floor does not do.
JSON_GOAL_RATIO = 2.0


def _floor_import(deck_file: Path, work: Path) -> float:
    """What Python and SQLite need at least: parse the JSON, insert every card in one go."""
    with tempfile.TemporaryDirectory(dir=work) as name:
        connection = sqlite3.connect(Path(name) / "floor.sqlite3", isolation_level=None)
        connection.execute("PRAGMA journal_mode = WAL")
        connection.execute("PRAGMA synchronous = FULL")
        connection.execute(
            "CREATE TABLE card (id INTEGER PRIMARY KEY, deck_id INTEGER, key TEXT, "
            "position INTEGER, kind TEXT, content TEXT, UNIQUE (deck_id, key))"
        )
        connection.execute("CREATE TABLE card_memory (card_id INTEGER PRIMARY KEY, state INTEGER)")

        def load() -> None:
            deck = json.loads(deck_file.read_bytes())
            connection.execute("BEGIN IMMEDIATE")
            connection.executemany(
                "INSERT INTO card (deck_id, key, position, kind, content) VALUES (1, ?, ?, ?, ?)",
                (
                    (card["id"], position, card["type"], json.dumps(card))
                    for position, card in enumerate(deck["cards"])
                ),
            )
            connection.execute("INSERT INTO card_memory (card_id, state) SELECT id, 0 FROM card")
            connection.execute("COMMIT")

        try:
            return elapsed_ms(load)
        finally:
            connection.close()


def measure_json(deck_file: Path, cards: int, work: Path, rounds: int) -> Figure:
    """Recall imports its own JSON deck; the floor parses it and bulk-inserts the cards."""
    ours, theirs = alternate(
        lambda: _recall_import(deck_file, work), lambda: _floor_import(deck_file, work), rounds
    )
    figure = Figure(
        title=f"Import a {cards:,}-card Recall JSON deck",
        measures="read, validate and write every card in one transaction, into an empty database",
        recall=ours,
        baseline_name="floor: json.loads, then sqlite3 executemany of the cards, one commit",
        baseline=theirs,
        goal=f"ratio <= {JSON_GOAL_RATIO:g}",
    )
    return Figure(**{**figure.__dict__, "goal_met": figure.ratio <= JSON_GOAL_RATIO})
