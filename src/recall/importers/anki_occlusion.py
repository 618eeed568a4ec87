"""Anki's Image Occlusion notes: the note type, and its occlusion field's shapes.

The occlusion field is a cloze field of shapes, each written as
``{{c1::image-occlusion:rect:left=.2:top=.3:width=.1:height=.1:oi=1}}`` (several may share a
number, one may have several: ``c1,2``). Values escape ``:`` and ``\\`` with a backslash. A
shape with ``oi=1`` masks the other numbers' shapes too ("hide all, guess one"); without it
a card masks only its own ("hide one, guess one"). Coordinates are shares of the image's
width and height; a text label's font size (``fs``) a share of its height; angles are
stored in steps of 1/10000 of a turn. A shape whose values are out of bounds is left out,
with a note that names it.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

from pydantic import ValidationError

from recall.content.card_html import is_image_name
from recall.content.deck_format import BasicCard
from recall.content.occlusion import MAX_SHAPES, SHAPE_KINDS, Occlusion, OcclusionShape
from recall.core.i18n import tr
from recall.importers._collection import NoteType
from recall.importers._html_text import html_to_text

_SHAPE = re.compile(
    r"\{\{c(\d{1,9}(?:,\d{1,9})*)::image-occlusion:((?:\\.|[^\\}]|\}(?!\}))*)\}\}", re.DOTALL
)
_PROPERTY = re.compile(r":([^=:]+)=((?:\\.|[^\\:])*)", re.DOTALL)
_UNESCAPE = re.compile(r"\\(.)", re.DOTALL)
_CONTAINER = re.compile(
    r'id="image-occlusion-container"[^>]*>\s*\{\{([^#/^{}][^{}]*)\}\}', re.IGNORECASE
)
_ANGLE_STEPS = 10_000
_DEFAULT_FONT_SIZE = 0.05  # Anki's 40 px on an image some 800 px high
MAX_FIELD_SHAPES = 2_000  # more in one field is no drawing but a hostile note


@dataclass(frozen=True)
class OcclusionFields:
    """Where an Image Occlusion note type keeps each part, by field position."""

    occlusion: int
    image: int
    header: int | None
    back_extra: int | None
    comments: int | None


@dataclass
class ParsedOcclusion:
    """The shapes of one occlusion field, its mode, and the shapes left out and why."""

    shapes: list[OcclusionShape] = field(default_factory=list)
    hide_all: bool = False
    problems: list[str] = field(default_factory=list)

    @property
    def ordinals(self) -> list[int]:
        """The cloze numbers the shapes ask, lowest first: one card each."""
        return sorted({number for shape in self.shapes for number in shape.ordinals})


def occlusion_fields(note_type: NoteType) -> OcclusionFields | None:
    """The fields of Anki's Image Occlusion note type, or None for any other note type.

    The type is known by its template (a cloze type whose question holds Anki's
    ``image-occlusion-container``), not by its name, which Anki translates.
    """
    if not note_type.is_cloze:
        return None
    question = note_type.question_formats.get(0, "")
    found = _CONTAINER.search(question)
    if found is None or found.group(1).strip() not in note_type.field_names:
        return None
    names = note_type.field_names
    image = names.index(found.group(1).strip())
    occlusion = note_type.cloze_field()
    if occlusion == image:
        return None

    def named(name: str, position: int) -> int | None:
        if name in names:
            return names.index(name)
        return position if position < len(names) and position not in (image, occlusion) else None

    return OcclusionFields(
        occlusion, image, named("Header", 2), named("Back Extra", 3), named("Comments", 4)
    )


def parse_occlusions(text: str) -> ParsedOcclusion:
    """The shapes written in an occlusion field.

    Returns:
        The shapes in order, whether any asks to hide all, and a problem for each shape
        left out (an unknown kind, a value that is not a number or is out of bounds).
    """
    parsed = ParsedOcclusion()
    for index, match in enumerate(_SHAPE.finditer(text), start=1):
        if index > MAX_FIELD_SHAPES:
            parsed.problems.append(
                tr("shapes after the {most}th left out").format(most=f"{MAX_FIELD_SHAPES:,}")
            )
            break
        ordinals = sorted({int(number) for number in match.group(1).split(",")} - {0})
        body = match.group(2)
        kind, _, rest = body.partition(":")
        properties = {
            name: _UNESCAPE.sub(r"\1", value)
            for name, value in _PROPERTY.findall(":" + rest if rest else "")
        }
        if properties.get("oi") == "1":
            parsed.hide_all = True
        try:
            shape = _shape(kind, properties, ordinals)
        except (ValueError, ValidationError) as error:
            parsed.problems.append(
                tr("shape {index} ({kind}): {problem}").format(
                    index=index, kind=repr(kind[:20]), problem=_reason(error)
                )
            )
            continue
        if len(parsed.shapes) >= MAX_SHAPES:
            parsed.problems.append(
                tr("shape {index}: more than {most} shapes in one note").format(
                    index=index, most=MAX_SHAPES
                )
            )
            continue
        parsed.shapes.append(shape)
    return parsed


def _reason(error: ValueError | ValidationError) -> str:
    if isinstance(error, ValidationError):
        detail = error.errors()[0]
        place = ".".join(str(step) for step in detail["loc"])
        message = str(detail["msg"]).removeprefix("Value error, ")
        return f"{place}: {message}" if place else message
    return str(error)


def _number(properties: dict[str, str], name: str, default: float) -> float:
    text = properties.get(name, "").strip()
    if not text:
        return default
    try:
        value = float(text)
    except ValueError:
        raise ValueError(
            tr("{name}={value} is not a number").format(name=name, value=repr(text[:20]))
        ) from None
    if not math.isfinite(value):
        raise ValueError(
            tr("{name}={value} is not a finite number").format(name=name, value=repr(text[:20]))
        )
    return value


def _shape(kind: str, properties: dict[str, str], ordinals: list[int]) -> OcclusionShape:
    if kind not in SHAPE_KINDS:
        raise ValueError(tr("not a shape Anki draws (rect, ellipse, polygon or text)"))
    left, top = _number(properties, "left", 0.0), _number(properties, "top", 0.0)
    steps = _number(properties, "angle", 0.0) % _ANGLE_STEPS
    angle = steps / _ANGLE_STEPS * 360
    if kind == "rect":
        return OcclusionShape(
            kind="rect",
            left=left,
            top=top,
            width=_number(properties, "width", 0.0),
            height=_number(properties, "height", 0.0),
            angle=angle,
            ordinals=ordinals,
        )
    if kind == "ellipse":
        rx, ry = _number(properties, "rx", 0.0), _number(properties, "ry", 0.0)
        return OcclusionShape(
            kind="ellipse",
            left=left,
            top=top,
            width=2 * rx,
            height=2 * ry,
            angle=angle,
            ordinals=ordinals,
        )
    if kind == "polygon":
        points = _points(properties)
        if points and ("left" in properties or "top" in properties):
            # Anki draws the corners moved so that their top left lies at left, top.
            dx = left - min(x for x, _ in points) if "left" in properties else 0.0
            dy = top - min(y for _, y in points) if "top" in properties else 0.0
            points = [[x + dx, y + dy] for x, y in points]
        return OcclusionShape(kind="polygon", points=points, ordinals=ordinals)
    return OcclusionShape(
        kind="text",
        left=left,
        top=top,
        angle=angle,
        text=properties.get("text", ""),
        font_size=_number(properties, "fs", _DEFAULT_FONT_SIZE),
        scale=_number(properties, "scale", 1.0),
        ordinals=[],  # a label, shown on every card (Anki writes it as number 0)
    )


def _points(properties: dict[str, str]) -> list[list[float]]:
    """A polygon's corners; Anki keeps them in place and ``left``/``top`` at their corner."""
    pairs = properties.get("points", "").split()
    if len(pairs) > 1000:
        raise ValueError(
            tr("{count} points is more than a polygon may have").format(count=f"{len(pairs):,}")
        )
    points = []
    for pair in pairs:
        x, comma, y = pair.partition(",")
        if not comma:
            raise ValueError(tr("the point {point} is not x,y").format(point=repr(pair[:20])))
        points.append([_number({"x": x}, "x", 0.0), _number({"y": y}, "y", 0.0)])
    return points


