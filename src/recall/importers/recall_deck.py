"""Recall's own JSON deck, with the sound files its cards name, staged beside the import.

A card's question, front, back or explanation may hold ``[sound:hello.mp3]``. The file is
looked up in a ``media`` folder next to the deck file, then next to the deck file itself;
it is copied (never moved) into the staging folder under its generated name
(``card_html.media_name``) and the reference is rewritten to that name. A name that is
already a stored media name (what Recall's own JSON export writes) is kept as it is.
"""

from __future__ import annotations

import os
import stat
import tempfile
from functools import partial
from pathlib import Path, PurePath

from pydantic import ValidationError

from recall.content import card_html, sound
from recall.content.deck_format import BasicCard, ChoiceCard
from recall.content.deck_stream import stream_deck
from recall.content.search_text import search_text
from recall.core import wording
from recall.core.errors import DeckError
from recall.core.i18n import tr, trn
from recall.core.progress import Cancelled, Progress, never_cancelled, no_progress
from recall.importers import ImportedPackage, StagedMedia
from recall.importers._media import MAX_SOUND_BYTES, MAX_VIDEO_BYTES
from recall.importers._report import Tally
from recall.importers.card_spool import CardSpool

MEDIA_FOLDER = "media"
MAX_NAME_LENGTH = 200


def read_recall_deck(
    path: Path,
    staging: Path,
    progress: Progress = no_progress,
    cancelled: Cancelled = never_cancelled,
) -> ImportedPackage:
    """Read a Recall deck file card by card and stage the sounds its cards name.

    Each card is checked as it is read, its sounds staged and its stored JSON put in a
    spool (``card_spool``: in memory up to 64 MB of JSON, then a file in ``staging``);
    no card's model outlives its check, and the file is never held whole.

    Args:
        path: The deck's JSON file.
        staging: An existing folder inside the data directory; staged sounds and the
            spool of cards are left here for the caller.
        progress: Told as the cards are read how many of the file's bytes are read, and
            of how many.
        cancelled: Asked as the cards are read.

    Returns:
        The deck's own fields, its cards spooled (``ImportedPackage.spooled``), the
        staged files, and a note on any sound that was not found.

    Raises:
        DeckError: The deck is invalid, or a sound name is not a plain file name of a kind
            Recall knows, or a sound file is too large or cannot be read.
        ImportCancelledError: ``cancelled()`` became true.
    """
    stager = _SoundStager(path, staging)
    spool = CardSpool(_spool_path(staging))

    def take(_position: int, card: ChoiceCard | BasicCard) -> None:
        card = stager.card(card)
        content = card.model_dump_json(exclude_defaults=True)
        spool.add(card.id, card.type, content, search_text(card))

    try:
        deck, _count = stream_deck(path, take, cancelled, progress)
        spool.close()
        if stager.problems:
            raise DeckError(str(path), stager.problems)
    except BaseException:
        spool.discard()
        for staged in stager.media:
            staged.path.unlink(missing_ok=True)
        raise
    notes = stager.missing.line(
        trn(
            "{count} sound not found next to the deck and left out",
            "{count} sounds not found next to the deck and left out",
            stager.missing.count,
        ).format(count=wording.number(stager.missing.count))
    )
    return ImportedPackage(decks=[deck], media=stager.media, notes=notes, spooled={deck.id: spool})


def _spool_path(staging: Path) -> Path:
    """A new file in ``staging`` for a deck's cards."""
    handle, name = tempfile.mkstemp(prefix="cards-", suffix=".spool", dir=staging)
    os.close(handle)
    return Path(name)


