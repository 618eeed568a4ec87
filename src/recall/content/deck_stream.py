"""A deck file checked card by card as it is read, so no deck is ever held whole.

``stream_deck`` reads the file a piece at a time (``json_stream``), validates each card on
its own as it comes and hands it on, and keeps only what the file-wide checks need (each
card's id and position, and the problems). It refuses what ``parse_deck`` refuses, with
the same messages in the same order (tests/content/test_deck_stream.py holds it on every
fixture and on damaged decks): the checks that only run once others pass (the header
before the cards, the unique ids once every card is valid) are decided when the whole
file has been read, from what was kept. Two corners differ: when both the deck's own
fields and its cards hold half characters, the cards' are counted to the ten listed on
their own; and a file over 64 MB that is not a JSON object is refused as such, without
a whole read to say more.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO

from pydantic import ValidationError

from recall.content.card_limits import MAX_FIELD_CHARS, MAX_MARKDOWN_NESTING, MAX_NAME_CHARS
from recall.content.deck_format import (
    CARD_ADAPTER,
    FIELD_NAMES,
    MAX_DECK_BYTES,
    BasicCard,
    ChoiceCard,
    Deck,
    card_limit_problems,
    check_header,
    limit_problems,
    parse_deck,
)
from recall.content.deck_json import (
    DuplicateKeyError,
    reject_duplicate_keys,
    utf8_problem,
    whole_number,
)
from recall.content.deck_problems import (
    card_where,
    describe,
    describe_in_card,
    half_character_problems,
    may_hold_half_characters,
    where,
)
from recall.content.json_stream import JsonStream
from recall.core.errors import DeckError, ImportCancelledError

MAX_STREAMED_DECK_BYTES = 1024**3
"""The largest deck file an import reads (1 GiB: some two million cards of a few sentences)."""

CANCEL_CHECK_CARDS = 1000

TakeCard = Callable[[int, ChoiceCard | BasicCard], None]

# A card that passes every check, standing in for the cards while the deck's own fields
# are validated.
_STAND_IN = {"id": "x", "type": "basic", "front": "x", "back": "x"}


# In a card's JSON, a string opening with as many marker or space characters as Markdown
# needs to nest too deep (a raw tab cannot be in a JSON string). An escape (a newline, a
# surrogate...) and the key that can make the card HTML are looked for as plain substrings:
# one pattern with the three alternatives tried at every character took 4x as long.
_DEEP_MARKDOWN = re.compile(r'"[ >*+\-.)0-9]{' + str((MAX_MARKDOWN_NESTING + 2) // 2) + "}")


def _plain_source(text: str) -> bool:
    """Whether a card's JSON shows, without parsing, that the card is within the bounds
    (``card_limit_problems``) but for its tags' length, and holds no half character: it
    is no longer than a field may be, so no field is; no string in it has an escape, so
    each is one line; none starts like deep Markdown; the card is not HTML."""
    return (
        len(text) <= MAX_FIELD_CHARS
        and "\\" not in text
        and '"markup"' not in text
        and _DEEP_MARKDOWN.search(text) is None
    )


class _Streamed:
    """Where the cards stood among the deck's keys (they are not kept)."""


_CARDS = _Streamed()