_STORED_IMAGE = re.compile(r'<img\b[^>]*\bsrc="([0-9a-f]{64}\.[a-z0-9]{1,8})"', re.IGNORECASE)


def stored_image(cleaned: str) -> str | None:
    """The first stored image a sanitized field shows, or None."""
    for match in _STORED_IMAGE.finditer(cleaned):
        if is_image_name(match.group(1)):
            return match.group(1)
    return None


def occlusion_card(
    card_id: str,
    number: int,
    parsed: ParsedOcclusion,
    image: str,
    sides: tuple[str, str, str],
    tags: list[str],
) -> BasicCard:
    """The Recall card asking cloze number ``number`` of an occlusion note.

    Args:
        card_id: The card's id.
        number: The cloze number asked (the Anki card's ordinal plus one).
        parsed: The note's shapes.
        image: The stored media name of the note's image.
        sides: The header, back extra and comments, sanitized HTML.
        tags: The note's tags.

    Raises:
        ValueError: No shape of the note has ``number``, or a value breaks the format.
    """
    occlusion = Occlusion(
        image=image,
        shapes=parsed.shapes,
        asked=number,
        mode="hide-all" if parsed.hide_all else "hide-one",
    )
    return _card(card_id, occlusion, sides, tags)


def _card(
    card_id: str, occlusion: Occlusion, sides: tuple[str, str, str], tags: list[str]
) -> BasicCard:
    header, back_extra, comments = sides
    return BasicCard(
        id=card_id,
        type="basic",
        markup="html",
        front=header if html_to_text(header).strip() or "<img" in header else "<br>",
        back=back_extra if html_to_text(back_extra).strip() or "<img" in back_extra else "<br>",
        explanation=html_to_text(comments).strip(),
        tags=tags,
        occlusion=occlusion,
    )


