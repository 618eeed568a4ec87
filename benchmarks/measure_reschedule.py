"""Rescheduling after new FSRS parameters or a new desired retention, beside Anki's own.

Each round changes the deck's options (two settings taken in turn, so every round is a
change). With new parameters Recall backs up the file, then replays every card's whole
history and stores the schedules that moved, in one transaction; with only a new desired
retention it works each review card's due date out again from its stored stability
(the same result, a test holds). Anki, asked to reschedule on change
(``fsrs_reschedule``), recomputes each card's memory from its review log when the
parameters change, and sets new due dates.
"""

from __future__ import annotations

import shutil
import sqlite3
from datetime import UTC, datetime
from pathlib import Path

from anki.collection import Collection
from anki.deck_config_pb2 import UpdateDeckConfigsRequest

from benchmarks import generate
from benchmarks.common import Figure, alternate, elapsed_ms
from recall.core.presets import DEFAULT_PRESET_ID
from recall.options import deck_options
from recall.scheduling import DEFAULT_PARAMETERS, Schedulers
from recall.storage import Database

# Two parameter sets and retentions taken in turn: each round is a real change.
_CHANGES = (
    ((0.4, 1.8, 3.5, 12.0, *DEFAULT_PARAMETERS[4:]), 0.85),
    ((0.3, 1.1, 2.9, 9.0, *DEFAULT_PARAMETERS[4:]), 0.9),
)


def measure_reschedule(
    recall_database: Path,
    anki_collection: Path,
    cards: int,
    work: Path,
    rounds: int,
    parameters_too: bool = True,
) -> Figure:
    """Recall's reschedule of the whole collection against Anki's, in turns.

    Args:
        parameters_too: Change the parameters as well as the desired retention (the
            worst case, a full replay); else only the retention.
    """
    kind = "parameters" if parameters_too else "retention"
    recall_copy = work / f"reschedule-{kind}.sqlite3"
    anki_copy = work / f"reschedule-{kind}.anki2"
    shutil.copyfile(recall_database, recall_copy)
    shutil.copyfile(anki_collection, anki_copy)
    database = Database(recall_copy)
    collection = Collection(str(anki_copy))
    deck_id = collection.decks.id(generate.deck_name(cards))
    assert deck_id is not None
    turn = {"recall": 0, "anki": 0}
    moved: list[int] = []

    def recall_round() -> float:
        parameters, retention = _CHANGES[turn["recall"] % 2]
        turn["recall"] += 1
        changes: dict[str, object] = {"desired_retention": retention}
        if parameters_too:
            changes["parameters"] = parameters

        def change() -> None:
            made = deck_options.change_preset(
                database, Schedulers(), DEFAULT_PRESET_ID, changes, datetime.now(UTC)
            )
            moved.append(made.rescheduled)
            if made.backup is not None:
                made.backup.unlink()  # keep the work folder small; the copy was timed

        return elapsed_ms(change)

    def anki_round() -> float:
        parameters, retention = _CHANGES[turn["anki"] % 2]
        turn["anki"] += 1
        current = collection.decks.get_deck_configs_for_update(deck_id)
        config = next(
            item.config
            for item in current.all_config
            if item.config.id == current.current_deck.config_id
        )
        config.config.desired_retention = retention
        if parameters_too:
            del config.config.fsrs_params_6[:]
            config.config.fsrs_params_6.extend(parameters)
        request = UpdateDeckConfigsRequest(
            target_deck_id=deck_id,
            configs=[config],
            limits=current.current_deck.limits,
            new_cards_ignore_review_limit=current.new_cards_ignore_review_limit,
            apply_all_parent_limits=current.apply_all_parent_limits,
            fsrs=True,
            fsrs_reschedule=True,
        )
        return elapsed_ms(lambda: collection.decks.update_deck_configs(request))

    try:
        ours, theirs = alternate(recall_round, anki_round, rounds)
    finally:
        database.close()
        collection.close()
    reviews = _reviews(recall_copy)
    what = "new parameters" if parameters_too else "a new desired retention"
    how = (
        "replays every card's history"
        if parameters_too
        else "works each review card's due date out again from its stored stability"
    )
    return Figure(
        title=f"Rescheduling after {what}, {cards:,}-card collection",
        measures=(
            f"{what} for the deck's {cards:,} cards and {reviews:,} reviews: Recall backs "
            f"up the file, {how} and stores the schedules that moved, in one transaction; "
            "Anki updates the deck's options with fsrs_reschedule"
        ),
        recall=ours,
        baseline_name="Anki: update_deck_configs with fsrs_reschedule",
        baseline=theirs,
        notes=[f"Recall rescheduled {min(moved):,}-{max(moved):,} cards a round"],
    )


def _reviews(path: Path) -> int:
    connection = sqlite3.connect(path)
    try:
        return int(connection.execute("SELECT count(*) FROM review").fetchone()[0])
    finally:
        connection.close()
