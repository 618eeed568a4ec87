"""The results as a terminal table and as docs/benchmarks.md."""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import datetime

from benchmarks.common import Figure, Machine

# Why a goal is missed and what would close it: found with cProfile and -X importtime on
# the development machine; the numbers beside them come from each run. Each key is a
# regular expression matched at the start of a figure's title; the first that matches wins.
ANALYSIS = {
    "Answer a card": (
        "An answer is one write transaction on the study session's own connection "
        "(the review and the new schedule, committed with synchronous=FULL); the next "
        "card and today's counts then come from the queue kept in memory. The FSRS "
        "step runs on integers (about 35 us, equal to py-fsrs to the bit). Counted "
        "per answer on the 100,000-card file (in brackets before the row read to show "
        "the card was kept to check its answer while the database's stamp is "
        "unchanged): a card's own answer 24 statements (25), a follow-up answer 22 "
        "(23); 16-18 WAL pages for a card's own answer and 7-10 for a follow-up. "
        "Where its time goes (synchronous=NORMAL, a quiet machine, 100,000 cards): the "
        "review's insert with its five triggers about 70 us (43 without them), the card's "
        "read 20-35 us, a follow-up answer's re-read of the card's history and follow-ups "
        "about 100 us, two PRAGMA data_version about 18 us, the rest Python around them; "
        "at synchronous=FULL the commit's fsync adds about 0.25 ms on this disk whatever "
        "the pages, as Anki's does, so Anki's answer is about 0.1 ms of CPU against "
        "Recall's 0.35. Load balancing's count of "
        "the cards due on each candidate day is kept by the session between answers "
        "and moved by each one (`KeptLoads`): only days no earlier answer asked "
        "about are counted in SQL (23 counts over 300 answers before, 4 after, each "
        "1.2-1.6 ms). The rest is the durable commit, whose cost the floor's own "
        "answer shows. What would close it: a follow-up answer's new standing worked "
        "out from the one read before it and the new entry, and fewer indexes on "
        "card_memory (each costs pages per commit)."
    ),
    "Today's queue": (
        "The next card and the counts come from the queue kept in memory: one PRAGMA "
        "data_version (a few us), one read transaction for the card's row, then parsing the "
        "card's JSON (pydantic) and shuffling its choices, about 50 us in all; Anki's "
        "get_queued_cards runs in Rust. What would close more: keeping the next card's row "
        "and parsed content with the queue."
    ),
    r"Import a [\d,]+-card Recall JSON": (
        "Profiled by CPU time beside the floor in the same run: the deck is read card "
        "by card from a window over the file (1,000,000 cards in under 300 MB), the "
        "collector is paused, each card's search text is worked out from its model "
        "and written with it (SQL derived it afterwards with a json_extract per "
        "field: 2.0 s of 11.9 s), and new cards' seeds come from one read of the "
        "system's randomness per batch. Reading is 70% of the import: pydantic's "
        "validation of every card about 17%, the JSON scanner 12%, the check for "
        "repeated keys 5%, the stored JSON 6%, the search text 6%; the write 29%. The "
        "floor trusts the file: it neither validates a card nor bounds its Markdown. "
        "What would close it: validating the deck format without pydantic (a checker "
        "written for the format's fields, held to the same problems by the existing "
        "damaged-deck tests)."
    ),
    "Import a": (
        "Profiled by CPU time (the figure's notes give Recall's and Anki's): per-row "
        "triggers, the garbage collector, a second replay per card and the per-deck "
        "history filter are gone (from 500 cards on the insert triggers are lifted "
        "and their work done once per set, storage/bulk_rows.py), and from 10,000 "
        "reviews at once, as many as the table holds, the review table's indexes are "
        "built after the batch instead of taking each row at a random place (a "
        "quarter less CPU for 114,000 reviews). What remains for 10,000 notes is the "
        "per-card loop in Python, about two thirds of the import (rendering both "
        "sides from the note type's templates, media and sound scanning, cleaning, "
        "bounds, a pydantic card each; no part above a sixth of it). With history, in "
        "the profile of the 114,000-review package: the FSRS replay once per card "
        "about a fifth, the card loop about a sixth, reading the revlog with a "
        "datetime and a record per row about a twelfth, then review ids and a record "
        "per review. Anki builds its cards in Rust, does not clean the HTML and "
        "replays nothing. What would close it: cards built in SQL from the attached "
        "collection (one INSERT ... SELECT per note type whose templates only name "
        "fields) with each distinct field cleaned once by a registered function (the "
        "safe subset passed, the rest through nh3), and the revlog read as integers "
        "straight into the replay and the insert. Timed by part for the 10,000-note "
        "package with 30,000 reviews (2.0 s in all, quiet machine): reading the package "
        "0.6 s, the replay 0.25 s, the answers' insert 0.36 s, Anki's due days and memory "
        "states as entries 0.11 s and the schedules' update 0.08 s (0.19 s and 0.21 s "
        "before both went in with the indexes or the check's trigger lifted, "
        "storage/bulk_rows.py), the cards 0.1 s."
    ),
    "Cold start": (
        "`python -X importtime` and the children's CPU time (getrusage) show where "
        "the time goes beyond the floor, which imports PySide6, sqlmodel and fsrs and "
        "paints an empty window. Done: the follow-ups askable today are read in SQL "
        "along the summary's index and made objects only when looked at, the deck "
        "list counts them per deck in SQL (its read 0.56 s -> 0.14 s at 100,000 "
        "cards, the first card 0.65 s -> 0.28 s), the command groups, the backups "
        "dialog, the search syntax and the sync folder's code are imported on first "
        "use. What is left: pydantic and the deck format's models, imported to parse "
        "the one card shown (`CARD_ADAPTER.validate_json` in the study session; the "
        "review screen's widgets take those models), most of the gap; the deck "
        "options, sync and collection actions built with the window's menus; the "
        "queue's read of today's askable follow-ups (about 0.26 s for 11,607 rows at "
        "100,000 cards, half of it columns needed only later). What would close it: "
        "the shown card read as plain values with the review screen taking them, and "
        "the menus' actions made on first use."
    ),
    "Statistics computed": (
        "The history is read from counts kept in the file (answers per deck and study "
        "day and per day and hour, summed in SQL in under 0.1 s; the wrong options' "
        "picks per card, a few ms) and each card's follow-up standing from its kept "
        "summary (schema 22). The card counts and the four distributions of memory "
        "are one walk of the schedules, each measure counted in its bucket inline: "
        "0.69 s of CPU at 100,000 cards, 7.0 s at 1,000,000 (by hand on a copy ten "
        "times the 100,000-card file, under load), nearly all of the figure there. "
        "Reading the million schedule rows into Python alone takes about 2 s, so no "
        "walk in Python meets 1 s at that size. What would close it: the "
        "distributions kept by triggers on card_memory (a count per bucket and deck, "
        "moved by each schedule write, rebuilt by recall check), read in a few ms; "
        "each such trigger adds pages to every answer's commit, so it must be weighed "
        "against the answer figure."
    ),
    "`recall stats --json`": (
        "A new process that opens the library, computes every figure and prints them with "
        "each card's item analysis. Profiled at 100,000 cards (cProfile, 85.6 s in all, "
        "of it 20.8 s the first opening's one-off work, which the benchmark now does "
        "before its rounds: the time zone named, every schedule replayed on its study "
        "days, the day counts recounted): the item analysis 44.2 s (every picked answer "
        "read, 10.1 s; each card's JSON read as its model, 4.6 s; each option's picks "
        "counted and rated, 22.5 s), the figures 11.9 s (10.3 s of it the day counts "
        "recounted for the newly named time zone, once too), printing 4.1 s (81 MB of JSON). "
        "At 1,000,000 cards the first run did not finish within 300 s. Since then the item "
        "analysis reads each stored card as plain JSON (no pydantic loaded), counts the "
        "answers with one GROUP BY in the review table's order, keeps its figures in "
        "named tuples with the collector paused, and writes each card's line itself, a "
        "thousand at a time: 86 to 26 us a card at 100,000 cards (9.0-9.6 s to 2.9-3.2 s "
        "for the command, by hand), the grouped read now the largest part (8.4 us a "
        "card). What would close it: the item analysis kept per card, marked stale by "
        "triggers as the follow-ups' summary is, and printed only when asked for."
    ),
    "Statistics window": (
        "The first chart is the forecast, computed before anything else from a partial "
        "index of the studied, unsuspended cards by deck and due date; the rest of the "
        "schedules' figures and then the history's follow on the task runner's thread "
        "(every section is filled after about 2 s at 100,000 cards)."
    ),
    "recall check --full": (
        "A profile (cProfile and CPU time): SQLite's full integrity check about 1.8-4 "
        "s on this file (it verifies that every index matches its table; it runs on a "
        "thread of its own, with a 256 MiB page cache, and releases Python's lock), "
        "reading the schedules and the history as plain integers about 2.6 s (1.8 s "
        "of it SQLite's own fetch of the rows), the replay about 2.5 s after its fuzz "
        "ranges were kept per interval (11% less), the other checks under 0.5 s. On "
        "two cores the CPU of SQLite's check and of the read and replay together is "
        "more than 2 s a core even when they overlap perfectly, so the goal needs "
        "less CPU as well as both cores. What would close it: the replay of card "
        "ranges in worker processes (spawn-safe under the window's task runner, "
        "freeze_support in the packaged app, cancellation and progress across "
        "processes, one snapshot shared by every worker), and a read of the history "
        "that does not go through Python's row objects."
    ),
    "recall check": (
        "After a full verification, the check replays only the cards the database's "
        "triggers noted as changed since, so what remains is SQLite's quick check of the "
        "whole file (most of the time) and its foreign-key check. Where the goal is missed, "
        "look at the machine's load first (the quick check is disk and CPU bound), then at "
        "how many cards were noted: a preset change makes the next check replay every card."
    ),
    "recall export-reviews": (
        "The log is read in time order through a covering index (no row looked up) and "
        "each batch of 10,000 rows is formatted with one string format per row, which is "
        "faster than the floor's csv writer; what remains is Python making a tuple of five "
        "integers per row and writing the text. Where the 2 s goal is missed, the floor "
        "misses it by more: the machine's load is the first thing to look at."
    ),
    "Search ": (
        "Every search reads the schedules (card_memory) alone, joins the card's row only for "
        "a term on its texts, flag or times and the deck's only for the deck-name sort, finds "
        "a deck's cards through the card table's index by deck, and sorts by due on one key "
        "(a new card's missing due as a time past every other), with each card's position "
        "kept beside its schedule (schema 17). What remains at 90,000 matches "
        "(prop:ivl>=10): the sort of the matches (about half) and the walk of the schedules "
        "with the interval worked out per row (about a third); for rated:7, the cards "
        "answered in the period read from the index by time and a look-up of each card's "
        "schedule. What would close it: the interval stored with the schedule, as Anki "
        "stores it. The machine's load swings these figures by 30% between runs."
    ),
    "Window frozen during": (
        "The operation runs on the task runner's worker thread; a gap on the window's thread "
        "means the worker held Python's lock in one long call into compiled code, the "
        "garbage collector made a full pass over many live objects, or the window's thread "
        "itself worked when the operation ended. Seen so far: full collections on the "
        "worker, which hold the lock for the whole pass (1 s a pass while a deck's export "
        "loaded every card, 135-224 ms during an import, 52 ms during a check, over the "
        "window's own 85,000 objects), so the task runner lets none start while a job runs "
        "and the window's startup objects are frozen out of them (`gc.freeze`); and the "
        "deck list's counts or the backups list read on the window's thread afterwards "
        "(about 100 ms each at 100,000 cards), now read by the worker; and the window's "
        "database watch waiting for the watched connection while a task's read through "
        "it waited for a restore's copy (106-151 ms), now a look skipped. Finding which: a "
        "timer thread sampling `sys._current_frames()` beside the operation (when it goes "
        "quiet too, the lock is held), `gc.callbacks` timing each collection, or py-spy "
        "with --gil."
    ),
    "Restore a backup": (
        "A backup of today's schema is copied into the live file from one read snapshot of "
        "it while SQLite's quick check and foreign-key check of the same snapshot run on a "
        "second thread (SQLite lets go of Python's lock while it checks); the copy's last "
        "step, which commits it, waits for them. Only an older backup is staged beside the "
        "database to be upgraded. What remains: the before-restore backup, the copy into "
        "the live file, the quick check where it outlasts the copy (on a busy machine the "
        "two threads share a core) and closing and reopening the database (a WAL "
        "checkpoint), each protecting against losing data. What would close more: skipping "
        "the quick check of a backup Recall made itself and has checked since (a stored "
        "digest of the file), which would trust the disk."
    ),
    "Replay every card's history": (
        "Recall's replay applies py-fsrs's formulas on plain integers (scheduling/replay.py, "
        "equal to py-fsrs to the bit, a property test holds it) and fuzzes only each card's "
        "last interval; the floor is py-fsrs's own review_card without fuzz. Where it "
        "misses, profile `Replayer.replay`: the per-card fuzz draw (seeding Python's "
        "Mersenne Twister) and reading the rows are the parts that do not shrink with "
        "fewer formulas."
    ),
    "Start to the deck list beside Anki desktop": (
        "Both start from a warm cache on the same X screen. Recall's start is Python, "
        "PySide6 and its own window; Anki desktop also starts Chromium's web engine for "
        "its deck browser."
    ),
    "Exam forecast": (
        "Measured over seeds (1,000 cards, 30 days). With load balancing choosing the "
        "days, the learner simulated through the study session kept 84.9-88.2% over five "
        "trials at the plan's answers a day, 3.0-6.0 points under the first day's plan and "
        "within 0.8 of the eve's prediction: the forecast simulates study with the plain "
        "fuzz's days. Until an exam the study session now keeps those days (seeds 1-3: "
        "92.8%, 90.5%, 90.3% against plans of 91.6%, 92.3%, 90.5%). What is left: the plan "
        "is the least number of answers a day whose one seeded path reaches the target, so "
        "it takes a lucky path (at 129 a day the forecast's own paths give 88.1-91.6% over "
        "six seeds; the share moves about 0.5 points per answer a day there). What would "
        "close it: the search run on the mean of several seeded paths (each a full "
        "simulation, 0.25 s at this size, off the window's thread with its progress)."
    ),
    "Peak memory": (
        "An empty Qt window peaks at about 50 MB; the floor (PySide6, sqlmodel, fsrs "
        "and an empty window) at about 107 MB, so 1.5x an empty window is less than "
        "the floor itself: about 86 MB are in place before Recall opens a database "
        "(Python, PySide6, pydantic for the deck format, fsrs). Recall's window, the "
        "queue and SQLite's page cache add the rest (about 125 MB in all at 100,000 "
        "cards). What would close it: the shown card read without pydantic (so "
        "pydantic is not loaded at start), the menus' actions made on first use, and "
        "a smaller page cache for the window's read connection."
    ),
}