class _SoundStager:
    """Rewrites the sound references of one deck's cards, staging each file once."""

    def __init__(self, deck_file: Path, staging: Path) -> None:
        self.media: list[StagedMedia] = []
        self.missing = Tally()
        self.problems: list[str] = []
        self._folder = deck_file.parent
        self._source = str(deck_file)
        self._staging = staging
        self._resolved: dict[str, str | None] = {}

    def card(self, card: ChoiceCard | BasicCard) -> ChoiceCard | BasicCard:
        """The card with every sound reference resolved (or dropped when missing)."""
        fields = ("question", "explanation") if isinstance(card, ChoiceCard) else (
            "front", "back", "explanation"
        )  # fmt: skip
        update: dict[str, str] = {}
        for field in fields:
            text: str = getattr(card, field)
            if "[sound:" not in text:
                continue
            where = tr("card {card}, {field}").format(card=repr(card.id), field=field)
            rewritten = sound.replace_references(text, partial(self._resolve, where=where))
            if rewritten != text:
                update[field] = rewritten
        if not update:
            return card
        try:
            return type(card).model_validate({**card.model_dump(), **update})
        except ValidationError as error:
            for detail in error.errors():
                self.problems.append(
                    tr("card {card}: {problem} once its sounds are left out").format(
                        card=repr(card.id), problem=detail["msg"]
                    )
                )
            return card

    def _resolve(self, name: str, where: str) -> str | None:
        if name not in self._resolved:
            self._resolved[name] = self._stage(name, where)
        return self._resolved[name]

    def _stage(self, name: str, where: str) -> str | None:
        kind = sound.kind_of(name)
        if card_html.is_media_name(name) and kind is not None:
            found = self._find(name)
            return self._copy(found, name, kind, where) if found else name
        if not _plain_name(name):
            self.problems.append(
                tr("{where}: sound {name} must be a plain file name").format(
                    where=where, name=repr(name[:80])
                )
            )
            return None
        if kind is None:
            known = ", ".join(sorted(sound.PLAYABLE_SUFFIXES | sound.EXTERNAL_SUFFIXES))
            self.problems.append(
                tr("{where}: {name} is not a sound or video Recall knows ({known})").format(
                    where=where, name=repr(name), known=known
                )
            )
            return None
        found = self._find(name)
        if found is None:
            self.missing.add(f"{name!r} ({where})")
            return None
        return self._copy(found, name, kind, where)

    def _find(self, name: str) -> Path | None:
        for folder in (self._folder / MEDIA_FOLDER, self._folder):
            candidate = folder / name
            try:
                mode = candidate.lstat().st_mode
            except OSError:
                continue
            if stat.S_ISREG(mode):  # a link could point anywhere: only plain files
                return candidate
        return None

    def _copy(self, found: Path, name: str, kind: sound.MediaKind, where: str) -> str | None:
        limit = MAX_SOUND_BYTES if kind is sound.MediaKind.SOUND else MAX_VIDEO_BYTES
        try:
            with found.open("rb") as file:
                data = file.read(limit + 1)
        except OSError as error:
            self.problems.append(
                tr("{where}: cannot read {file} ({reason})").format(
                    where=where, file=found, reason=error.strerror
                )
            )
            return None
        if len(data) > limit:
            self.problems.append(
                tr("{where}: {name} is larger than {size} MiB").format(
                    where=where, name=repr(name), size=limit // 1024**2
                )
            )
            return None
        stored = card_html.media_name(data, name)
        target = self._staging / stored
        if not target.exists():
            try:
                target.write_bytes(data)
            except OSError as error:
                raise DeckError(
                    self._source,
                    [
                        tr("cannot stage {name} in {folder} ({reason})").format(
                            name=repr(name), folder=self._staging, reason=error.strerror
                        )
                    ],
                ) from None
            self.media.append(StagedMedia(name=stored, path=target))
        return stored


def _plain_name(name: str) -> bool:
    """A file name with no folder part, not hidden, of printable characters."""
    return (
        0 < len(name) <= MAX_NAME_LENGTH
        and PurePath(name).name == name
        and "/" not in name
        and "\\" not in name
        and not name.startswith(".")
        and name.isprintable()
    )
