"""The database tables: decks, cards and their tags, memory states, the history, the options
(sync's own tables in ``sync_tables``, the follow-ups' summary in ``follow_up_tables``).

The one declaration of the schema: a new database is created from it, and migrations
bring older ones to it. Opening a database that is up to date does not import this
module (nor SQLAlchemy): queries are plain SQL, so only creating or upgrading needs it.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import (
    BigInteger,
    Dialect,
    Index,
    String,
    TypeDecorator,
    UniqueConstraint,
    text,
)
from sqlmodel import Field, SQLModel

from recall.storage import note_types
from recall.storage.rows import (
    FOLLOW_UP_ENTRIES,
    REVIEW_BY_CARD,
    REVIEW_BY_TIME,
    REVIEW_FOLLOW_UP_ENTRIES,
    STATE_DUE,
)
from recall.storage.times import from_micros, to_micros

NOCASE_TEXT = String(collation="NOCASE")


class UtcDateTime(TypeDecorator[datetime]):
    """An aware UTC time stored as integer microseconds since the epoch.

    Exact (no rounding, unlike SQLite's text dates), sortable, and always read back aware,
    so nothing below the UI ever sees a naive time.
    """

    impl = BigInteger
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> int | None:
        return to_micros(value)

    def process_result_value(self, value: int | None, dialect: Dialect) -> datetime | None:
        return from_micros(value)


class Deck(SQLModel, table=True):
    """A deck, keyed by the id its deck file gives it."""

    id: int | None = Field(default=None, primary_key=True)
    key: str = Field(unique=True, description="The deck file's id.")
    name: str
    description: str = ""
    added_at: datetime = Field(sa_type=UtcDateTime)
    updated_at: datetime = Field(sa_type=UtcDateTime)
    exam_on: str | None = Field(
        default=None,
        description="The day the learner sits an exam on this deck, YYYY-MM-DD (schema 16).",
    )


class Card(SQLModel, table=True):
    """A card as its deck file describes it; ``content`` is the card's JSON from that file."""

    __table_args__ = (
        UniqueConstraint("deck_id", "key"),
        Index("ix_card_deck_position", "deck_id", "position"),
        # The cards of an Anki note, and the note types cards name (schema 20).
        *(
            Index(name, text(expression), sqlite_where=text(note_types.ANKI_CARD))
            for name, expression in note_types.INDEXES.items()
        ),
    )

    id: int | None = Field(default=None, primary_key=True)
    deck_id: int = Field(foreign_key="deck.id", index=True)
    key: str = Field(description="The card's id in its deck file.")
    position: int = Field(description="Order in the deck file; new cards are shown in it.")
    kind: str = Field(description="'choice' or 'basic'.")
    content: str
    added_at: datetime = Field(sa_type=UtcDateTime)
    updated_at: datetime = Field(sa_type=UtcDateTime)
    search_text: str = Field(
        default="",
        sa_column_kwargs={"server_default": ""},
        description="The card's texts in one column for search; a trigger keeps it.",
    )
    flag: int = Field(default=0, sa_column_kwargs={"server_default": "0"}, description="0-7.")
    edited: bool = Field(
        default=False,
        sa_column_kwargs={"server_default": "0"},
        description="Changed in Recall: a newer bundled deck keeps this card's text.",
    )
    seed: int = Field(
        unique=True,
        index=True,
        description=(
            "A random positive 62-bit number the card keeps on every device: it seeds the "
            "interval fuzz and is the card's id in export-reviews. Cards from before schema "
            "11 have their id."
        ),
    )


class CardMemory(SQLModel, table=True):
    """A card's scheduling state: a cache of replaying its reviews, kept beside the card."""

    __tablename__ = "card_memory"
    __table_args__ = (
        Index("ix_card_memory_state_due", *STATE_DUE),
        # Today's queue and the deck list's counts: by deck, state and due time, with what
        # leaves a card out of study (suspended, buried until), so they never look up the
        # table for it.
        Index("ix_card_memory_deck_queue", "deck_id", "state", "due", "suspended", "buried_until"),
        # The buried cards, so the queue finds when the next one comes back without a scan.
        Index(
            "ix_card_memory_buried",
            "buried_until",
            sqlite_where=text("buried_until IS NOT NULL"),
        ),
        # The statistics' forecast: studied cards not suspended, by deck and due date.
        Index(
            "ix_card_memory_studied_due",
            "deck_id",
            "due",
            sqlite_where=text("state <> 0 AND NOT suspended"),
        ),
    )

    card_id: int = Field(foreign_key="card.id", primary_key=True)
    deck_id: int | None = Field(
        default=None,
        foreign_key="deck.id",
        description="The card's deck, kept here so today's queue is one index walk.",
    )
    state: int = Field(default=0, description="0 new, 1 learning, 2 review, 3 relearning.")
    step: int | None = None
    stability: float | None = None
    difficulty: float | None = None
    due: datetime | None = Field(default=None, sa_type=UtcDateTime)
    last_review: datetime | None = Field(default=None, sa_type=UtcDateTime)
    suspended: bool = Field(
        default=False,
        sa_column_kwargs={"server_default": "0"},
        description="Kept out of study until unsuspended.",
    )
    buried_until: datetime | None = Field(
        default=None, sa_type=UtcDateTime, description="Kept out of study until this time."
    )
    position: int | None = Field(
        default=None,
        description=(
            "The card's position, kept equal to card.position (a trigger follows its changes; "
            "schema 18), so searches sorted by due never read the wide card row."
        ),
    )


class CardTag(SQLModel, table=True):
    """One tag of one card: the card's tags, kept from its content by a trigger, for search."""

    __tablename__ = "card_tag"
    __table_args__ = (Index("ix_card_tag_tag", "tag", "card_id"),)

    card_id: int = Field(foreign_key="card.id", primary_key=True)
    tag: str = Field(primary_key=True, sa_type=NOCASE_TEXT)


class CardOrigin(SQLModel, table=True):
    """Where a card moved out of its deck, or to another key, came from (schema 23): the
    deck and key its deck file gives it, so that importing that file again finds the card
    where the learner put it instead of adding it a second time. The first origin stays:
    it is the one a file knows."""

    __tablename__ = "card_origin"
    __table_args__ = (Index("ix_card_origin_key", "deck_key", "card_key"),)

    card_id: int = Field(foreign_key="card.id", ondelete="CASCADE", primary_key=True)
    deck_key: str | None = Field(
        description=(
            "The deck's file id the card came from; None when unknown: a card changed in "
            "Recall before schema 23, which may have been moved (its key then is "
            "``card_key``)."
        )
    )
    card_key: str = Field(description="The card's id in that deck's file.")


class Review(SQLModel, table=True):
    """One answer, appended and never changed (a trigger refuses updates)."""

    # A card's reviews, in the order they are replayed; it serves lookups by card alone too,
    # and covers what the replay reads (schema 14). The one by time covers what the review
    # log reads (schema 9). Either way SQLite never looks a row up. The entries follow-ups
    # are made from have one of their own, which covers what they read (schema 19).
    __table_args__ = (
        Index("ix_review_card_history", *REVIEW_BY_CARD),
        Index("ix_review_reviewed_at", *REVIEW_BY_TIME),
        Index(
            "ix_review_follow_up_entries",
            *REVIEW_FOLLOW_UP_ENTRIES,
            sqlite_where=text(FOLLOW_UP_ENTRIES),
        ),
    )

    id: int | None = Field(default=None, primary_key=True)
    card_id: int = Field(foreign_key="card.id")
    reviewed_at: datetime = Field(sa_type=UtcDateTime)
    rating: int = Field(description="FSRS rating 1-4.")
    duration_ms: int = Field(description="From the card appearing to the answer.")
    state_before: int = Field(description="The card's state before this review, 0-3.")
    picked: str | None = Field(
        default=None, description="JSON list of the picked choices' texts; null on basic cards."
    )
    correct: bool
    kind: int = Field(
        default=0,
        sa_column_kwargs={"server_default": "0"},
        description="0 an answer, 1 forget (back to new), 2 due date set by hand, 3 cram, "
        "4 memory state kept from another app, 5 a follow-up answer (a misconception asked "
        "again), which leaves the card's schedule as it was.",
    )
    set_due: datetime | None = Field(
        default=None, sa_type=UtcDateTime, description="For kinds 2 and 4: the due date set."
    )
    set_stability: float | None = Field(
        default=None, description="For kind 4: the stability set (schema 15)."
    )
    set_difficulty: float | None = Field(
        default=None, description="For kind 4: the difficulty set (schema 15)."
    )
    proposed_rating: int | None = Field(
        default=None,
        description="The rating Recall proposed (1-4); null before schema 5 and for imports.",
    )
    uid: str | None = Field(
        default=None,
        index=True,
        unique=True,
        description="The review's id on every device (schema 10): a hash of what it is.",
    )


class Preference(SQLModel, table=True):
    """Facts kept as JSON by key: the learner's preferences, the installed bundled decks."""

    key: str = Field(
        primary_key=True,
        description="'preferences'; 'bundled_decks' (file name -> SHA-256 as installed).",
    )
    value: str = Field(description="JSON object: option keys and values, or file hashes.")


class AnkiNoteTypeRecord(SQLModel, table=True):
    """An Anki note type (fields, templates, CSS) that imported cards show their note through.

    A row never changes: its key is the SHA-256 of its content (``content.anki_note``), so
    an edited note type is a new row and every computer holds the same rows (schema 17).
    """

    __tablename__ = "anki_note_type"

    key: str = Field(primary_key=True, description="SHA-256 of ``content``, in hex.")
    content: str = Field(description="The note type's canonical JSON.")


class PresetRecord(SQLModel, table=True):
    """A deck preset; id 1 is the default preset every deck starts with."""

    __tablename__ = "preset"

    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(unique=True)
    config: str = Field(description="JSON object of option keys and values.")


class DeckPreset(SQLModel, table=True):
    """Which preset a deck uses; a deck without a row uses the default preset."""

    __tablename__ = "deck_preset"

    deck_id: int = Field(foreign_key="deck.id", primary_key=True)
    preset_id: int = Field(foreign_key="preset.id", index=True)


class SetAsideReview(SQLModel, table=True):
    """A review taken out of the history that schedules its card, kept here, never deleted.

    ``recall check --repair`` moves here the reviews dated in the future when it runs (a
    clock that ran ahead while studying, an imported history from a wrong clock): with the
    same columns as ``review`` and its id, when and why it was set aside.
    """

    __tablename__ = "set_aside_review"

    id: int | None = Field(default=None, primary_key=True)
    card_id: int = Field(foreign_key="card.id", index=True)
    reviewed_at: datetime = Field(sa_type=UtcDateTime)
    rating: int
    duration_ms: int
    state_before: int
    picked: str | None = None
    correct: bool
    kind: int = Field(
        default=0,
        sa_column_kwargs={"server_default": "0"},
        description="As in review: 0 an answer, 1 forget, 2 due date set by hand.",
    )
    set_due: datetime | None = Field(
        default=None, sa_type=UtcDateTime, description="For kinds 2 and 4: the due date set."
    )
    set_stability: float | None = None
    set_difficulty: float | None = None
    proposed_rating: int | None = None
    set_aside_at: datetime = Field(sa_type=UtcDateTime)
    reason: str
    uid: str | None = Field(default=None, description="As in review (schema 10).")


class ReplayChange(SQLModel, table=True):
    """A card whose history, schedule or deck changed since check last verified it.

    Written only by triggers (``verification.TRIGGERS``); check forgets a row once it has
    replayed the card and its mark is still the one it read.
    """

    __tablename__ = "replay_change"

    card_id: int = Field(primary_key=True, description="Not a foreign key: deleted cards too.")
    mark: int = Field(description="random() when the change was noted.")


class ReplayVerified(SQLModel, table=True):
    """One row: the presets' generation (bumped by triggers) and the one check verified."""

    __tablename__ = "replay_verified"

    id: int = Field(primary_key=True, description="Always 1.")
    generation: int
    verified_generation: int | None = None
    version: str | None = Field(default=None, description="The replay that verified it.")


class StudyDayCount(SQLModel, table=True):
    """Answers counted by deck, study day, kind, first of the day, rating and result; kept by
    ``study_days`` (see there), never written by hand."""

    __tablename__ = "study_day_count"

    deck_id: int = Field(primary_key=True)
    day: int = Field(primary_key=True, description="Study days since 1970-01-01.")
    kind: int = Field(primary_key=True, description="0 learning, 1 young, 2 mature, 3 relearning.")
    first_of_day: bool = Field(primary_key=True)
    rating: int = Field(primary_key=True)
    correct: bool = Field(primary_key=True)
    reviews: int
    time_ms: int


class StudyHourCount(SQLModel, table=True):
    """Answers counted by deck, study day, local hour, rating, rating proposed and result;
    kept by ``study_days``."""

    __tablename__ = "study_hour_count"

    deck_id: int = Field(primary_key=True)
    day: int = Field(primary_key=True)
    hour: int = Field(primary_key=True, description="Local hour 0-23.")
    rating: int = Field(primary_key=True)
    proposed: int = Field(primary_key=True, description="The rating proposed; 0 when unknown.")
    correct: bool = Field(primary_key=True)
    reviews: int


class StudyDayState(SQLModel, table=True):
    """One row: the way ``study_day_count`` counts days, and from when it is stale."""

    __tablename__ = "study_day_state"

    id: int = Field(primary_key=True)
    local_key: str = Field(description="The rollover hour and time zone offsets counted in.")
    stale_from: int | None = Field(
        default=None,
        sa_type=BigInteger,
        description="UTC microseconds: counts from that answer's day on are stale; null: none.",
    )
    changes: int = Field(description="How many times answers changed: counted by the triggers.")


class WrongPickCount(SQLModel, table=True):
    """How many wrong answers picked each option text of a card, and when last; kept by
    triggers (``pick_counts``), never written by hand."""

    __tablename__ = "wrong_pick_count"
    __table_args__ = (
        Index(
            "ix_wrong_pick_count_rank",
            text("times DESC"),
            text("last_at DESC"),
            "card_id",
            "choice",
        ),
    )

    card_id: int = Field(primary_key=True)
    choice: str = Field(primary_key=True)
    times: int
    last_at: int = Field(sa_type=BigInteger, description="UTC microseconds.")


# The follow-ups' kept summary and sync's own tables have modules of their own.
from recall.storage import follow_up_tables, sync_tables  # noqa: E402, F401  (they declare them)
