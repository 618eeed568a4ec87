"""Where Anki left each card: its due day, forgets and due dates set, suspension, burying, flags.

Anki counts days from the collection's creation (``col.crt``): a review card is due on
day ``cards.due``, which starts at the rollover hour (config ``rollover``, 4 by default)
in the learner's time zone (config ``creationOffset``, minutes west of UTC). Recall keeps
that day by ending each review card's history with a due date set to noon of it (the
middle of the study day, so a rollover hour a few hours apart, or a change to or from
daylight saving time, still lands on the same day), at the moment Anki last changed the
card. Where Anki keeps an FSRS memory state for the card (``cards.data``, Anki 23.10 on),
that entry is a memory entry instead: it also sets Anki's stability and difficulty, so the
next answer is scheduled from Anki's memory of the card, not from Recall's replay of the
review log (which differs wherever the log is incomplete or Anki's parameters were other).
Its schedule is then still the replay of its history, and every import of the same file
gives the same schedule on every computer.

Anki's manual entries (revlog type 4, ease 0) become Recall's: a forget where the
interval is 0, a due date set otherwise. Type 5 entries (rescheduled when FSRS options
change) only move due dates, so they are due dates set too.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta

from recall.core import wording
from recall.core.i18n import tr, trn
from recall.core.memory import ReviewKind, memory_in_bounds
from recall.importers import ImportedCardState, ImportedChange, ImportedReview
from recall.importers._collection import Collection

MANUAL = 4  # revlog type: forget, set due date
RESCHEDULED = 5  # revlog type: moved when FSRS options changed
_REVIEW_TYPE = 2  # cards.type of a card in review
_NEW_TYPE = 0
_SUSPENDED = -1
_BURIED = frozenset({-2, -3})  # buried as a sibling, buried by hand
_DEFAULT_ROLLOVER = 4
_FLAG_BITS = 0b111
_LONGEST_DAYS = 100 * 366  # a due day or interval beyond this is no real schedule
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


@dataclass(frozen=True)
class AnkiDays:
    """Anki's day numbers as moments: day 0 is the collection's creation day.

    Attributes:
        first: The date of day 0, in the learner's local time at the rollover hour.
        rollover: The hour a study day begins (0-23).
        offset_west: The learner's time zone, in minutes west of UTC.
    """

    first: date
    rollover: int
    offset_west: int

    def start(self, day: int) -> datetime:
        """The first moment of day ``day``, aware UTC."""
        local = datetime.combine(self.first + timedelta(days=day), datetime.min.time())
        return (local + timedelta(hours=self.rollover, minutes=self.offset_west)).replace(
            tzinfo=UTC
        )

    def middle(self, day: int) -> datetime:
        """Noon of day ``day`` (twelve hours after it starts), aware UTC."""
        return self.start(day) + timedelta(hours=12)

    def number(self, moment: datetime) -> int:
        """The day ``moment`` falls in."""
        local = moment - timedelta(hours=self.rollover, minutes=self.offset_west)
        return (local.date() - self.first).days


@dataclass(frozen=True)
class AnkiSchedule:
    """What the package says of its cards' schedules, by (deck id, card id).

    Attributes:
        changes: Forgets and due dates set, each card's oldest first.
        states: Suspension, burying and flags of cards that have any.
        notes: Report lines.
    """

    changes: dict[tuple[str, str], list[ImportedChange]]
    states: dict[tuple[str, str], ImportedCardState]
    notes: list[str]


def anki_days(collection: Collection) -> AnkiDays:
    """The collection's day numbering, from ``col.crt`` and its rollover and zone settings."""
    (row,) = collection.rows("SELECT crt FROM col LIMIT 1")
    created = _moment_s(row[0]) or _EPOCH
    rollover = _config_int(collection, "rollover", _DEFAULT_ROLLOVER)
    if not 0 <= rollover <= 23:
        rollover = _DEFAULT_ROLLOVER
    offset = _config_int(collection, "creationOffset", 0)
    if not -24 * 60 <= offset <= 24 * 60:
        offset = 0
    local = created - timedelta(hours=rollover, minutes=offset)
    return AnkiDays(local.date(), rollover, offset)


