"""An import's history replayed once, with Anki's due day or memory state applied on top,
leaves each card where a full replay of what is stored leaves it (as ``recall check`` does)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from hypothesis import given
from hypothesis import strategies as st

from recall.collection._imported_schedule import as_past
from recall.collection.imported_history import replayed_entries
from recall.core.memory import Rating, ReviewKind
from recall.importers import ImportedChange, ImportedReview
from recall.scheduling import PastReview, Scheduler

START = datetime(2025, 1, 1, 9, tzinfo=UTC)
SCHEDULER = Scheduler()


@st.composite
def histories(draw: st.DrawFn) -> tuple[list[PastReview], list[ImportedReview | ImportedChange]]:
    """Stored answers, imported answers after them, and a restating change at the end."""
    gaps = draw(st.lists(st.integers(1, 40 * 24), min_size=0, max_size=8))
    moments = [START + timedelta(hours=sum(gaps[: index + 1])) for index in range(len(gaps))]
    ratings = [Rating(draw(st.integers(1, 4))) for _ in moments]
    stored = draw(st.integers(0, len(moments)))
    past = [PastReview(at, rating) for at, rating in zip(moments[:stored], ratings, strict=False)]
    new: list[ImportedReview | ImportedChange] = [
        ImportedReview(at, rating, 5000)
        for at, rating in zip(moments[stored:], ratings[stored:], strict=True)
    ]
    last = moments[-1] if moments else START
    at = last + timedelta(minutes=draw(st.sampled_from([-5, 0, 1, 600])))
    due = at + timedelta(days=draw(st.integers(-3, 60)), hours=draw(st.integers(0, 23)))
    kind = draw(st.sampled_from([ReviewKind.SET_DUE, ReviewKind.MEMORY, ReviewKind.FORGET]))
    if kind == ReviewKind.MEMORY:
        change = ImportedChange(at, kind, due, True, draw(st.floats(0.5, 300)), 5.5)
    elif kind == ReviewKind.SET_DUE:
        change = ImportedChange(at, kind, due, restates=True)
    else:
        change = ImportedChange(at, kind, restates=True)
    if draw(st.booleans()):
        new.append(change)
    return past, sorted(new, key=lambda entry: entry.reviewed_at)


@given(histories(), st.integers(1, 2**40))
def test_the_schedule_is_what_replaying_the_stored_history_gives(
    history: tuple[list[PastReview], list[ImportedReview | ImportedChange]], seed: int
) -> None:
    past, new = history
    entries, states, memory = replayed_entries(SCHEDULER, seed, past, new)
    assert all(entry in new for entry in entries)
    assert [entry for entry in new if not isinstance(entry, ImportedChange)] == [
        entry for entry in entries if not isinstance(entry, ImportedChange)
    ]
    merged = sorted([*past, *map(as_past, entries)], key=lambda entry: entry.reviewed_at)
    assert (states, memory) == SCHEDULER.replay_with_states(seed, merged)
