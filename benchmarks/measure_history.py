"""History-wide work on the largest collection: check, export the review log, restore, replay.

Each runs on its own copy of the generated files, beside its baseline in the same run:
Anki's Check Database on the same collection, the floor of ``sqlite3`` and ``csv``
writing the same rows, SQLite's backup API alone, and py-fsrs's ``review_card`` over the
same reviews in a plain loop.
"""

from __future__ import annotations

import csv
import shutil
import sqlite3
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import fsrs

from benchmarks import anki_peer
from benchmarks.common import Figure, alternate, elapsed_ms
from recall.collection import review_log
from recall.safekeeping import backups, integrity
from recall.scheduling import Scheduler, Schedulers
from recall.storage import Database

CHECK_GOAL_MS = 2_000.0
EXPORT_GOAL_MS = 2_000.0
EXPORT_GOAL_RATIO = 2.0
RESTORE_GOAL_MS = 3_000.0
REPLAY_GOAL_RATIO = 1.5
# From this size on, `recall check --full` must take no longer than SQLite's check alone.
SQLITE_GOAL_FROM = 1_000_000


def measure_history(
    recall_database: Path, anki_collection: Path, cards: int, work: Path, rounds: int
) -> list[Figure]:
    """The four history-wide figures of one collection size."""
    folder = work / f"history-{cards}"
    folder.mkdir()
    database_copy = folder / "recall.sqlite3"
    shutil.copyfile(recall_database, database_copy)
    anki_copy = folder / "anki.anki2"
    shutil.copyfile(anki_collection, anki_copy)
    return [
        *_check(database_copy, anki_copy, cards, rounds),
        _export(database_copy, folder, cards, rounds),
        _restore(database_copy, folder, cards, rounds),
        _replay(database_copy, cards, rounds),
    ]


# Cards changed between two checks in the figure of `recall check`: about a day of study.
CHANGED_BETWEEN_CHECKS = 1_000


def measure_growth(recall_database: Path, cards: int, work: Path, rounds: int) -> list[Figure]:
    """The check at a size where the goal is SQLite's own check, not Anki's: `recall check`
    and `recall check --full` beside `PRAGMA integrity_check` alone on the same file.

    Anki's Check Database, the review log, the restore and the replay's py-fsrs floor are
    measured at the largest regular size; at 1,000,000 cards they would add most of an hour
    and no goal reads them."""
    folder = work / f"growth-{cards}"
    folder.mkdir()
    database_copy = folder / "recall.sqlite3"
    shutil.copyfile(recall_database, database_copy)
    return _check(database_copy, None, cards, rounds)


def _check(database_path: Path, anki_path: Path | None, cards: int, rounds: int) -> list[Figure]:
    """`recall check` (after a full verification, a day's cards changed) and
    `recall check --full`, each beside Anki's Check Database."""
    database = Database(database_path)
    schedulers = Schedulers()
    reviews = replayed = 0

    def recall_check(full: bool) -> float:
        nonlocal reviews, replayed
        if not full:
            # Notes as many cards as a day of study would (their values stay the same).
            connection = sqlite3.connect(database_path)
            connection.execute(
                "UPDATE card_memory SET due = due WHERE card_id IN "
                f"(SELECT card_id FROM card_memory ORDER BY card_id DESC "
                f"LIMIT {CHANGED_BETWEEN_CHECKS})"
            )
            connection.commit()
            connection.close()
        start = datetime.now(UTC)
        report: list[integrity.CheckReport] = []
        took = elapsed_ms(
            lambda: report.append(integrity.check(database, schedulers, start, full=full))
        )
        if not report[0].healthy:
            raise SystemExit(f"the benchmark database fails recall check: {report[0].problems}")
        reviews, replayed = report[0].reviews, report[0].replayed
        return took

    collection = None if anki_path is None else anki_peer.open_collection(anki_path, cards)
    sqlite_alone: list[float] = []

    def recall_then_sqlite() -> float:
        took = recall_check(True)
        sqlite_alone.append(_sqlite_check(database_path))
        return took

    try:
        if collection is None:
            full = [recall_then_sqlite() for _ in range(rounds)]
            theirs = sqlite_alone
            anki = "floor: SQLite's integrity_check alone on the same file"
        else:
            full, theirs = alternate(
                recall_then_sqlite, lambda: elapsed_ms(collection.fix_integrity), rounds
            )
            anki = "Anki: Check Database (col.fix_integrity()) on the same collection"
        changed = [recall_check(False) for _ in range(max(rounds, 3))]
    finally:
        if collection is not None:
            collection.close()
        database.close()
    goal = f"Recall's median <= {CHECK_GOAL_MS / 1000:g} s"
    return [
        _with_goal(
            Figure(
                title=f"recall check, {cards:,} cards",
                measures=(
                    f"`recall check` over {reviews:,} reviews after a full verification, with "
                    f"{replayed:,} cards changed since (about a day of study): SQLite's quick "
                    "check and foreign-key check, the changed cards' schedules against the "
                    "replay of their histories, and the other cards' notes"
                ),
                recall=changed,
                baseline_name=anki,
                baseline=theirs,
                goal=goal,
            ),
            lambda figure: figure.recall_median <= CHECK_GOAL_MS,
        ),
        _with_goal(
            Figure(
                title=f"recall check --full, {cards:,} cards",
                measures=(
                    f"`recall check --full` over {reviews:,} reviews: SQLite's integrity and "
                    "foreign-key checks, then every card's schedule against the replay of "
                    "its history"
                ),
                recall=full,
                baseline_name=anki,
                baseline=theirs,
                goal=goal,
            ),
            lambda figure: figure.recall_median <= CHECK_GOAL_MS,
        ),
        _beside_sqlite(full, sqlite_alone, cards),
    ]


