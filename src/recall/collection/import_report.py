"""What an import did, deck by deck and file by file, in the words the learner reads."""

from __future__ import annotations

from dataclasses import dataclass, field

from recall.collection import reimport
from recall.core import wording
from recall.core.i18n import tr, trn


@dataclass(frozen=True)
class DeckReport:
    """What importing changed in one deck.

    Attributes:
        kept: Cards the database has that the file no longer lists; import never deletes.
        reviews: Reviews added from the file's history.
        newer_kept: Cards left as they are because Recall's copy changed after the file's
            (Anki's note modification time), as Anki keeps the newer note.
        merged_from: The file's decks of this deck's name that went into it (Anki merges
            decks of one name), by their ids in the file.
        merged_into_existing: Whether they went into a deck already in the collection.
        noted: Cards an earlier Recall imported without their Anki note that now have it
            (counted in ``updated`` too).
        kept_sides: Cards imported without their Anki note that stay without it: the
            learner changed them and their sides are not what the note renders.
        elsewhere: Cards the learner had moved to another deck (or key), found where they
            are instead of added again (counted in ``updated`` or ``unchanged`` too).
    """

    deck_key: str
    deck_name: str
    new_deck: bool
    added: int
    updated: int
    unchanged: int
    kept: int
    reviews: int = 0
    newer_kept: int = 0
    merged_from: tuple[str, ...] = ()
    merged_into_existing: bool = False
    noted: int = 0
    kept_sides: int = 0
    elsewhere: int = 0

    def describe(self, with_key: bool = True) -> str:
        """One line for the terminal (with the deck's id, which commands take) or the
        window (``with_key`` False: the deck's name alone, as the deck list shows it)."""
        # "added", not "new": an imported card may come with its history, no new card then.
        counts = tr("{added} added, {updated} updated, {unchanged} unchanged cards").format(
            added=self.added, updated=self.updated, unchanged=self.unchanged
        )
        if self.newer_kept:
            counts += tr(", {count} changed here since kept").format(count=self.newer_kept)
        counts += reimport.note_counts(self.noted, self.kept_sides)
        if self.elsewhere:
            counts += trn(
                ", {count} found in the deck it was moved to",
                ", {count} found in the decks they were moved to",
                self.elsewhere,
            ).format(count=wording.number(self.elsewhere))
        if self.reviews:
            counts += ", " + trn("{count} review", "{count} reviews", self.reviews).format(
                count=wording.number(self.reviews)
            )
        if self.kept:
            counts += tr("; {count} kept that the file no longer lists").format(count=self.kept)
        key = f" ({self.deck_key})" if with_key else ""
        name = repr(self.deck_name)
        if self.merged_from:
            merged = f" ({', '.join(self.merged_from)})" if with_key else ""
            if self.merged_into_existing:
                line = tr("merged deck {deck}{merged} into the existing deck {deck}{key}: {counts}")
            else:
                line = tr("merged deck {deck}{merged} into the deck {deck}{key}: {counts}")
            return line.format(deck=name, merged=merged, key=key, counts=counts)
        if self.new_deck:
            line = tr("added deck {deck}{key}: {counts}")
        else:
            line = tr("updated deck {deck}{key}: {counts}")
        return line.format(deck=name, key=key, counts=counts)


@dataclass(frozen=True)
class ImportReport:
    """What importing one file did: its decks, its media, and notes on what was left out.

    Attributes:
        media: Images kept.
        sounds: Sounds kept (played in Recall).
        videos: Videos kept (opened with the system's player).
    """

    source: str
    decks: list[DeckReport]
    media: int = 0
    notes: list[str] = field(default_factory=list)
    sounds: int = 0
    videos: int = 0

    def lines(self, with_source: bool = True, with_keys: bool = True) -> list[str]:
        """The report as lines: one per deck, then the images, then each note.

        Args:
            with_source: Start each line with the file's name, as the terminal shows it.
            with_keys: Name each deck's id too, as the terminal shows it (commands take it).
        """
        lines = [deck.describe(with_keys) for deck in self.decks]
        kept = []
        if self.media:
            images = trn("{count} image", "{count} images", self.media)
            kept.append(images.format(count=wording.number(self.media)))
        if self.sounds:
            sounds = trn("{count} sound", "{count} sounds", self.sounds)
            kept.append(sounds.format(count=wording.number(self.sounds)))
        if self.videos:
            videos = trn("{count} video", "{count} videos", self.videos)
            kept.append(videos.format(count=wording.number(self.videos)))
        if kept:
            lines.append(", ".join(kept))
        lines += [tr("note: {notice}").format(notice=note) for note in self.notes]
        return [f"{self.source}: {line}" for line in lines] if with_source else lines