# Screenshots taken by hand from the real window; make bench does not retake them.
SCREENSHOTS = (
    "Screenshots from the real window under Xvfb on the 100,000-card collection (921,447 "
    "reviews), taken while the window was moved and dragged in: Tools > Check Database "
    "replaying every card after the upgrade, its progress advancing beside the window "
    "while the Tools menu is open (Check Database itself off while it runs; browsing, "
    "adding cards and studying stay on) "
    "([docs/check-database-progress.png](check-database-progress.png)), and File > Backups "
    "restoring a backup ([docs/restore-progress.png](restore-progress.png)). A restore "
    "replaces the database, so its progress is window-modal: the window moves and "
    "repaints, and its menus wait until the restore is done."
)


def _number(value: float, unit: str) -> str:
    if unit == "%":
        return f"{value:.1f}%"
    if unit == "MB":
        return f"{value:.0f} MB"
    if value >= 100:
        return f"{value:,.0f} ms"
    return f"{value:.2f} ms"


def _recall_cell(figure: Figure) -> str:
    text = _number(figure.recall_median, figure.unit)
    if figure.tail:
        text += f" (p99 {_number(figure.recall_p99, figure.unit)})"
    return text


def _baseline_cell(figure: Figure) -> str:
    text = _number(figure.baseline_median, figure.unit)
    if figure.tail:
        text += f" (p99 {_number(figure.baseline_p99, figure.unit)})"
    return f"{figure.baseline_name}: {text}"


