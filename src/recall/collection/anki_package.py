"""Recall's cards as an Anki collection: notes, decks, schedules, flags and review history.

genanki writes the notes, note types and decks; the cards' scheduling columns and the
review log (``revlog``) are then filled in the same SQLite file in one transaction, the way
Anki itself stores them: day numbers counted from the collection's creation (``col.crt``),
FSRS memory states in each card's ``data``, one revlog row per answer, forget and due date
set by hand. Each note's guid is made from the card's deck and card keys, so importing
Anki's package back into Recall finds the same card (``importers.recall_notes``); a card
imported from Anki goes back as its own note, of its own note type (``anki_note_export``).
"""

from __future__ import annotations

import hashlib
import html
import itertools
import json
import re
import sqlite3
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime, tzinfo
from pathlib import Path
from typing import Any

from recall.collection.anki_note_export import (
    AnkiNotes,
    anki_deck_ids,
    kept_anki_card_ids,
    origin_of,
)
from recall.content import card_html, sound
from recall.content.anki_note import AnkiNoteType
from recall.content.deck_format import BasicCard, Card, ChoiceCard
from recall.core import days
from recall.core.memory import CardState, MemoryState, Rating, ReviewKind
from recall.importers.recall_notes import guid
from recall.storage import ReviewRow

CHOICE_NOTE_TYPE = "AllInOne (kprim, mc, sc)"
_CHOICE_MODEL_ID = 1_735_000_000_001  # stable, so Anki keeps one note type across exports
_OPTIONS = 10  # Recall's most choices; anki-mc's own type has five
_IMAGE_SOURCE = re.compile(r'<img[^>]*\ssrc="([^"]+)"')
# Anki's card types and queues (rslib/src/card/mod.rs).
_NEW, _LEARN, _REVIEW, _RELEARN = 0, 1, 2, 3
_SUSPENDED, _BURIED, _DAY_LEARN = -1, -3, 3
# Anki's revlog kinds.
_REVLOG_LEARN, _REVLOG_REVIEW, _REVLOG_RELEARN, _REVLOG_MANUAL, _REVLOG_RESCHEDULED = 0, 1, 2, 4, 5
# A review in a filtered deck; with a factor of 0, one that did not reschedule (Anki's "cram").
_REVLOG_FILTERED = 3
# Answers that leave the card's schedule as it was: cram and follow-up answers.
_KEEP_SCHEDULE = frozenset({ReviewKind.CRAM, ReviewKind.FOLLOW_UP})
# Entries that move a due date: a due date set, and a memory state kept (its due date).
_MOVES_DUE = frozenset({ReviewKind.SET_DUE, ReviewKind.MEMORY})


@dataclass(frozen=True)
class StudiedCard:
    """One Recall card with everything an Anki card carries of it.

    Attributes:
        deck_key: Its deck's id.
        deck_name: Its deck's name (``::`` nests, as in Anki).
        card: The card's content.
        memory: Its schedule.
        suspended: Kept out of study until unsuspended.
        buried_until: Kept out of study until then, if later than now.
        flag: 0 for none, 1-7 Anki's flag colours.
        position: Its place among the deck's new cards.
        history: Its reviews, forgets and due dates set, oldest first.
        desired_retention: Its preset's, stored with its memory state (``dr``).
    """

    deck_key: str
    deck_name: str
    card: Card
    memory: MemoryState
    suspended: bool
    buried_until: datetime | None
    flag: int
    position: int
    history: Sequence[ReviewRow]
    desired_retention: float = 0.9


@dataclass(frozen=True)
class AnkiDays:
    """How Anki counts days: from the study day the collection was created, at the rollover.

    Attributes:
        created: The first moment of the collection's first study day (``col.crt``).
        hour: The local hour a study day begins.
        zone: The learner's time zone; None for the system's.
    """

    created: datetime
    hour: int
    zone: tzinfo | None = None

    def study_date(self, moment: datetime) -> date:
        """The local date of the study day ``moment`` falls in."""
        return days.study_day(moment, self.hour, self.zone)[0].astimezone(self.zone).date()

    def day(self, moment: datetime) -> int:
        """Anki's day number of ``moment``: study days since the collection was created."""
        return (self.study_date(moment) - self.study_date(self.created)).days


