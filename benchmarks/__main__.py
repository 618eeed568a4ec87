"""Run every benchmark: ``python -m benchmarks`` (or ``make bench``).

Recall is measured beside Anki (its own Python package, on an equivalent collection) and
beside the floor of what Python, Qt and SQLite allow, in the same run, with the two taking
turns. The results are printed as a table and written to docs/benchmarks.md. ``--smoke``
runs everything on small collections with few repeats and checks that the generated
collections are sound; CI runs it so the harness keeps working (its figures mean nothing).
``--million`` (``make bench`` passes it; CI never does) adds the growth to 1,000,000 cards:
the check, the searches, the statistics and the cold start on a collection ten times the
largest, generated once per anchor day (most of an hour) and cached like the others, and
the peak memory of importing its 1,000,000-card JSON deck.
"""

from __future__ import annotations

import argparse
import shutil
import sqlite3
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from benchmarks import (
    anki_packages,
    anki_peer,
    measure_answer,
    measure_balance,
    measure_desktop,
    measure_exam,
    measure_guesses,
    measure_history,
    measure_hostile,
    measure_import,
    measure_json_peak,
    measure_math,
    measure_queue,
    measure_reschedule,
    measure_search,
    measure_sound,
    measure_stats,
    measure_sync,
    measure_sync_media,
    measure_window,
    prepare,
)
from benchmarks import measure_start as start
from benchmarks.common import BENCHMARKS, CACHE, Figure, machine
from benchmarks.report import markdown, table
from recall.collection import opening
from recall.safekeeping import integrity
from recall.scheduling import Schedulers
from recall.storage import Database

DOCS = BENCHMARKS.parent / "docs" / "benchmarks.md"


@dataclass(frozen=True)
class Plan:
    """Sizes and repeats of one run."""

    sizes: tuple[int, ...]
    apkg_notes: int
    json_cards: int
    answers: int
    queue_rounds: int
    import_rounds: int
    json_rounds: int
    start_rounds: int
    history_rounds: int
    window_rounds: int
    sound_rounds: int
    stats_rounds: int
    search_rounds: int = 2
    reschedule_rounds: int = 2
    sync_rounds: int = 1
    sync_media_rounds: int = 5


FULL = Plan(
    (10_000, 100_000),
    10_000,
    100_000,
    500,
    200,
    5,
    3,
    7,
    1,
    1,
    15,
    5,
    search_rounds=7,
    reschedule_rounds=2,
    sync_rounds=2,
    sync_media_rounds=21,
)
MILLION = 1_000_000
# Rounds at 1,000,000 cards, where one of Anki's statistics or searches takes up to minutes:
# the median of three, as its own growth figure (ten times the largest regular size).
GROWTH_ROUNDS = 3
LONG_HISTORY_PER_NOTE = 114  # tenths of a review per card: 114,000 reviews for 10,000 notes
SMOKE = Plan((300,), 300, 300, 20, 10, 2, 2, 2, 2, 1, 3, 2)


_BEGAN = time.monotonic()


def _say(text: str) -> None:
    """A line of progress, led by the minutes and seconds since the run began."""
    minutes, seconds = divmod(int(time.monotonic() - _BEGAN), 60)
    print(f"[{minutes:3d}:{seconds:02d}] {text}", flush=True)