ONE_FRAME_MS = 16.0


def _frame_goal(figure: Figure) -> str:
    """The second goal of answering: p99 within one frame, commit included."""
    verdict = "met" if figure.recall_p99 < ONE_FRAME_MS else "missed"
    return f"Recall's p99 < {ONE_FRAME_MS:g} ms: **{verdict}**"


def _goal_cell(figure: Figure) -> str:
    if not figure.goal:
        return ""
    verdict = "met" if figure.goal_met else "missed"
    cell = f"{figure.goal}: **{verdict}**"
    if figure.title.startswith("Answer a card"):
        cell += f"; {_frame_goal(figure)}"
    return cell


def table(figures: Sequence[Figure]) -> str:
    """A plain-text table for the terminal."""
    lines = [f"{'figure':58} {'recall':>22} {'baseline':>22} {'ratio':>7}  goal"]
    for figure in figures:
        baseline = _number(figure.baseline_median, figure.unit)
        if figure.tail:
            baseline += f" (p99 {_number(figure.baseline_p99, figure.unit)})"
        verdict = "" if not figure.goal else ("met" if figure.goal_met else "MISSED")
        lines.append(
            f"{figure.title[:58]:58} {_recall_cell(figure):>22} {baseline:>22} "
            f"{figure.ratio:6.2f}x  {verdict}"
        )
        lines.append(f"{'':58}   baseline: {figure.baseline_name}")
    return "\n".join(lines)