def note_fields(card: Card) -> list[str]:
    """The fields of the Anki note a card becomes (Basic, or anki-mc's choice type)."""
    if isinstance(card, BasicCard):
        if card.markup == "html":
            front, back = card_html.sanitize(card.front), card_html.sanitize(card.back)
        else:
            front, back = markdown_html(card.front), markdown_html(card.back)
        if card.occlusion is not None:
            # Anki's occlusion note type draws its masks with its own scripts, which a
            # package cannot rely on: the card goes as a basic one showing the image.
            image = f'<img src="{card.occlusion.image}">'
            front = image if front.strip() in ("", "<br>") else f"{front}<br>{image}"
        return [front, back + _extra(card.explanation, card.source)]
    options = [markdown_html(choice.text) for choice in card.choices]
    notes = [markdown_html(choice.why or "") for choice in card.choices]
    padding = [""] * (_OPTIONS - len(card.choices))
    kind = "2" if len(card.correct_indexes) == 1 else "1"
    answers = " ".join("1" if choice.correct else "0" for choice in card.choices)
    return [
        markdown_html(card.question),
        "",
        kind,
        *options,
        *padding,
        answers,
        html.escape(card.source),
        markdown_html(card.explanation),
        *notes,
        *padding,
    ]


def build_collection(
    cards: Sequence[StudiedCard],
    descriptions: dict[str, str],
    target: Path,
    media_dir: Path,
    clock: AnkiDays,
    now: datetime,
    note_types: dict[str, AnkiNoteType] | None = None,
) -> list[Path]:
    """Write an Anki collection of ``cards`` to ``target``; returns the media files it uses.

    Args:
        cards: The cards, each with its schedule and history.
        descriptions: Deck descriptions by deck name.
        target: The collection file to create (``collection.anki2``).
        media_dir: Recall's media folder.
        clock: How days are counted; ``clock.created`` becomes ``col.crt``.
        now: The export's time: a card buried until later is buried, a learning card due
            before the next rollover is in today's learning queue.
        note_types: The stored Anki note types by key: a card imported from Anki whose
            note type is here goes back as its own note (``anki_note_export``).
    """
    import genanki  # only when exporting: it is slow to import and the window rarely needs it

    decks: dict[str, Any] = {}
    deck_ids = anki_deck_ids(cards)
    for name in sorted({card.deck_name for card in cards}):
        steps = name.split("::")
        for depth in range(1, len(steps) + 1):
            path = "::".join(steps[:depth])
            if path not in decks:  # Anki wants each parent of a subdeck as a deck too
                decks[path] = genanki.Deck(
                    deck_ids.get(path, _anki_id(path)), path, description=descriptions.get(path, "")
                )
    choice_model = _choice_model(genanki)
    anki_notes = AnkiNotes(genanki, note_types or {})
    media: set[Path] = set()
    keys: list[tuple[str, int]] = []
    for studied in cards:
        origin = origin_of(studied.card, note_types or {})
        if origin is not None:  # an Anki note goes back as itself, its cards as siblings
            own = guid(studied.deck_key, studied.card.id)
            note, note_guid, new = anki_notes.add(origin, studied.card.tags, own)
            fields, ord_ = note.fields, origin.ord
        else:
            fields, ord_ = note_fields(studied.card), 0
            model = choice_model if isinstance(studied.card, ChoiceCard) else genanki.BASIC_MODEL
            note_guid, new = guid(studied.deck_key, studied.card.id), True
            note = genanki.Note(
                model=model, fields=fields, tags=list(studied.card.tags), guid=note_guid
            )
        for source in _IMAGE_SOURCE.findall("".join(fields)) + sound.references("".join(fields)):
            if card_html.is_media_name(source) and (media_dir / source).is_file():
                media.add(media_dir / source)
        keys.append((note_guid, ord_))
        if new:
            decks[studied.deck_name].add_note(note)
    connection = sqlite3.connect(target)
    try:
        stamp = now.timestamp()
        with warnings.catch_warnings():
            # An Anki note's own HTML goes back as Anki wrote it, whatever genanki thinks of it.
            warnings.filterwarnings("ignore", "Field contained", module="genanki")
            genanki.Package(list(decks.values())).write_to_db(
                connection.cursor(), stamp, itertools.count(int(stamp * 1000))
            )
        card_ids: dict[tuple[str, int], int] = {
            (note_guid, ord_): card_id
            for note_guid, ord_, card_id in connection.execute(
                "SELECT notes.guid, cards.ord, cards.id FROM cards "
                "JOIN notes ON notes.id = cards.nid"
            )
        }
        with connection:
            renumbered, card_ids = kept_anki_card_ids(cards, keys, card_ids)
            connection.executemany("UPDATE cards SET id = ? WHERE id = ?", renumbered)
            connection.execute("UPDATE col SET crt = ?", (int(clock.created.timestamp()),))
            _set_rollover(connection, clock.hour)
            # A note's cards may live in several decks: each card goes to its own.
            connection.executemany(
                "UPDATE cards SET did = ? WHERE id = ?",
                [
                    (decks[studied.deck_name].deck_id, card_ids[key])
                    for studied, key in zip(cards, keys, strict=True)
                ],
            )
            _fill_schedules(connection, cards, keys, card_ids, clock, now)
    finally:
        connection.close()
    return sorted(media)