def stream_deck(
    path: Path,
    take: TakeCard,
    cancelled: Callable[[], bool] = lambda: False,
    progress: Callable[[int, int], object] = lambda _done, _total: None,
) -> tuple[Deck, int]:
    """Read and validate a deck file card by card.

    Args:
        path: The deck file.
        take: Called with each card's position and card, in order, while the file has
            shown no problem (once one is found the import cannot succeed).
        cancelled: Asked every ``CANCEL_CHECK_CARDS`` cards.
        progress: Told every ``CANCEL_CHECK_CARDS`` cards how many of the file's bytes
            are read, and of how many.

    Returns:
        The deck's own fields (its ``cards`` empty) and how many cards it has.

    Raises:
        DeckError: The file cannot be read or breaks the format: the problems
            ``load_deck`` would list for it (after the cards already taken).
        ImportCancelledError: ``cancelled()`` became true.
    """
    source = str(path)
    try:
        size = path.stat().st_size
        if size > MAX_STREAMED_DECK_BYTES:
            raise DeckError(source, [f"the file is {size} bytes; decks are limited to 1 GiB"])
        file = path.open("rb")
    except FileNotFoundError:
        raise DeckError(source, ["no such file"]) from None
    except IsADirectoryError:
        raise DeckError(source, ["is a folder, not a deck file"]) from None
    except PermissionError:
        raise DeckError(source, ["permission denied"]) from None
    with file:
        reader = _DeckReader(file, source, take, cancelled, lambda done: progress(done, size))
        return reader.read(path, size)


