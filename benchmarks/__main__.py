"""Run every benchmark: ``python -m benchmarks`` (or ``make benchmark``).

Each measurement is paired with a baseline taken in the same run on the same machine, and
the ratio is what to compare between runs; absolute times on shared machines drift.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

from recall import importing, library
from recall.deckfile import ChoiceCard, Deck, parse_deck
from recall.scheduling import Scheduler
from recall.settings import Settings
from recall.storage import Database
from recall.study import StudySession


@dataclass(frozen=True)
class Result:
    """One benchmark: Recall's median time beside its baseline's."""

    name: str
    recall_ms: float
    baseline: str
    baseline_ms: float

    @property
    def ratio(self) -> float:
        return self.recall_ms / self.baseline_ms


def median_ms(action: Callable[[], object], repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        action()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def generated_deck(cards: int, deck_id: str = "bench") -> Deck:
    rng = random.Random(cards)
    raw = {
        "format": "recall-deck",
        "version": 1,
        "id": deck_id,
        "name": f"Benchmark deck ({cards} cards)",
        "cards": [
            {
                "id": f"c{index}",
                "type": "choice",
                "question": f"Question {index}: which of these is {rng.random():.6f}?",
                "choices": [
                    {"text": f"Option {option} of {index}", "correct": option == 0}
                    for option in range(4)
                ],
                "explanation": "An explanation of two sentences. It teaches the idea.",
                "source": "A source",
            }
            for index in range(cards)
        ],
    }
    return parse_deck(json.dumps(raw), "generated")


def _answer_times(database: Database, answers: int) -> list[float]:
    now = datetime(2026, 1, 15, 9, tzinfo=UTC)
    importing.import_deck(database, generated_deck(2000), now)
    settings = Settings()
    session = StudySession(database, Scheduler(settings), settings, "bench", random.Random(1))
    shown = session.next_card(now)
    times = []
    for _ in range(answers):
        assert shown is not None
        assert isinstance(shown.card, ChoiceCard)
        now += timedelta(seconds=5)
        start = time.perf_counter()
        answer = session.answer_choice(shown, {shown.order[0]}, now)
        session.record(answer, answer.proposed, now)
        shown = session.next_card(now)
        times.append((time.perf_counter() - start) * 1000)
    database.close()
    return times


def bench_durability(folder: Path) -> Result:
    """What synchronous=FULL (survives a power cut) costs per answer over NORMAL."""
    full = _answer_times(Database(folder / "full.sqlite3", synchronous="FULL"), 300)
    normal = _answer_times(Database(folder / "normal.sqlite3", synchronous="NORMAL"), 300)
    return Result(
        "answer a card, synchronous=FULL",
        statistics.median(full),
        "the same with synchronous=NORMAL",
        statistics.median(normal),
    )


def bench_answer(folder: Path) -> Result:
    """One answer: grade, record (committed with synchronous=FULL) and fetch the next card."""
    times = _answer_times(Database(folder / "answer.sqlite3"), 300)

    raw = sqlite3.connect(folder / "floor.sqlite3", isolation_level=None)
    raw.execute("PRAGMA journal_mode = WAL")
    raw.execute("PRAGMA synchronous = FULL")
    raw.execute("CREATE TABLE review (id INTEGER PRIMARY KEY, card INTEGER, at INTEGER)")

    def commit_one_row() -> None:
        raw.execute("BEGIN IMMEDIATE")
        raw.execute("INSERT INTO review (card, at) VALUES (1, 2)")
        raw.execute("COMMIT")

    floor = median_ms(commit_one_row, 300)
    raw.close()
    return Result(
        "answer a card (grade, commit, next card)",
        statistics.median(times),
        "one-row durable sqlite3 commit",
        floor,
    )


def bench_import(folder: Path) -> Result:
    """Import of a 5,000-card deck file, against only reading and validating the file."""
    deck_file = folder / "big.json"
    deck = generated_deck(5000, "big")
    deck_file.write_text(deck.model_dump_json())
    now = datetime(2026, 1, 15, 9, tzinfo=UTC)
    runs = []
    for run in range(3):
        database = Database(folder / f"import{run}.sqlite3")
        start = time.perf_counter()
        importing.import_files(database, Scheduler(Settings()), [deck_file], now)
        runs.append((time.perf_counter() - start) * 1000)
        database.close()
    parse = median_ms(lambda: parse_deck(deck_file.read_bytes(), "big.json"), 3)
    return Result(
        "import a 5,000-card deck", statistics.median(runs), "parse + validate the file", parse
    )


_DECK_LIST_SQL = """
SELECT deck.id, count(card.id),
       count(card.id) FILTER (WHERE card_memory.state = 0),
       count(card.id) FILTER (WHERE card_memory.state != 0 AND card_memory.due < ?)