def _set_rollover(connection: sqlite3.Connection, hour: int) -> None:
    (conf,) = connection.execute("SELECT conf FROM col").fetchone()
    settings = json.loads(conf)
    settings["rollover"] = hour
    settings["schedVer"] = 2
    connection.execute("UPDATE col SET conf = ?, ver = 11", (json.dumps(settings),))


def _fill_schedules(
    connection: sqlite3.Connection,
    cards: Sequence[StudiedCard],
    keys: Sequence[tuple[str, int]],
    card_ids: dict[tuple[str, int], int],
    clock: AnkiDays,
    now: datetime,
) -> None:
    """Each card's scheduling columns, and its history as revlog rows."""
    used: set[int] = set()
    schedules: list[tuple[object, ...]] = []
    revlog: list[tuple[object, ...]] = []
    for studied, key in zip(cards, keys, strict=True):
        card_id = card_ids[key]
        rows, reps, lapses = _revlog_rows(card_id, studied, clock, used)
        revlog += rows
        schedules.append((*_schedule(studied, clock, now), reps, lapses, card_id))
    connection.executemany(
        "UPDATE cards SET type = ?, queue = ?, due = ?, ivl = ?, factor = ?, left = ?, "
        "flags = ?, data = ?, reps = ?, lapses = ? WHERE id = ?",
        schedules,
    )
    connection.executemany(
        "INSERT INTO revlog (id, cid, usn, ease, ivl, lastIvl, factor, time, type) "
        "VALUES (?, ?, -1, ?, ?, ?, ?, ?, ?)",
        revlog,
    )


def _schedule(studied: StudiedCard, clock: AnkiDays, now: datetime) -> tuple[object, ...]:
    """type, queue, due, ivl, factor, left, flags and data of one Anki card."""
    memory = studied.memory
    flags = studied.flag if 0 <= studied.flag <= 7 else 0
    if memory.state is CardState.NEW or memory.due is None:
        kind, queue, due, interval, factor, left, data = _NEW, 0, studied.position, 0, 0, 0, ""
    else:
        last = memory.last_review or memory.due
        interval = max(1, clock.day(memory.due) - clock.day(last))
        factor = 2500
        state: dict[str, object] = {"dr": studied.desired_retention}
        if memory.stability is not None and memory.difficulty is not None:
            state.update(s=round(memory.stability, 4), d=round(memory.difficulty, 3))
        state["lrt"] = int(last.timestamp())
        data = json.dumps(state, separators=(",", ":"))
        if memory.state is CardState.REVIEW:
            kind, queue, due, left = _REVIEW, _REVIEW, clock.day(memory.due), 0
        else:
            kind = _LEARN if memory.state is CardState.LEARNING else _RELEARN
            left = 1
            if memory.due < days.next_rollover(now, clock.hour, clock.zone):
                queue, due = _LEARN, int(memory.due.timestamp())
            else:
                queue, due = _DAY_LEARN, clock.day(memory.due)
            if memory.state is CardState.LEARNING:
                interval = 0
    if studied.suspended:
        queue = _SUSPENDED
    elif studied.buried_until is not None and studied.buried_until > now:
        queue = _BURIED
    return kind, queue, due, interval, factor, left, flags, data


