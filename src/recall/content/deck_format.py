"""Recall's JSON deck format, version 1: models, their bounds, loading (the bytes read as JSON
by ``deck_json``), and errors that point at the card."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StringConstraints,
    TypeAdapter,
    ValidationError,
    WithJsonSchema,
    model_validator,
)

from recall.content.anki_note import AnkiOrigin
from recall.content.card_limits import (
    MAX_FIELD_CHARS,
    MAX_HTML_SIDE_CHARS,
    MAX_NAME_CHARS,
    html_nesting_problem,
    length_problem,
    markdown_problem,
    may_nest_markdown_deeply,
)
from recall.content.deck_json import decode_json, decode_text
from recall.content.deck_problems import (
    describe,
    half_character_problems,
    may_hold_half_characters,
    where,
)
from recall.content.occlusion import Occlusion, OcclusionShape
from recall.core.errors import DeckError
from recall.core.i18n import tr

FORMAT_NAME = "recall-deck"
FORMAT_VERSION = 1
MAX_DECK_BYTES = 64 * 1024 * 1024
MIN_CHOICES = 2
MAX_CHOICES = 10

Slug = Annotated[
    str,
    StringConstraints(pattern=r"^[a-z0-9][a-z0-9._-]{0,99}$"),
    Field(description="A stable key: lowercase letters, digits, '.', '_' and '-', at most 100."),
]
# After stripping, a text of at least one character holds one that is not whitespace;
# the pattern says so to the JSON schema (which strips nothing) and is not run again.
Text = Annotated[
    str,
    StringConstraints(strip_whitespace=True, min_length=1),
    WithJsonSchema({"type": "string", "minLength": 1, "pattern": r"\S"}),
]
Tag = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, pattern=r"^\S+$")]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)


class Choice(_Model):
    """One answer option of a choice card."""

    text: Text = Field(description="The option as shown (Markdown).")
    correct: bool = Field(default=False, description="True for a right option.")
    why: Text | None = Field(
        default=None, description="Why this option is wrong (or right), shown once picked."
    )


class ChoiceCard(_Model):
    """A multiple-choice question; with several right options it is 'select all that apply'."""

    id: Slug
    type: Literal["choice"]
    question: Text = Field(description="The question (Markdown).")
    choices: list[Choice] = Field(min_length=MIN_CHOICES, max_length=MAX_CHOICES)
    explanation: str = Field(default="", description="Shown after every answer (Markdown).")
    source: str = Field(default="", description="Where a reader can check the answer.")
    tags: list[Tag] = Field(default_factory=list)
    note: str = Field(
        default="",
        max_length=100,
        description=(
            "Cards with the same note are siblings (an Anki note's cards): once one is "
            "studied, the others wait for the next study day."
        ),
    )
    shuffle: bool = Field(
        default=True,
        description="Show the choices in a new order each time; false keeps the file's order.",
    )

    @model_validator(mode="after")
    def _check_choices(self) -> ChoiceCard:
        if not any(choice.correct for choice in self.choices):
            raise ValueError(tr('no choice is marked "correct": true'))
        if len({choice.text for choice in self.choices}) == len(self.choices):
            return self  # the common case, without a Python loop over the texts
        seen: set[str] = set()
        for index, choice in enumerate(self.choices):
            if choice.text in seen:
                raise ValueError(
                    tr("choices[{index}] repeats the text {text}").format(
                        index=index, text=repr(choice.text)
                    )
                )
            seen.add(choice.text)
        return self

    @property
    def correct_indexes(self) -> frozenset[int]:
        """Positions of the right options in ``choices``."""
        return frozenset(i for i, choice in enumerate(self.choices) if choice.correct)


class BasicCard(_Model):
    """A front/back card that the learner rates themselves."""

    id: Slug
    type: Literal["basic"]
    markup: Literal["markdown", "html"] = Field(
        default="markdown",
        description=(
            "How front and back are written: Markdown, or HTML (as Anki fields are), which "
            "is cleaned to an allow-list and may show images from Recall's media folder."
        ),
    )
    front: Text = Field(description="The prompt (Markdown, or HTML when markup is html).")
    back: Text = Field(description="The answer (Markdown, or HTML when markup is html).")
    explanation: str = Field(default="", description="Shown with the answer (Markdown).")
    source: str = Field(default="", description="Where a reader can check the answer.")
    tags: list[Tag] = Field(default_factory=list)
    hints: list[Text] = Field(
        default_factory=list,
        description=(
            "Hints (same markup as the front), each shown only when the learner asks for "
            "it before answering."
        ),
    )
    type_answer: str = Field(
        default="",
        description=(
            "When set, a type-in card: the learner types the answer into a box, and what "
            "they typed is compared with this text character by character."
        ),
    )
    note: str = Field(
        default="",
        max_length=100,
        description=(
            "Cards with the same note are siblings (an Anki note's cards): once one is "
            "studied, the others wait for the next study day."
        ),
    )
    occlusion: Occlusion | None = Field(
        default=None,
        description=(
            "When set, an image occlusion card: the front is its header and the back its "
            "extra text, and the image is shown with the masks drawn over it."
        ),
    )
    anki: AnkiOrigin | None = Field(
        default=None,
        description=(
            "When set, the card is an Anki note shown through its note type's template: "
            "it is rendered from them when shown, and front, back and hints hold that "
            "rendering for search and for a computer without the note type."
        ),
    )


Card = Annotated[ChoiceCard | BasicCard, Field(discriminator="type")]
CARD_ADAPTER: TypeAdapter[ChoiceCard | BasicCard] = TypeAdapter(Card)


class Deck(_Model):
    """A deck file: its identity and its cards, in order."""

    model_config = ConfigDict(
        extra="forbid",
        frozen=True,
        strict=True,
        title="Recall deck",
        json_schema_extra={"$schema": "https://json-schema.org/draft/2020-12/schema"},
    )

    format: Literal["recall-deck"]
    version: Literal[1] = Field(description="The deck format version this file follows.")
    id: Slug
    name: Text
    description: str = ""
    cards: list[Card] = Field(min_length=1)

    @model_validator(mode="after")
    def _check_unique_ids(self) -> Deck:
        first_seen: dict[str, int] = {}
        for index, card in enumerate(self.cards):
            if card.id in first_seen:
                raise ValueError(
                    tr(
                        "cards[{index}] reuses the id {id} of cards[{first}]; card ids must be "
                        "unique within a deck"
                    ).format(index=index, id=repr(card.id), first=first_seen[card.id])
                )
            first_seen[card.id] = index
        return self


def limit_problems(deck: Deck) -> list[str]:
    """What in a deck is more than a card may hold or the window lay out (``card_limits``).

    Checked when a deck comes in (a file, an import), not when stored cards are read back,
    so a card stored before these bounds still opens (the window shows it bounded).

    Returns:
        Each problem as ``where: what``; empty when the deck is within the bounds.
    """
    problems = _name_problems("name", deck.name)
    too_long = length_problem(deck.description)
    if too_long is not None:
        problems.append(f"description: {too_long}")
    for index, card in enumerate(deck.cards):
        found = card_limit_problems(card)
        if found:
            where = f"cards[{index}] (id {card.id!r})"
            problems += [f"{where}: {problem}" for problem in found]
    return problems


def card_limit_problems(card: ChoiceCard | BasicCard) -> list[str]:
    """What in one card is more than a card may hold or the window lay out.

    Returns:
        Each problem as ``field: what``; empty when the card is within the bounds.
    """
    if _plainly_within_bounds(card):
        return []
    problems = []
    for field, text, markup in _card_texts(card):
        kept_whole = markup == "html" and field not in ("explanation", "source")
        problem = length_problem(text, MAX_HTML_SIDE_CHARS if kept_whole else MAX_FIELD_CHARS)
        if problem is None:
            problem = html_nesting_problem(text) if markup == "html" else markdown_problem(text)
        if problem is not None:
            problems.append(f"{field}: {problem}")
    for position, tag in enumerate(card.tags):
        problems += _name_problems(f"tags[{position}]", tag)
    return problems


def _plainly_within_bounds(card: ChoiceCard | BasicCard) -> bool:
    """Whether a card's texts and tags are short and shallow, found with one search over
    its Markdown texts and the HTML sides' own checks (a card's fields checked one by one
    cost most of an import's validation); False sends the card through the field-by-field
    check, which names the field. An HTML card's sides and hints meet the same two checks
    the field-by-field one gives them (length, then ``html_nesting_problem``)."""
    if isinstance(card, BasicCard):
        if card.markup == "html":
            sides = [card.front, card.back, *card.hints]
            if max(map(len, sides)) > MAX_HTML_SIDE_CHARS or any(
                html_nesting_problem(side) is not None for side in sides
            ):
                return False
            texts = [card.type_answer]
        else:
            texts = [card.front, card.back, *card.hints, card.type_answer]
    else:
        texts = [
            card.question,
            *[c.text for c in card.choices],
            *[c.why or "" for c in card.choices],
        ]
    texts += (card.explanation, card.source)
    return (
        max(map(len, texts)) <= MAX_FIELD_CHARS
        and all(len(tag) <= MAX_NAME_CHARS for tag in card.tags)
        and not may_nest_markdown_deeply("\n".join(texts))
    )


def _name_problems(where: str, name: str) -> list[str]:
    if len(name) <= MAX_NAME_CHARS:
        return []
    return [f"{where}: is {len(name):,} characters long (at most {MAX_NAME_CHARS})"]


def _card_texts(card: ChoiceCard | BasicCard) -> list[tuple[str, str, str]]:
    """Each text field of a card as (name, text, markup)."""
    notes = [("explanation", card.explanation, "markdown"), ("source", card.source, "markdown")]
    if isinstance(card, BasicCard):
        hints = [(f"hints[{i}]", hint, card.markup) for i, hint in enumerate(card.hints)]
        typed = [("type_answer", card.type_answer, "markdown")] if card.type_answer else []
        sides = [("front", card.front, card.markup), ("back", card.back, card.markup)]
        return [*sides, *hints, *typed, *notes]
    choices = [(f"choices[{i}].text", c.text, "markdown") for i, c in enumerate(card.choices)]
    whys = [(f"choices[{i}].why", c.why, "markdown") for i, c in enumerate(card.choices) if c.why]
    return [("question", card.question, "markdown"), *choices, *whys, *notes]


def is_card(content: str | bytes) -> bool:
    """Whether a card's JSON (as stored) is one this format accepts."""
    try:
        CARD_ADAPTER.validate_json(content)
    except ValidationError:
        return False
    return True


