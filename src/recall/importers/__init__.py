"""Readers of outside deck formats: a file in, deck models (and history and media) out.

Importers never touch the database: ``library`` writes what they return in one
transaction. Each format has its own module; they share the types below.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from recall.content.deck_format import Deck
from recall.core.memory import Rating, ReviewKind
from recall.core.presets import Preset
from recall.core.progress import Cancelled, Progress, never_cancelled, no_progress
from recall.importers.card_spool import CardSpool

__all__ = [
    "Cancelled",
    "ImportedCardState",
    "ImportedChange",
    "ImportedPackage",
    "ImportedReview",
    "Progress",
    "StagedMedia",
    "never_cancelled",
    "no_progress",
]


@dataclass(frozen=True)
class ImportedReview:
    """One review from another app's history, in Recall's terms.

    Attributes:
        reviewed_at: When it happened, aware UTC.
        rating: Anki's ease 1-4 is the FSRS rating.
        duration_ms: How long the answer took.
    """

    reviewed_at: datetime
    rating: Rating
    duration_ms: int


@dataclass(frozen=True)
class ImportedChange:
    """A schedule change made in another app: a forget, a due date set, or where it left a card.

    Attributes:
        reviewed_at: When it was made, aware UTC.
        kind: ``ReviewKind.FORGET``, ``ReviewKind.SET_DUE`` or ``ReviewKind.MEMORY``.
        set_due: For a due date set or a memory entry, the date.
        stability: For a memory entry, the stability the app kept for the card.
        difficulty: For a memory entry, the difficulty the app kept for the card.
        restates: The change only restates where the other app left the card (its due day,
            or new again); it is left out when the card's history already puts it there,
            so a card that went out to that app and came back unchanged gains nothing.
    """

    reviewed_at: datetime
    kind: ReviewKind
    set_due: datetime | None = None
    restates: bool = False
    stability: float | None = None
    difficulty: float | None = None


@dataclass(frozen=True)
class ImportedCardState:
    """What another app says of a card outside its schedule.

    Attributes:
        suspended: Kept out of study until unsuspended.
        buried_until: Kept out of study until then (aware UTC), or None.
        flag: Its flag, 0 for none.
    """

    suspended: bool = False
    buried_until: datetime | None = None
    flag: int = 0


@dataclass(frozen=True)
class StagedMedia:
    """An image copied out of a package into a staging folder inside the data directory.

    Attributes:
        name: Its stored name (``card_html.media_name``): SHA-256 plus image suffix.
        path: Where the staged copy is; ``library`` moves it into the media folder.
    """

    name: str
    path: Path


@dataclass
class ImportedPackage:
    """Everything one file holds, ready for ``library`` to write.

    Attributes:
        decks: The decks, each a valid deck model (card ids are stable keys: importing
            the same file again updates the same cards).
        reviews: Review history by (deck id, card id), oldest first.
        media: Images the cards reference.
        notes: Lines for the import report: what was skipped and why, what is not
            supported, history entries left out of the replay.
        modified: When each card's content was last changed where it came from (Anki's
            note modification time), by (deck id, card id); re-importing keeps whichever
            of that and Recall's copy is newer. Formats without such times leave it empty.
        exported: For each card of a note Recall exported (matched by the note's guid),
            by (deck id, card id), the fingerprint of the note's fields
            (``recall_notes.fields_fingerprint``): the card is left as stored when Anki
            did not change the note.
        changes: Schedule changes made by hand, by (deck id, card id), oldest first;
            replayed with the reviews, in time order.
        card_states: Suspension, burying and flags by (deck id, card id).
        spooled: For a deck read card by card (Recall's JSON deck), by deck id, its cards
            in a spool file; the deck in ``decks`` then has no cards of its own.
        presets: The preset each deck used where it came from (Anki's deck options), by
            deck id.
        note_types: The Anki note types the cards show their note through, as canonical
            JSON by key (``content.anki_note``).
    """

    decks: list[Deck]
    reviews: dict[tuple[str, str], list[ImportedReview]] = field(default_factory=dict)
    media: list[StagedMedia] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    modified: dict[tuple[str, str], datetime] = field(default_factory=dict)
    exported: dict[tuple[str, str], str] = field(default_factory=dict)
    changes: dict[tuple[str, str], list[ImportedChange]] = field(default_factory=dict)
    card_states: dict[tuple[str, str], ImportedCardState] = field(default_factory=dict)
    spooled: dict[str, CardSpool] = field(default_factory=dict)
    presets: dict[str, Preset] = field(default_factory=dict)
    note_types: dict[str, str] = field(default_factory=dict)