def _check(collections: prepare.Collections) -> None:
    """The generated Recall database passes ``recall check`` and stores its reviews in the
    order they were answered; Anki has the same cards."""
    database = Database(collections.recall_database)
    try:
        report = integrity.check(database, Schedulers(), datetime.now(UTC))
    finally:
        database.close()
    if not report.healthy:
        raise SystemExit(f"the generated database fails recall check: {report.problems[:3]}")
    collection = anki_peer.open_collection(collections.anki_collection, collections.cards)
    try:
        anki_cards = anki_peer.database(collection).scalar("SELECT count() FROM cards")
        anki_reviews = anki_peer.database(collection).scalar("SELECT count() FROM revlog")
    finally:
        collection.close()
    if (anki_cards, anki_reviews) != (report.cards, report.reviews):
        raise SystemExit(
            f"Anki has {anki_cards} cards and {anki_reviews} reviews; "
            f"Recall {report.cards} and {report.reviews}"
        )
    connection = sqlite3.connect(collections.recall_database)
    try:
        (disorder,) = connection.execute(
            "SELECT count(*) FROM review AS earlier JOIN review AS later "
            "ON later.id = earlier.id + 1 WHERE later.reviewed_at < earlier.reviewed_at"
        ).fetchone()
    finally:
        connection.close()
    if disorder:
        raise SystemExit(
            f"the generated reviews are not in the order they were answered ({disorder})"
        )
    _say(f"  checked: {report.cards} cards and {report.reviews} reviews in both, in time order")


def _size_figures(collections: prepare.Collections, work: Path, plan: Plan) -> list[Figure]:
    folder = work / f"size-{collections.cards}"
    folder.mkdir()
    recall_copy = folder / "recall.sqlite3"
    full_copy = folder / "recall-full.sqlite3"
    anki_copy = folder / "anki.anki2"
    shutil.copyfile(collections.recall_database, recall_copy)
    shutil.copyfile(collections.recall_database, full_copy)
    shutil.copyfile(collections.anki_collection, anki_copy)
    # As the app does when it opens the library: the follow-ups' summaries the generator
    # left marked stale are worked out and stored once, so that neither the queue read
    # afresh nor the first answers pay for every card's again.
    for copy in (recall_copy, full_copy):
        database = Database(copy)
        try:
            opening.upgrade_schedules(database, datetime.now(UTC))
        finally:
            database.close()
    _say(f"today's queue, {collections.cards:,} cards ...")
    collection = anki_peer.open_collection(anki_copy, collections.cards)
    try:
        queue = measure_queue.measure_queue(
            recall_copy, collection, collections.cards, collections.deck_key, plan.queue_rounds
        )
    finally:
        collection.close()
    _say(f"answering, {collections.cards:,} cards ...")
    answers = measure_answer.measure_answers(
        recall_copy,
        full_copy,
        anki_copy,
        collections.cards,
        collections.deck_key,
        folder,
        plan.answers,
    )
    _say(f"rescheduling after new parameters, {collections.cards:,} cards ...")
    reschedule = measure_reschedule.measure_reschedule(
        collections.recall_database,
        collections.anki_collection,
        collections.cards,
        folder,
        plan.reschedule_rounds,
    )
    retention = measure_reschedule.measure_reschedule(
        collections.recall_database,
        collections.anki_collection,
        collections.cards,
        folder,
        plan.reschedule_rounds,
        parameters_too=False,
    )
    _say(f"statistics, {collections.cards:,} cards ...")
    statistics = measure_stats.measure_stats(
        collections.recall_database,
        collections.anki_collection,
        collections.cards,
        collections.deck_key,
        folder,
        plan.stats_rounds,
    )
    return [*answers, queue, *statistics, reschedule, retention]