def deck_schema() -> dict[str, Any]:
    """The JSON Schema of the deck format, generated from the models."""
    return Deck.model_json_schema()


def load_deck(path: Path) -> Deck:
    """Read and validate a deck file.

    Raises:
        DeckError: The file cannot be read or breaks the format; every problem is listed.
    """
    try:
        size = path.stat().st_size
        if size > MAX_DECK_BYTES:
            raise DeckError(
                str(path),
                [tr("the file is {size} bytes; decks are limited to 64 MB").format(size=size)],
            )
        data = path.read_bytes()
    except FileNotFoundError:
        raise DeckError(str(path), [tr("no such file")]) from None
    except IsADirectoryError:
        raise DeckError(str(path), [tr("is a folder, not a deck file")]) from None
    except PermissionError:
        raise DeckError(str(path), [tr("permission denied")]) from None
    return parse_deck(data, str(path))


def parse_deck(data: bytes | str, source: str) -> Deck:
    """Validate deck JSON.

    Args:
        data: The file's bytes (UTF-8) or text.
        source: Names the origin in error messages, usually the file path.

    Raises:
        DeckError: The text is not JSON or breaks the format; every problem is listed.
    """
    text = decode_text(data, source) if isinstance(data, bytes) else data
    raw = decode_json(text, source)
    if isinstance(raw, dict):
        check_header(raw, source)
    if may_hold_half_characters(text):
        _check_text(raw, source)
    try:
        deck = Deck.model_validate(raw)
    except ValidationError as error:
        problems = [describe(detail, raw, FIELD_NAMES) for detail in error.errors()]
        raise DeckError(source, problems) from None
    problems = limit_problems(deck)
    if problems:
        raise DeckError(source, problems)
    return deck