def _shortfall(figure: Figure) -> str:
    if figure.title.startswith("Today's queue"):
        return (
            f"the median is {figure.recall_median:.2f} ms and the ratio {figure.ratio:.2f} "
            f"({figure.goal})"
        )
    if "longest gap" in figure.goal:
        return f"the longest gap was {max(figure.recall):.0f} ms ({figure.goal})"
    if "median <=" in figure.goal:
        return (
            f"the median is {_number(figure.recall_median, figure.unit)} and the ratio "
            f"{figure.ratio:.2f} ({figure.goal})"
        )
    return f"the ratio is {figure.ratio:.2f} ({figure.goal})"


def markdown(
    figures: Sequence[Figure],
    machine: Machine,
    when: datetime,
    command: str,
    smoke: bool,
    sections: Sequence[str] = (),
) -> str:
    """docs/benchmarks.md: every figure, what it measures, the goals, the machine, the date;
    ``sections`` (lines of Markdown) follow, for measurements that are not timings."""
    lines = [
        "# Benchmarks: Recall beside Anki and the floor",
        "",
        f"Written by `{command}` on {when:%Y-%m-%d %H:%M} UTC at commit "
        f"{machine.revision}. Each figure is the median of "
        "runs that alternate Recall and its baseline in the same run (p99 where a learner "
        "feels the latency); compare ratios between runs, since absolute times on shared "
        "machines drift.",
        "",
    ]
    if smoke:
        lines += [
            "**This is a smoke run on small collections, not a measurement.**",
            "",
        ]
    lines += [
        "## The machine",
        "",
        f"- {machine.cores} cores, {machine.cpu}",
        f"- {machine.system}, Python {machine.python}, SQLite {machine.sqlite} (Recall, "
        "through Python's sqlite3; Anki bundles its own)",
        "",
        "## Figures",
        "",
        "| Figure | Recall | Baseline in the same run | Ratio | Goal |",
        "| --- | --- | --- | --- | --- |",
    ]
    for figure in figures:
        lines.append(
            f"| {figure.title} | {_recall_cell(figure)} | {_baseline_cell(figure)} | "
            f"{figure.ratio:.2f}x | {_goal_cell(figure)} |"
        )
    if not smoke:
        lines += ["", SCREENSHOTS]
    lines += ["", "## What each figure measures", ""]
    for figure in figures:
        text = f"- **{figure.title}**: {figure.measures}. Samples: {len(figure.recall)}."
        for note in figure.notes:
            text += f" {note[0].upper()}{note[1:]}."
        lines.append(text)
    lines += ["", "## Goals", ""]
    for figure in figures:
        if not figure.goal:
            continue
        frame = ""
        if figure.title.startswith("Answer a card"):
            frame = f" {_frame_goal(figure)} (p99 {figure.recall_p99:.2f} ms).".replace("**", "")
        if figure.goal_met:
            lines.append(f"- **{figure.title}**: {figure.goal}: met.{frame}")
            continue
        lines.append(f"- **{figure.title}**: {figure.goal}: missed; {_shortfall(figure)}.{frame}")
        for prefix, why in ANALYSIS.items():
            if re.match(prefix, figure.title):
                lines += ["", f"  {why}", ""]
                break
    if sections:
        lines += ["", *sections]
    return "\n".join(lines).rstrip() + "\n"