class _DeckReader:
    """One pass over a deck file, keeping what the file-wide checks need."""

    def __init__(
        self,
        file: BinaryIO,
        source: str,
        take: TakeCard,
        cancelled: Callable[[], bool],
        progress: Callable[[int], object],
    ) -> None:
        decoder = json.JSONDecoder(object_pairs_hook=reject_duplicate_keys, parse_int=whole_number)
        scan: Callable[[str, int], tuple[object, int]] = decoder.scan_once  # type: ignore[attr-defined]
        self._stream = JsonStream(file, source, scan, utf8_problem)
        self._source = source
        self._take = take
        self._cancelled = cancelled
        self._progress = progress
        self._count = 0
        self._halves: list[str] = []
        self._card_problems: list[str] = []
        self._limits: list[str] = []
        self._ids: dict[str, int] = {}
        self._repeated_id = ""

    def read(self, path: Path, size: int) -> tuple[Deck, int]:
        """Read the whole file, then decide on it as ``parse_deck`` would."""
        try:
            pairs = self._deck_pairs(path, size)
        except DuplicateKeyError as error:
            raise self._error(str(error)) from None
        except RecursionError:
            raise self._error("the JSON is nested too deeply to be a deck") from None
        return self._decide(pairs), self._count

    def _error(self, problem: str) -> DeckError:
        """A problem of the JSON that ends reading, once the rest is known to be UTF-8."""
        self._stream.finish()
        return DeckError(self._source, [problem])

    def _deck_pairs(self, path: Path, size: int) -> list[tuple[str, object]]:
        """The top-level object's keys and values, the cards streamed in their place."""
        stream = self._stream
        if stream.skip() != "{":
            # Not an object, so not a deck: what parse_deck says about it.
            if size <= MAX_DECK_BYTES:
                parse_deck(path.read_bytes(), self._source)
            raise self._error("must be an object ({...})")
        stream.pos += 1
        pairs: list[tuple[str, object]] = []
        found = stream.skip()
        if found == "}":
            stream.pos += 1
        elif found != '"':
            raise stream.invalid("Expecting property name enclosed in double quotes", stream.pos)
        while found != "}":
            key = stream.key()
            if stream.skip() != ":":
                raise stream.invalid("Expecting ':' delimiter", stream.pos)
            stream.pos += 1
            if key == "cards" and stream.skip() == "[" and all(k != "cards" for k, _ in pairs):
                self._cards()
                pairs.append((key, _CARDS))
            else:
                stream.skip()
                pairs.append((key, stream.take()))
            found = stream.skip()
            stream.pos += 1
            if found == "}":
                break
            if found != ",":
                raise stream.invalid("Expecting ',' delimiter", stream.pos - 1)
            if stream.skip() != '"':
                raise stream.invalid(
                    "Expecting property name enclosed in double quotes", stream.pos
                )
        reject_duplicate_keys(pairs)
        if stream.skip() != "":
            raise stream.invalid("Extra data", stream.pos)
        return pairs

    def _cards(self) -> None:
        """Read the cards array, checking and handing on each card."""
        stream = self._stream
        stream.pos += 1
        if stream.skip() == "]":
            stream.pos += 1
            return
        while True:
            card = stream.take()
            self._card(self._count, card, stream.text[stream.start : stream.pos])
            self._count += 1
            if self._count % CANCEL_CHECK_CARDS == 0:
                if self._cancelled():
                    raise ImportCancelledError
                self._progress(stream.bytes_read)
            found = stream.skip()
            stream.pos += 1
            if found == "]":
                return
            if found != ",":
                raise stream.invalid("Expecting ',' delimiter", stream.pos - 1)
            stream.skip()

    def _card(self, index: int, raw: object, text: str) -> None:
        """Check one card as the deck's validation would, and take it if all is well."""
        plain = _plain_source(text)
        if not plain and may_hold_half_characters(text):
            half_character_problems(
                raw,
                lambda location: card_where(index, raw, location[2:]),
                self._halves,
                ["cards", index],
            )
        try:
            card = CARD_ADAPTER.validate_python(raw)
        except ValidationError as error:
            self._card_problems += [
                describe_in_card(detail, index, raw, FIELD_NAMES) for detail in error.errors()
            ]
            return
        first = self._ids.setdefault(card.id, index)
        if first != index and not self._repeated_id:
            self._repeated_id = (
                f"cards[{index}] reuses the id {card.id!r} of cards[{first}]; card ids must "
                "be unique within a deck"
            )
        if not plain or any(len(tag) > MAX_NAME_CHARS for tag in card.tags):
            where_card = f"cards[{index}] (id {card.id!r})"
            self._limits += [f"{where_card}: {problem}" for problem in card_limit_problems(card)]
        if not (self._halves or self._card_problems or self._limits or self._repeated_id):
            self._take(index, card)

    def _decide(self, pairs: list[tuple[str, object]]) -> Deck:
        """The deck's fields once every card is read, or the problems ``parse_deck``
        would give, in its order."""
        raw = {key: ([] if value is _CARDS else value) for key, value in pairs}
        check_header(raw, self._source)
        self._check_halves(pairs, raw)
        streamed = any(value is _CARDS for _key, value in pairs)
        checked = {**raw, "cards": [_STAND_IN]} if streamed and self._count else raw
        problems: list[str] = []
        deck: Deck | None = None
        try:
            deck = Deck.model_validate(checked)
        except ValidationError as error:
            problems = [describe(detail, raw, FIELD_NAMES) for detail in error.errors()]
        extra = next(
            (i for i, problem in enumerate(problems) if not problem.startswith(_FIELDS)),
            len(problems),
        )
        problems[extra:extra] = self._card_problems
        if problems:
            raise DeckError(self._source, problems)
        if self._repeated_id:
            raise DeckError(self._source, [self._repeated_id])
        assert deck is not None
        deck = deck.model_copy(update={"cards": []})
        problems = limit_problems(deck) + self._limits
        if problems:
            raise DeckError(self._source, problems)
        return deck

    def _check_halves(self, pairs: list[tuple[str, object]], raw: dict[str, object]) -> None:
        """Refuse half characters as ``parse_deck`` does: the deck's keys, then its values
        in the file's order, the cards' where they stood."""
        problems: list[str] = []
        half_character_problems(
            {key: None for key, _ in pairs}, lambda loc: where(loc, raw), problems
        )
        for key, value in pairs:
            if value is _CARDS:
                problems += self._halves
            else:
                half_character_problems(value, lambda loc: where(loc, raw), problems, [key])
        if problems:
            raise DeckError(self._source, problems)


# A problem of the deck's own fields, as pydantic lists them before the cards' and the
# unknown keys' (an unknown key's problem starts with its name too, but after these).
_FIELDS = tuple(f"{name}: " for name in ("format", "version", "id", "name", "description", "cards"))