def _growth(
    plan: Plan, cache: Path, now: datetime, work: Path, failures: list[str]
) -> list[Figure]:
    """What must stay fast as a collection grows, on 1,000,000 cards: the check beside
    SQLite's own, the searches, the statistics, cold start and memory. A step that stops
    with an error is named in ``failures``; the others are still measured."""
    big = prepare.collections(MILLION, cache, now, _say)
    folder = work / "million"
    folder.mkdir()
    steps: list[tuple[str, Callable[[], list[Figure]]]] = [
        (
            "cold start and memory",
            lambda: start.measure_start(
                big.recall_database, big.deck_key, big.cards, folder, GROWTH_ROUNDS
            )[1:3],
        ),
        (
            "recall check beside SQLite's own",
            lambda: measure_history.measure_growth(
                big.recall_database, big.cards, folder, plan.history_rounds
            ),
        ),
        (
            "searching",
            lambda: measure_search.measure_search(
                big.recall_database, big.anki_collection, big.cards, folder, GROWTH_ROUNDS
            ),
        ),
        (
            "statistics",
            lambda: measure_stats.measure_stats(
                big.recall_database,
                big.anki_collection,
                big.cards,
                big.deck_key,
                folder,
                GROWTH_ROUNDS,
            ),
        ),
        (
            "peak memory of a JSON deck's import",
            lambda: [measure_json_peak.measure_json_peak(big.deck_file, big.cards, folder)],
        ),
    ]
    figures: list[Figure] = []
    for name, step in steps:
        _say(f"growth: {name}, {big.cards:,} cards ...")
        try:
            figures += step()
        except Exception as error:  # the other steps are still measured
            failures.append(f"growth, {name}, {big.cards:,} cards: {type(error).__name__}: {error}")
            _say(f"  growth, {name}: not measured: {error}")
    return figures