def dump_deck(deck: Deck) -> str:
    """The deck as formatted JSON that ``parse_deck`` reads back unchanged.

    Each card is serialized on its own and put in place, with the text the whole deck's
    ``model_dump_json`` would give: one call for a 100,000-card deck holds Python's lock
    for most of a second, and an export runs beside the window.
    """
    return "".join(deck_json_parts(deck, deck.cards))


def deck_json_parts(deck: Deck, cards: Iterable[Card]) -> Iterator[str]:
    """``dump_deck``'s text in parts: the deck's fields (its own cards left out), then
    each of ``cards`` as it comes, so a caller can write them out one by one instead of
    holding a whole deck's cards in memory (and in the garbage collector's passes)."""
    head = deck.model_copy(update={"cards": []}).model_dump_json(
        indent=2, exclude_defaults=True, by_alias=True
    )
    assert head.endswith('"cards": []\n}'), "cards is the deck's last field"
    yield head.removesuffix("[]\n}") + "[\n"
    separator = ""
    for card in cards:
        yield separator
        yield _indented(
            CARD_ADAPTER.dump_json(card, indent=2, exclude_defaults=True, by_alias=True)
        )
        separator = ",\n"
    yield "\n  ]\n}\n"


def _indented(card_json: bytes) -> str:
    return "\n".join("    " + line for line in card_json.decode("utf-8").split("\n"))


