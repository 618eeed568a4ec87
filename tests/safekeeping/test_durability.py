"""No review is ever lost: kills mid-write, full disks, read-only folders, a busy database."""

from __future__ import annotations

import json
import random
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from recall.collection import importing, opening
from recall.content.deck_format import parse_deck
from recall.safekeeping import integrity
from recall.scheduling import Schedulers
from recall.storage import Database, StorageError, integrity_problems
from recall.study.session import StudySession
from tests.conftest import Clock, review_count, sqlite_limit

ROOT = Path(__file__).resolve().parents[2]
KILLS = 50


def bench_deck(cards: int) -> str:
    return json.dumps(
        {
            "format": "recall-deck",
            "version": 1,
            "id": "bench",
            "name": "Crash test",
            "cards": [
                {
                    "id": f"c{index}",
                    "type": "choice",
                    "question": f"Question {index}?",
                    "choices": [{"text": "right", "correct": True}, {"text": "wrong"}],
                }
                for index in range(cards)
            ],
        }
    )


@pytest.mark.slow
def test_killed_mid_answer_loses_no_committed_review(
    tmp_path: Path, clock: Clock, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "recall.sqlite3"
    database = Database(path)
    importing.import_deck(database, parse_deck(bench_deck(3000), "bench"), clock())
    database.close()
    rng = random.Random(2026)
    reported: set[int] = set()
    for _ in range(KILLS):
        worker = subprocess.Popen(
            [sys.executable, "-m", "tests.helpers.kill_worker", str(path)],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert worker.stdout is not None
        assert worker.stdout.readline() == "ready\n"
        time.sleep(rng.uniform(0.0, 0.15))
        worker.send_signal(signal.SIGKILL)
        worker.wait()
        reported.update(
            int(line.split()[1]) for line in worker.stdout if line.startswith("committed")
        )
        worker.stdout.close()

        assert integrity_problems(path) == []
        connection = sqlite3.connect(path)
        stored = {row[0] for row in connection.execute("SELECT id FROM review")}
        connection.close()
        assert reported <= stored, f"lost reviews: {sorted(reported - stored)[:10]}"

    after = Database(path)
    report = integrity.check(after, Schedulers(fuzz=True), clock().replace(year=2030))
    after.close()
    assert report.healthy, report.problems[:5]
    assert len(reported) > KILLS, "the worker should have answered between kills"
    with capsys.disabled():
        print(
            f"\n[kill test] kills: {KILLS}, reviews reported committed: {len(reported)}, "
            f"reviews found: {len(stored)}, all schedules equal their replay: {report.healthy}"
        )


@pytest.mark.parametrize(
    ("limit", "message"),
    [("query_only = ON", "read-only"), ("max_page_count = {pages}", "could not grow")],
)
def test_a_failed_save_says_why_and_can_be_retried(
    bundled: Database, clock: Clock, limit: str, message: str
) -> None:
    session = StudySession(bundled, Schedulers(fuzz=True), "activation-recompute")
    shown = session.next_card(clock())
    assert shown is not None
    answer = session.answer_choice(shown, {shown.order[0]}, clock.advance(seconds=4))
    pages = sqlite3.connect(bundled.path).execute("PRAGMA page_count").fetchone()[0]
    lift = sqlite_limit(bundled, f"PRAGMA {limit.format(pages=pages)}")

    def record_until_refused() -> None:
        for _ in range(1000):  # a full file shows once its free space is used up
            session.record(answer, answer.proposed, clock())

    with pytest.raises(StorageError, match=message):
        record_until_refused()
    saved = review_count(bundled.path)
    lift()
    session.record(answer, answer.proposed, clock())
    assert review_count(bundled.path) == saved + 1


def test_a_busy_database_says_it_is_in_use(tmp_path: Path, clock: Clock) -> None:
    path = tmp_path / "recall.sqlite3"
    Database(path).close()
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    # Opening an up-to-date file writes nothing, so it succeeds; the first write waits.
    database = Database(path, busy_timeout_ms=200)
    with pytest.raises(StorageError, match="in use by another program"):
        opening.install_bundled_decks(database, clock())
    holder.execute("ROLLBACK")
    holder.close()
    opening.install_bundled_decks(database, clock())
    database.close()