FROM deck LEFT JOIN card ON card.deck_id = deck.id
LEFT JOIN card_memory ON card_memory.card_id = card.id
GROUP BY deck.id ORDER BY deck.name
"""


def bench_deck_list(folder: Path) -> Result:
    """Deck list counts with 20,000 cards, against the same counts in hand-written SQL."""
    database = Database(folder / "list.sqlite3")
    now = datetime(2026, 1, 15, 9, tzinfo=UTC)
    for index in range(4):
        importing.import_deck(database, generated_deck(5000, f"d{index}"), now)
    settings = Settings()
    overview = median_ms(lambda: library.deck_overviews(database, settings, now), 20)
    database.close()
    raw = sqlite3.connect(folder / "list.sqlite3")
    due_before = int(now.timestamp() * 1_000_000)
    count = median_ms(lambda: raw.execute(_DECK_LIST_SQL, (due_before,)).fetchall(), 20)
    raw.close()
    return Result("deck list counts, 20,000 cards", overview, "the same counts in raw SQL", count)


def _run(command: list[str], environment: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run(command, check=True, env=environment, capture_output=True)
    return (time.perf_counter() - start) * 1000


def bench_cli_start(folder: Path) -> Result:
    """`recall decks` end to end, against starting the same Python and importing sqlite3."""
    environment = {**os.environ, "RECALL_DATA_DIR": str(folder / "cli")}
    recall = [sys.executable, "-m", "recall", "decks"]
    baseline = [sys.executable, "-c", "import sqlite3"]
    _run(recall, environment)  # first run installs the bundled deck
    ours = statistics.median(_run(recall, environment) for _ in range(7))
    theirs = statistics.median(_run(baseline, environment) for _ in range(7))
    return Result("`recall decks` from start to exit", ours, "python -c 'import sqlite3'", theirs)


def peak_memory_mb(command: list[str], environment: dict[str, str]) -> float:
    script = (
        "import resource, subprocess, sys\n"
        "subprocess.run(sys.argv[1:], check=True, capture_output=True)\n"
        "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n"
    )
    output = subprocess.run(
        [sys.executable, "-c", script, *command],
        check=True,
        env=environment,
        capture_output=True,
        text=True,
    ).stdout
    return int(output) / 1024


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__)
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        benches = (
            bench_answer,
            bench_durability,
            bench_import,
            bench_deck_list,
            bench_cli_start,
        )
        results = [bench(folder) for bench in benches]
        environment = {**os.environ, "RECALL_DATA_DIR": str(folder / "cli")}
        memory = {
            "recall decks": peak_memory_mb([sys.executable, "-m", "recall", "decks"], environment),
            "python -c 'import sqlite3'": peak_memory_mb(
                [sys.executable, "-c", "import sqlite3"], environment
            ),
        }
    if args.json:
        rows = [{**asdict(result), "ratio": round(result.ratio, 2)} for result in results]
        print(json.dumps({"timings": rows, "peak_rss_mb": memory}, indent=2))
        return
    print(f"{'benchmark':44} {'recall':>10} {'baseline':>10} {'ratio':>7}  baseline is")
    for result in results:
        print(
            f"{result.name:44} {result.recall_ms:8.2f}ms {result.baseline_ms:8.2f}ms "
            f"{result.ratio:6.1f}x  {result.baseline}"
        )
    print()
    for command, megabytes in memory.items():
        print(f"peak memory of {command}: {megabytes:.0f} MB")


if __name__ == "__main__":
    main()