@dataclass(frozen=True)
class EnhancedFields:
    """Where a note type of the Image Occlusion Enhanced add-on keeps each part."""

    image: int
    question_mask: int
    answer_mask: int
    front: tuple[int, ...]  # the title and header, shown above the image
    back: tuple[int, ...]  # footer, remarks, sources and extras, shown with the answer


_ENHANCED_FRONT = ("Title", "Header", "Front")
_ENHANCED_BACK = ("Footer", "Remarks", "Sources", "Extra 1", "Extra 2")


def enhanced_fields(note_type: NoteType) -> EnhancedFields | None:
    """The fields of an Image Occlusion Enhanced note type (known by its mask fields), or
    None for any other note type."""
    names = note_type.field_names
    if note_type.is_cloze or not {"Image", "Question Mask", "Answer Mask"} <= set(names):
        return None
    return EnhancedFields(
        names.index("Image"),
        names.index("Question Mask"),
        names.index("Answer Mask"),
        tuple(names.index(name) for name in _ENHANCED_FRONT if name in names),
        tuple(names.index(name) for name in _ENHANCED_BACK if name in names),
    )


def enhanced_card(
    card_id: str,
    images: tuple[str, str, str | None],
    sides: tuple[str, str, str],
    tags: list[str],
) -> BasicCard:
    """The Recall card of an Image Occlusion Enhanced note: its masks drawn over its image.

    Args:
        card_id: The card's id.
        images: The stored names of the image, the question mask and the answer mask.
        sides: The text above the image, the text with the answer and the comments
            (sanitized HTML).
        tags: The note's tags.

    Raises:
        ValueError: A value breaks the format.
    """
    image, question_mask, answer_mask = images
    occlusion = Occlusion(
        image=image, asked=1, question_mask=question_mask, answer_mask=answer_mask
    )
    return _card(card_id, occlusion, sides, tags)
