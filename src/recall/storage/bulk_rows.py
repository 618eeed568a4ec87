"""Many rows added at once: the per-row insert triggers lifted, their work done per set.

Every card, schedule and review added fires triggers that derive the search text and tags,
note the card for ``recall check``, mark the study-day counts stale, count a wrong answer's
picks and queue a sync event; for an import of ten thousand cards those were a quarter of
its time. Inside ``triggers_lifted`` these insert triggers are dropped and, when the block
ends, the same work is done by one statement per trigger over every row added in the block
(the rows past the highest ids there were when it began), built from the triggers' own SQL;
then the triggers are created again from that SQL. It all happens inside the caller's
transaction, so no other connection ever sees the triggers gone, and a failed block rolls
back with the rest. Updates and deletes inside the block still fire their own triggers.

The rows come out as the triggers would have written them; only the order of the
``sync_outbox`` rows differs (each set's rows after the others of the block) and the random
marks in ``replay_change``. Nothing read inside the block may depend on what the lifted
triggers write (search text, tags, sync outbox, replay notes, study-day staleness, counts
of wrong picks).
"""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

from recall.storage import card_index, pick_counts, study_day_schema, sync_triggers, verification
from recall.storage.sql import Sql, StatementError


def _named(triggers: tuple[str, ...], name: str) -> str:
    """The SQL of the trigger called ``name`` among ``triggers``."""
    for sql in triggers:
        found = re.search(r"CREATE TRIGGER (\w+)", sql)
        if found is not None and found.group(1) == name:
            return sql
    raise LookupError(name)


# Each lifted trigger with its SQL and the statements doing its work for a set, each taking
# the highest card id (``card``) or review id (``review``) from before the block.
_CARD = "card"
_REVIEW = "review"
_LIFTED: tuple[tuple[str, str, tuple[tuple[str, str], ...]], ...] = (
    (
        "card_index_insert",
        _named(card_index.TRIGGERS, "card_index_insert"),
        ((card_index.SEARCH_TEXT_ADDED, _CARD), (card_index.TAGS_ADDED, _CARD)),
    ),
    (
        "sync_card_insert",
        _named(sync_triggers.TRIGGERS, "sync_card_insert"),
        ((sync_triggers.CARDS_ADDED, _CARD),),
    ),
    (
        "replay_schedule_added",
        _named(verification.TRIGGERS, "replay_schedule_added"),
        ((verification.SCHEDULES_ADDED, _CARD),),
    ),
    (
        "replay_review_added",
        _named(verification.TRIGGERS, "replay_review_added"),
        ((verification.REVIEWS_ADDED, _REVIEW),),
    ),
    (
        "study_days_answer_added",
        _named(study_day_schema.TRIGGERS, "study_days_answer_added"),
        ((study_day_schema.ANSWERS_ADDED, _REVIEW),),
    ),
    (
        "wrong_picks_added",
        _named(pick_counts.TRIGGERS, "wrong_picks_added"),
        ((pick_counts.PICKS_ADDED, _REVIEW),),
    ),
    (
        "sync_review_insert",
        _named(sync_triggers.TRIGGERS, "sync_review_insert"),
        ((sync_triggers.REVIEWS_ADDED, _REVIEW),),
    ),
)


@contextmanager
def triggers_lifted(sql: Sql) -> Iterator[None]:
    """Add rows without the per-row insert triggers; their work is done per set at the end.

    Call it inside a write transaction. When the block raises, the triggers are created
    again where SQLite still can and the exception goes on: the caller's transaction must
    then roll back (``Database.transaction`` does), which restores them whatever happened.
    """
    before = {
        _CARD: int(sql.value("SELECT coalesce(max(id), 0) FROM card")),
        _REVIEW: int(sql.value("SELECT coalesce(max(id), 0) FROM review")),
    }
    for name, _, _ in _LIFTED:
        sql.run(f"DROP TRIGGER {name}")
    try:
        yield
    except BaseException:
        # The rollback that follows restores the triggers in any case; an error recreating
        # them here (SQLite interrupted, the disk full) must not hide the one that stopped.
        with contextlib.suppress(StatementError):
            _recreate(sql)
        raise
    for _, _, statements in _LIFTED:
        for statement, table in statements:
            sql.run(statement, (before[table],))
    _recreate(sql)


def _recreate(sql: Sql) -> None:
    for _, trigger, _ in _LIFTED:
        sql.run(trigger)


# From this many schedules at once, an update of cards' schedules runs without the trigger
# that notes each changed card for ``recall check``, and notes them in a batch after it:
# the trigger's presence alone made each row's update four times slower.
SCHEDULES_BATCHED_FROM = 1_000
_SCHEDULE_TRIGGER = "replay_schedule_changed"


@contextmanager
def schedule_notes_batched(sql: Sql, card_ids: Sequence[int]) -> Iterator[None]:
    """Update the schedules of ``card_ids`` (and nothing else in ``card_memory``) in the
    block; each of those cards that has a schedule is then noted as the trigger notes it.

    Call it inside a write transaction. The trigger is made again from its own SQL; when
    the block raises, the caller's rollback restores it whatever happened. Before that the
    cards are noted all the same: the rows SQLite updated before the one that failed stay
    updated in a transaction that goes on, as the trigger would have noted them.
    """
    trigger = _named(verification.TRIGGERS, _SCHEDULE_TRIGGER)
    notes = (json.dumps([int(card) for card in card_ids]),)
    sql.run(f"DROP TRIGGER {_SCHEDULE_TRIGGER}")
    try:
        yield
    except BaseException:
        with contextlib.suppress(StatementError):
            sql.run(verification.SCHEDULES_CHANGED, notes)
        with contextlib.suppress(StatementError):
            sql.run(trigger)
        raise
    sql.run(verification.SCHEDULES_CHANGED, notes)
    sql.run(trigger)


# From this many rows at once, and no fewer than the table already holds, a batch is written
# with the table's indexes dropped and built again after it: SQLite builds an index from
# sorted rows far faster than it inserts rows one by one at random places in it (a review's
# uid is a hash, so every insert lands somewhere new in the unique index).
INDEXES_LIFTED_FROM = 10_000


@contextmanager
def indexes_lifted(sql: Sql, table: str, rows: int) -> Iterator[None]:
    """Write ``rows`` rows into ``table`` with its indexes built once afterwards.

    Only when the batch is large and at least as many rows as the table's highest id (so
    the rebuild reads no more than twice what the inserts would touch); otherwise the
    block runs with the indexes in place. The indexes are made again from their own SQL, so
    they are the same; a unique index that the new rows break fails to be made again with
    the same constraint error the insert would have raised. Call it inside a write
    transaction, reading nothing from ``table`` in the block.
    """
    if rows < INDEXES_LIFTED_FROM or rows < int(
        sql.value(f"SELECT coalesce(max(rowid), 0) FROM {table}")
    ):
        yield
        return
    indexes = [
        (str(name), str(statement))
        for name, statement in sql.rows(
            "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = ? "
            "AND sql IS NOT NULL ORDER BY name",
            (table,),
        )
    ]
    for name, _ in indexes:
        sql.run(f"DROP INDEX {name}")
    try:
        yield
    except BaseException:
        with contextlib.suppress(StatementError):
            for _, statement in indexes:
                sql.run(statement)
        raise
    for _, statement in indexes:
        sql.run(statement)