def _check_text(raw: object, source: str) -> None:
    """Refuse text that holds half a character (a lone ``\\ud800``-style escape).

    Such text cannot be stored or shown; finding it here names its place before anything
    is written.
    """
    problems: list[str] = []
    half_character_problems(raw, lambda location: where(location, raw), problems)
    if problems:
        raise DeckError(source, problems)


def check_header(raw: dict[str, Any], source: str) -> None:
    """Refuse files that are not decks, or are from a newer Recall, before anything else."""
    if raw.get("format") != FORMAT_NAME:
        found = raw.get("format")
        if found is None:
            problem = tr("format: not a Recall deck (it has no 'format' field; expected {name})")
        else:
            problem = tr("format: not a Recall deck (it has format {found}; expected {name})")
        raise DeckError(source, [problem.format(found=repr(found), name=repr(FORMAT_NAME))])
    version = raw.get("version")
    if "version" in raw and type(version) is not int:
        # Checked here because Literal[1] compares by equality: true and 1.0 would pass.
        raise DeckError(
            source,
            [tr("version: must be the whole number {version}").format(version=FORMAT_VERSION)],
        )
    if isinstance(version, int) and version > FORMAT_VERSION:
        raise DeckError(
            source,
            [
                tr(
                    "version: made for a newer Recall (deck format version {version}; this "
                    "Recall reads version {readable}). Update Recall to open it."
                ).format(version=version, readable=FORMAT_VERSION)
            ],
        )


# The fields each model knows, for suggesting a name when an unknown one is used.
FIELD_NAMES = {
    "deck": set(Deck.model_fields),
    "choice": set(ChoiceCard.model_fields),
    "basic": set(BasicCard.model_fields),
    "option": set(Choice.model_fields),
    "occlusion": set(Occlusion.model_fields),
    "shape": set(OcclusionShape.model_fields),
}