def _beside_sqlite(full: list[float], sqlite_alone: list[float], cards: int) -> Figure:
    figure = Figure(
        title=f"recall check --full beside SQLite's own check, {cards:,} cards",
        measures=(
            "the same `recall check --full` samples beside `PRAGMA integrity_check` alone on "
            "the same file (Python's sqlite3 with SQLite's default page cache), each right "
            "after the other: Recall's whole check, SQLite's part run on a thread beside the "
            "replay, against SQLite's part alone"
        ),
        recall=full,
        baseline_name="floor: SQLite's integrity_check alone",
        baseline=sqlite_alone,
        goal=(
            "ratio <= 1 (from 1,000,000 cards: grows no faster than SQLite's own check)"
            if cards >= SQLITE_GOAL_FROM
            else ""
        ),
    )
    if cards < SQLITE_GOAL_FROM:
        return figure
    return _with_goal(figure, lambda made: made.ratio <= 1.0)


def _sqlite_check(path: Path) -> float:
    """SQLite's full integrity check alone, as a program with default settings runs it."""
    connection = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    try:
        took = elapsed_ms(lambda: connection.execute("PRAGMA integrity_check").fetchall())
    finally:
        connection.close()
    return took


def _export(database_path: Path, folder: Path, cards: int, rounds: int) -> Figure:
    database = Database(database_path)
    target = folder / "reviews.csv"
    floor_target = folder / "floor.csv"

    def recall_export() -> float:
        return elapsed_ms(lambda: review_log.write_review_log(database, target))

    def floor_export() -> float:
        def write() -> None:
            connection = sqlite3.connect(database_path)
            try:
                with floor_target.open("w", encoding="utf-8", newline="") as out:
                    writer = csv.writer(out, lineterminator="\n")
                    writer.writerow(review_log.REVIEW_LOG_HEADER)
                    writer.writerows(
                        connection.execute(
                            "SELECT card.seed, (reviewed_at + 500) / 1000, rating, "
                            "state_before, duration_ms FROM review CROSS JOIN card "
                            "ON card.id = review.card_id WHERE review.kind = 0 "
                            "ORDER BY reviewed_at, uid"
                        )
                    )
            finally:
                connection.close()

        return elapsed_ms(write)

    try:
        ours, theirs = alternate(recall_export, floor_export, rounds)
    finally:
        database.close()
    rows = sum(1 for _ in target.open(encoding="utf-8")) - 1
    return _with_goal(
        Figure(
            title=f"recall export-reviews, {cards:,} cards",
            measures=(
                f"the FSRS review-log CSV of {rows:,} reviews written to a file, all or nothing"
            ),
            recall=ours,
            baseline_name="floor: sqlite3 and csv writing the same rows",
            baseline=theirs,
            goal=(
                f"Recall's median <= {EXPORT_GOAL_MS / 1000:g} s and ratio <= {EXPORT_GOAL_RATIO:g}"
            ),
        ),
        lambda figure: figure.recall_median <= EXPORT_GOAL_MS and figure.ratio <= EXPORT_GOAL_RATIO,
    )


