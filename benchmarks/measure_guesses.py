"""The guess correction measured: simulated choice-card learners and a published review log.

``python -m benchmarks.measure_guesses`` (and ``make bench``, after the other figures) fits
FSRS with and without the guess term on the parameter health check's time splits
(``scheduling.guessing.compare``) and writes both held-out figures, and whether the rule
adopts the correction, into their section of docs/benchmarks.md:

- simulated learners (``learners.py``) on 4-option cards, on 2-option cards, and on a deck
  mixing 2-option, 4-option and self-rated cards, each once guessing when they do not
  recall and once answering from recall alone;
- py-fsrs's test review log (``data/SOURCES.md``), its cards treated as 4-option and as
  2-option choice cards: real answers that were never picks, where the correction should
  not win.
"""

from __future__ import annotations

import csv
import gzip
import io
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from benchmarks.common import BENCHMARKS
from benchmarks.learners import learners
from recall.core.days import StudyDays
from recall.scheduling import guessing
from recall.scheduling.fitting import CardHistory

DOCS = BENCHMARKS.parent / "docs" / "benchmarks.md"
REVIEW_LOG = BENCHMARKS / "data" / "py-fsrs-review-logs.csv.gz"
BEGIN, END = "<!-- guesses: written by benchmarks/measure_guesses.py -->", "<!-- /guesses -->"
SEEDS = (1, 2, 3)


@dataclass(frozen=True)
class Row:
    """One history's comparison."""

    history: str
    answers: int
    comparison: guessing.Comparison


def review_log(chance: float) -> list[CardHistory]:
    """py-fsrs's review log as card histories, each card given the guess chance ``chance``.

    Its reviews fall into study days as Recall's defaults count them (a day starts at 4 am,
    UTC here); a card's history starts with its first review in the log.
    """
    days = StudyDays()
    cards: dict[str, list[tuple[datetime, int]]] = {}
    with gzip.open(REVIEW_LOG, "rt", encoding="utf-8") as text:
        for row in csv.DictReader(io.StringIO(text.read())):
            moment = datetime.fromisoformat(row["review_time"]).astimezone(UTC)
            cards.setdefault(row["card_id"], []).append((moment, int(row["review_rating"])))
    return [
        CardHistory([(days.day_of(moment), rating) for moment, rating in sorted(answers)], chance)
        for answers in cards.values()
    ]


def measure(cards: int, seeds: Sequence[int], say: Callable[[str], None] = print) -> list[Row]:
    """Every history's comparison."""
    rows = []
    cases = [
        ("4-option cards", (4,)),
        ("2-option cards", (2,)),
        ("2-option, 4-option and self-rated cards", (2, 4, 0)),
    ]
    for name, choices in cases:
        for guesses in (True, False):
            for seed in seeds:
                histories = learners(cards, 300, seed=seed, choices=choices, guessing=guesses)
                label = (
                    f"simulated, {name}, "
                    + ("guessing when not recalled" if guesses else "answers from recall alone")
                    + f", seed {seed}"
                )
                rows.append(_row(label, histories, say))
    for options in (4, 2):
        rows.append(
            _row(
                f"py-fsrs's review log, cards treated as {options}-option",
                review_log(1 / options),
                say,
            )
        )
    return rows


def _row(label: str, histories: list[CardHistory], say: Callable[[str], None]) -> Row:
    began = time.perf_counter()
    comparison = guessing.compare(histories)
    if comparison is None:
        raise SystemExit(f"{label}: too little history to compare")
    answers = sum(split.held_out for split in comparison.splits) + comparison.splits[0].trained_on
    say(f"  {label}: {comparison.words()} ({time.perf_counter() - began:.0f} s)")
    return Row(label, answers, comparison)


def section(rows: Sequence[Row], when: datetime, command: str) -> str:
    """The Markdown section of docs/benchmarks.md, between its markers."""
    lines = [
        BEGIN,
        "## The guess correction, measured",
        "",
        f"Written by `{command}` on {when:%Y-%m-%d %H:%M} UTC. FSRS fitted with and without "
        "the guess term (a right pick on a k-option card is recall or a 1-in-k guess) on the "
        "parameter health check's four time splits, each model judged on the held-out later "
        "answers under its own likelihood: log loss and RMSE over fsrs-rs's bins, pooled over "
        "the splits. The rule adopts the correction where its log loss is lower. Simulated "
        "learners: `benchmarks/learners.py` (Recall's scheduler with FSRS's default "
        "parameters as the learner's memory, 30% of reviews up to three intervals late); the "
        "review log: py-fsrs's test log (`benchmarks/data/SOURCES.md`), real Anki answers "
        "that were never picks among options.",
        "",
        "| History | Answers | Log loss without | Log loss with | RMSE without | RMSE with "
        "| Adopted |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for row in rows:
        plain, guessed = row.comparison.plain, row.comparison.guessing
        lines.append(
            f"| {row.history} | {row.answers:,} | {plain.log_loss:.4f} | {guessed.log_loss:.4f} "
            f"| {plain.rmse_bins:.2%} | {guessed.rmse_bins:.2%} "
            f"| {'yes' if row.comparison.adopted else 'no'} |"
        )
    lines += ["", END]
    return "\n".join(lines) + "\n"


def write(path: Path, text: str) -> None:
    """Put the section into ``path``: in place of the one there, or at its end."""
    old = path.read_text(encoding="utf-8") if path.exists() else ""
    if BEGIN in old and END in old:
        head, _, rest = old.partition(BEGIN)
        _, _, tail = rest.partition(END)
        new = head + text.rstrip("\n") + tail
    else:
        new = old.rstrip("\n") + ("\n\n" if old else "") + text
    path.write_text(new, encoding="utf-8")


def run(output: Path, command: str, smoke: bool = False) -> list[Row]:
    """Measure and write the section into ``output`` (a smoke run: small, one seed)."""
    print("the guess correction ...", flush=True)
    rows = measure(150, (1,)) if smoke else measure(400, SEEDS)
    write(output, section(rows, datetime.now(UTC), command))
    return rows


if __name__ == "__main__":
    run(DOCS, "python -m benchmarks.measure_guesses")