def run(plan: Plan, output: Path, command: str, smoke: bool, million: bool = False) -> list[Figure]:
    """Generate (or reuse) the collections, measure everything, write the report."""
    began = time.perf_counter()
    now = prepare.today()
    cache = prepare.cache_folder(now, CACHE / "smoke" if smoke else CACHE)
    made = [prepare.collections(size, cache, now, _say) for size in plan.sizes]
    if smoke:
        for collections in made:
            _check(collections)
    package = prepare.apkg(plan.apkg_notes, cache)
    with_history = anki_packages.packages(plan.apkg_notes, cache)
    long_history = anki_packages.packages(
        plan.apkg_notes, cache, reviews=plan.apkg_notes * LONG_HISTORY_PER_NOTE // 10
    )["latest"]
    json_deck = prepare.collections(plan.json_cards, cache, now, _say).deck_file
    largest = made[-1]
    figures: list[Figure] = []
    failures: list[str] = []  # measurements that stopped with an error, named in the report
    with tempfile.TemporaryDirectory(prefix="recall-bench-") as name:
        work = Path(name)
        _say("cold start and memory ...")
        started = start.measure_start(
            largest.recall_database, largest.deck_key, largest.cards, work, plan.start_rounds
        )
        figures += started[:2]
        if smoke:
            _say("beside Anki desktop: left out of the smoke run (make bench measures it)")
        else:
            _say("beside Anki desktop ...")
            figures += measure_desktop.measure_desktop(
                made[0].recall_database, made[0].anki_collection, made[0].cards, work, 5
            )
        for collections in made:
            figures += _size_figures(collections, work, plan)
        _say(f"history-wide work, {largest.cards:,} cards ...")
        figures += measure_history.measure_history(
            largest.recall_database,
            largest.anki_collection,
            largest.cards,
            work,
            plan.history_rounds,
        )
        _say(f"searching and the browser, {largest.cards:,} cards ...")
        figures += measure_search.measure_search(
            largest.recall_database,
            largest.anki_collection,
            largest.cards,
            work,
            plan.search_rounds,
        )
        _say(f"the window during long operations, {largest.cards:,} cards ...")
        figures += measure_window.measure_window(
            largest.recall_database, package, largest.cards, work, plan.window_rounds
        )
        _say("importing ...")
        figures.append(
            measure_import.measure_apkg(package, plan.apkg_notes, work, plan.import_rounds)
        )
        for kind, words in (("latest", "today's format"), ("legacy", "older format")):
            figures.append(
                measure_import.measure_apkg(
                    with_history[kind],
                    plan.apkg_notes,
                    work,
                    plan.import_rounds,
                    kind=f"{words}, with history",
                    made_by=(
                        "Basic notes with three reviews per card, exported by Anki itself "
                        + (
                            "with its default options (zstd collection.anki21b)"
                            if kind == "latest"
                            else 'with "Support older Anki versions" (collection.anki21)'
                        )
                    ),
                )
            )
        long_reviews = plan.apkg_notes * LONG_HISTORY_PER_NOTE // 10
        figures.append(
            measure_import.measure_apkg(
                long_history,
                plan.apkg_notes,
                work,
                plan.import_rounds,
                kind=f"today's format, {long_reviews:,} reviews",
                made_by=(
                    f"Basic notes with {LONG_HISTORY_PER_NOTE / 10:.1f} reviews per card, "
                    "exported by Anki itself with its default options"
                ),
            )
        )
        figures.append(
            measure_import.measure_json(json_deck, plan.json_cards, work, plan.json_rounds)
        )
        _say(f"sync, {largest.cards:,} cards ...")
        figures += measure_sync.measure_sync(
            largest.recall_database,
            largest.anki_collection,
            largest.deck_key,
            largest.cards,
            cache,
            work,
            plan.sync_rounds,
        )
        _say("sync with 2,000 media files ...")
        figures.append(measure_sync_media.measure_sync_media(work, plan.sync_media_rounds))
        _say("hostile packages ...")
        figures += measure_hostile.measure_hostile(package, with_history["latest"], cache, work)
        figures += started[2:]
        if million:
            try:
                figures += _growth(plan, cache, now, work, failures)
            except Exception as error:  # the run's other figures are still reported
                failures.append(f"the growth to {MILLION:,} cards: {type(error).__name__}: {error}")
                _say(f"  growth: not measured: {error}")
        _say("a card's sound ...")
        sound = measure_sound.measure_sound(work, plan.sound_rounds)
        if isinstance(sound, str):
            _say(f"  a card's sound: not measured: {sound}")
        else:
            figures.append(sound)
        _say("formulas ...")
        figures.append(measure_math.measure_math(2 if smoke else 5))
        _say("damaged sounds, decoded apart ...")
        figures.append(
            measure_sound.measure_fuzz(work, 60 if smoke else measure_sound.FUZZ_MUTANTS)
        )
        _say("exam forecast against a simulated learner ...")
        cards, days = (200, 14) if smoke else (1000, 30)
        figures.append(measure_exam.measure_exam(work, cards, days))
    _say("load balancing and Easy Days over a simulated year ...")
    cards, days, per_day = (
        measure_balance.SMOKE
        if smoke
        else (measure_balance.CARDS, measure_balance.DAYS, measure_balance.NEW_PER_DAY)
    )
    balanced = measure_balance.section(
        measure_balance.measure_balance(cards, days, per_day), cards, days, per_day
    )
    print()
    print(table(figures))
    output.parent.mkdir(parents=True, exist_ok=True)
    if failures:
        balanced = [
            *balanced,
            "",
            "## Not measured in this run",
            "",
            *(f"- {failure}" for failure in failures),
        ]
    output.write_text(markdown(figures, machine(), datetime.now(UTC), command, smoke, balanced))
    # Its own section, after the figures: fits on histories, not timings.
    measure_guesses.run(output, command, smoke)
    print()
    _say(f"wrote {output} in {time.perf_counter() - began:.0f} s")
    if failures:
        raise SystemExit(f"not measured: {'; '.join(failures)} (named in {output})")
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__)
    parser.add_argument("--smoke", action="store_true", help="small collections, few repeats")
    parser.add_argument("--output", type=Path, help="where to write the Markdown report")
    parser.add_argument(
        "--million", action="store_true", help="add the growth to 1,000,000 cards (not in CI)"
    )
    args = parser.parse_args()
    if args.smoke:
        run(SMOKE, args.output or CACHE / "smoke" / "benchmarks.md", "make bench-smoke", True)
    else:
        command = "make bench" if args.million else "python -m benchmarks"
        run(FULL, args.output or DOCS, command, False, million=args.million)


if __name__ == "__main__":
    main()