def read_schedule(
    collection: Collection,
    keys: dict[int, tuple[str, str]],
    reviews: dict[tuple[str, str], list[ImportedReview]],
) -> AnkiSchedule:
    """Each imported card's place in Anki: manual entries, its due day, suspended or buried.

    Args:
        collection: The open collection.
        keys: Recall's (deck id, card id) of each imported Anki card, by Anki card id.
        reviews: The imported reviews by (deck id, card id), oldest first.
    """
    days = anki_days(collection)
    middles: dict[int, datetime] = {}  # by due day: most cards share theirs with others
    changes: dict[tuple[str, str], list[ImportedChange]] = {}
    latest: dict[int, int] = {}
    for card_id, imported in keys.items():
        if reviews.get(imported):
            last = reviews[imported][-1].reviewed_at
            latest[card_id] = (last - _EPOCH) // timedelta(milliseconds=1)
    for card_id, at, interval, kind in _manual_rows(collection):
        found = keys.get(card_id)
        moment = _moment_ms(at)
        if found is None or moment is None or abs(interval) > _LONGEST_DAYS:
            continue
        if kind == MANUAL and interval == 0:
            change = ImportedChange(moment, ReviewKind.FORGET)
        elif interval > 0:
            due = days.middle(days.number(moment) + interval)
            change = ImportedChange(moment, ReviewKind.SET_DUE, due)
        else:
            continue
        changes.setdefault(found, []).append(change)
        latest[card_id] = max(latest.get(card_id, at), at)
    states: dict[tuple[str, str], ImportedCardState] = {}
    kept = {"suspended": 0, "buried": 0, "flagged": 0, "due": 0, "memory": 0}
    # Every Anki has had ``cards.data``; from 23.10 it holds the FSRS memory state.
    query = "SELECT id, type, queue, due, odid, odue, flags, mod, data FROM cards ORDER BY id"
    for row in collection.rows(query):
        if not all(isinstance(value, int) for value in row[:8]):
            continue  # the cards reader has named the odd value already
        card_id, kind, queue, due, home_deck, home_due, flags, modified = row[:8]
        key = keys.get(card_id)
        if key is None:
            continue
        due = home_due if home_deck else due
        # After everything the revlog holds, so a later import of the same file finds it.
        at = max(modified * 1000, latest.get(card_id, -1) + 1)
        moment = _moment_ms(at)
        if moment is None:
            continue
        if kind == _REVIEW_TYPE and abs(due) <= _LONGEST_DAYS:
            memory = memory_state(row[8])
            if due not in middles:
                middles[due] = days.middle(due)
            entry = ImportedChange(moment, ReviewKind.SET_DUE, middles[due], restates=True)
            if memory is not None:
                entry = dataclasses.replace(
                    entry, kind=ReviewKind.MEMORY, stability=memory[0], difficulty=memory[1]
                )
                kept["memory"] += 1
            changes.setdefault(key, []).append(entry)
            kept["due"] += 1
        elif kind == _NEW_TYPE and (card_id in latest):
            changes.setdefault(key, []).append(
                ImportedChange(moment, ReviewKind.FORGET, restates=True)
            )
        buried = days.start(days.number(moment) + 1) if queue in _BURIED else None
        state = ImportedCardState(queue == _SUSPENDED, buried, flags & _FLAG_BITS)
        if state != ImportedCardState():
            states[key] = state
            kept["suspended"] += state.suspended
            kept["buried"] += buried is not None
            kept["flagged"] += state.flag != 0
    for history in changes.values():
        history.sort(key=lambda change: change.reviewed_at)
    return AnkiSchedule(changes, states, _notes(kept))


def _notes(kept: dict[str, int]) -> list[str]:
    lines = []
    if kept["due"]:
        lines.append(
            trn(
                "{count} review card due on the day Anki has it due",
                "{count} review cards due on the day Anki has them due",
                kept["due"],
            ).format(count=wording.number(kept["due"]))
        )
    if kept["memory"]:
        lines.append(
            trn(
                "{count} review card with the FSRS memory state (stability, difficulty) Anki has "
                "for it",
                "{count} review cards with the FSRS memory state (stability, difficulty) Anki has "
                "for them",
                kept["memory"],
            ).format(count=wording.number(kept["memory"]))
        )
    held = []
    if kept["suspended"]:
        held.append(tr("{count} suspended").format(count=kept["suspended"]))
    if kept["buried"]:
        held.append(tr("{count} buried").format(count=kept["buried"]))
    if kept["flagged"]:
        held.append(tr("{count} flagged").format(count=kept["flagged"]))
    if held:
        lines.append(tr("kept as in Anki: {kept}").format(kept=", ".join(held)))
    return lines


def memory_state(data: object) -> tuple[float, float] | None:
    """The FSRS stability and difficulty a card's ``cards.data`` JSON holds (``s``, ``d``).

    None when there is none (Anki before 23.10, FSRS never on, a card studied only with
    SM-2) or it is not one FSRS could have given.
    """
    found = _json(data) if data else None
    if not isinstance(found, dict):
        return None
    stability, difficulty = found.get("s"), found.get("d")
    if not memory_in_bounds(stability, difficulty):
        return None
    assert isinstance(stability, (int, float))
    assert isinstance(difficulty, (int, float))
    return float(stability), float(difficulty)


def _manual_rows(collection: Collection) -> Iterable[tuple[int, int, int, int]]:
    """The revlog's manual and rescheduling entries: card, time (ms), interval, type."""
    query = "SELECT cid, id, ivl, type FROM revlog WHERE type IN (?, ?) AND ease = 0 ORDER BY id"
    for row in collection.rows(query, (MANUAL, RESCHEDULED)):
        if all(isinstance(value, int) for value in row):
            yield row[0], row[1], row[2], row[3]


def _config_int(collection: Collection, key: str, default: int) -> int:
    """An integer setting, from today's ``config`` table or the older ``col.conf`` JSON."""
    value: object = None
    if collection.has_table("config"):
        found = collection.rows("SELECT val FROM config WHERE KEY = ?", (key,))
        if found:
            value = _json(found[0][0])
    else:
        conf = _json(collection.rows("SELECT conf FROM col LIMIT 1")[0][0])
        if isinstance(conf, dict):
            value = conf.get(key)
    return value if isinstance(value, int) and not isinstance(value, bool) else default


def _json(raw: object) -> object:
    if isinstance(raw, bytes):
        raw = raw.decode("utf-8", "replace")
    if not isinstance(raw, str) or len(raw) > 1_000_000:
        return None
    try:
        return json.loads(raw)
    except (ValueError, RecursionError):
        return None


def _moment_ms(milliseconds: int) -> datetime | None:
    if not 0 <= milliseconds < 253_402_300_800_000:  # before the year 10000
        return None
    return _EPOCH + timedelta(milliseconds=milliseconds)


def _moment_s(seconds: object) -> datetime | None:
    if not isinstance(seconds, int) or isinstance(seconds, bool):
        return None
    return _moment_ms(seconds * 1000) if abs(seconds) < 253_402_300_800 else None