def _revlog_rows(
    card_id: int, studied: StudiedCard, clock: AnkiDays, used: set[int]
) -> tuple[list[tuple[object, ...]], int, int]:
    """A card's history as revlog rows (id, cid, ease, ivl, lastIvl, factor, time, type),
    with its count of answers and of lapses."""
    rows: list[tuple[object, ...]] = []
    reps = lapses = 0
    last_interval = 0
    for review in studied.history:
        moment = int(review.reviewed_at.timestamp() * 1000)
        while moment in used:  # revlog ids are unique; two cards answered in the same ms
            moment += 1
        used.add(moment)
        if review.kind is ReviewKind.ANSWER and review.rating is not None:
            reps += 1
            before = review.state_before
            if before is CardState.REVIEW:
                kind = _REVLOG_REVIEW
                lapses += review.rating is Rating.AGAIN
            elif before is CardState.RELEARNING:
                kind = _REVLOG_RELEARN
            else:
                kind = _REVLOG_LEARN
            ease, time_ms = int(review.rating), review.duration_ms
            interval = last_interval
        elif review.kind in _KEEP_SCHEDULE and review.rating is not None:
            # A filtered review that did not reschedule: Anki's FSRS passes over it too.
            rows.append(
                (
                    moment,
                    card_id,
                    int(review.rating),
                    0,
                    last_interval,
                    0,
                    review.duration_ms,
                    _REVLOG_FILTERED,
                )
            )
            continue
        elif review.kind in _MOVES_DUE and review.set_due is not None:
            ease, time_ms, kind = 0, 0, _REVLOG_RESCHEDULED
            interval = max(0, clock.day(review.set_due) - clock.day(review.reviewed_at))
        else:  # a forget: Anki's "reset" writes a manual entry with no interval
            ease, time_ms, kind, interval = 0, 0, _REVLOG_MANUAL, 0
        rows.append(
            (moment, card_id, ease, interval, last_interval, 2500 if ease else 0, time_ms, kind)
        )
        last_interval = interval
    return rows, reps, lapses


def _choice_model(genanki: Any) -> Any:
    """anki-mc's "AllInOne (kprim, mc, sc)" fields, with ten options and a note per option."""
    options = [f"Q_{number}" for number in range(1, _OPTIONS + 1)]
    notes = [f"Why_{number}" for number in range(1, _OPTIONS + 1)]
    names = [
        "Question",
        "Title",
        "QType (0=kprim,1=mc,2=sc)",
        *options,
        "Answers",
        "Sources",
        "Extra 1",
        *notes,
    ]
    listed = "".join(f"{{{{#{name}}}}}<li>{{{{{name}}}}}</li>{{{{/{name}}}}}" for name in options)
    front = f"{{{{Question}}}}<ol>{listed}</ol>"
    back = "{{FrontSide}}<hr id=answer>Answers: {{Answers}}<br>{{Extra 1}}<br>{{Sources}}"
    return genanki.Model(
        _CHOICE_MODEL_ID,
        CHOICE_NOTE_TYPE,
        fields=[{"name": name} for name in names],
        templates=[{"name": "Card 1", "qfmt": front, "afmt": back}],
    )


def _extra(explanation: str, source: str) -> str:
    extra = f"<p>{markdown_html(explanation)}</p>" if explanation else ""
    if source:
        extra += f"<p><i>Source:</i> {markdown_html(source)}</p>"
    return extra


def markdown_html(text: str) -> str:
    """Deck Markdown as simple HTML: escaped text, code spans, bold and italic, line breaks."""
    escaped = html.escape(text)
    escaped = re.sub(r"`([^`]+)`", r"<code>\1</code>", escaped)
    escaped = re.sub(r"\*\*([^*]+)\*\*", r"<b>\1</b>", escaped)
    escaped = re.sub(r"(?<![*\w])\*([^*\s][^*]*)\*(?![*\w])", r"<i>\1</i>", escaped)
    return escaped.replace("\n\n", "<br><br>").replace("\n", " ")


def _anki_id(key: str) -> int:
    """A stable Anki id for a Recall name (Anki wants a positive 63-bit number)."""
    return int(hashlib.sha256(key.encode()).hexdigest()[:15], 16)


def collection_start(
    now: datetime, moments: Sequence[datetime], hour: int, zone: tzinfo | None = None
) -> datetime:
    """``col.crt``: the start of the study day of the earliest moment (no day number < 0)."""
    return days.study_day(min([now, *moments]), hour, zone)[0]