def _restore(database_path: Path, folder: Path, cards: int, rounds: int) -> Figure:
    live = folder / "live" / "recall.sqlite3"
    live.parent.mkdir()
    shutil.copyfile(database_path, live)
    database = Database(live)
    backup = backups.make_backup(database, datetime.now(UTC), "benchmark")
    schedulers = Schedulers()
    floor_target = folder / "floor-restore.sqlite3"
    shutil.copyfile(database_path, floor_target)

    def recall_restore() -> float:
        return elapsed_ms(lambda: backups.restore(database, backup, schedulers, datetime.now(UTC)))

    def floor_restore() -> float:
        def copy() -> None:
            source = sqlite3.connect(f"file:{backup}?mode=ro", uri=True)
            target = sqlite3.connect(floor_target)
            try:
                source.backup(target)
            finally:
                target.close()
                source.close()

        return elapsed_ms(copy)

    try:
        ours, theirs = alternate(recall_restore, floor_restore, rounds)
    finally:
        database.close()
    return _with_goal(
        Figure(
            title=f"Restore a backup, {cards:,} cards",
            measures=(
                "`recall restore` of a backup of the same database: the check of its schema, "
                "the before-restore backup, the copy into the live file from one read "
                "snapshot of the backup with SQLite's quick check and foreign-key check of "
                "that snapshot on a second thread beside it (the copy commits once they "
                "pass), and the check of the restored contents that follows"
            ),
            recall=ours,
            baseline_name="floor: SQLite's backup API copying the backup into a file",
            baseline=theirs,
            goal=f"Recall's median <= {RESTORE_GOAL_MS / 1000:g} s",
        ),
        lambda figure: figure.recall_median <= RESTORE_GOAL_MS,
    )


def _replay(database_path: Path, cards: int, rounds: int) -> Figure:
    database = Database(database_path)
    scheduler = Scheduler()
    epoch = datetime(1970, 1, 1, tzinfo=UTC)
    with database.reading() as transaction:
        stored = transaction.history.schedules_and_histories()
        histories = [
            # The generated histories hold answers only: (time, rating) each.
            (seed, [(epoch + timedelta(microseconds=entry[1]), entry[2]) for entry in history])
            for _card, seed, _deck, _schedule, history in stored
        ]
    reviews = sum(len(history) for _, history in histories)
    plain = fsrs.Scheduler(enable_fuzzing=False)
    ratings = {value: fsrs.Rating(value) for value in range(1, 5)}

    def recall_replay() -> float:
        def replay_all() -> None:
            with database.reading() as transaction:
                for (
                    card_id,
                    seed,
                    _deck,
                    stored,
                    history,
                ) in transaction.history.schedules_and_histories():
                    if scheduler.replay_raw(seed, history) != stored:
                        raise SystemExit(f"card {card_id}: its replay differs from its schedule")

        return elapsed_ms(replay_all)

    def floor_replay() -> float:
        def loop() -> None:
            for card_id, history in histories:
                card = fsrs.Card(card_id=card_id)
                for moment, rating in history:
                    card, _log = plain.review_card(card, ratings[rating], moment)

        return elapsed_ms(loop)

    try:
        ours, theirs = alternate(recall_replay, floor_replay, rounds)
    finally:
        database.close()
    return _with_goal(
        Figure(
            title=f"Replay every card's history, {cards:,} cards",
            measures=(
                f"every card's {reviews:,} reviews read from the database in one pass and "
                "replayed through Recall's scheduler (fuzz included) and compared with its "
                "stored schedule, as `recall check --full` does"
            ),
            recall=ours,
            baseline_name=(
                "floor: py-fsrs review_card over the same reviews, held in memory, in a "
                "plain loop without fuzz"
            ),
            baseline=theirs,
            goal=f"ratio <= {REPLAY_GOAL_RATIO:g}",
        ),
        lambda figure: figure.ratio <= REPLAY_GOAL_RATIO,
    )


def _with_goal(figure: Figure, met: Callable[[Figure], bool]) -> Figure:
    return Figure(**{**figure.__dict__, "goal_met": met(figure)})
