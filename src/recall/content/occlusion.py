"""Image occlusion: the masks over an image that one card asks about, in relative coordinates.

An occlusion card is a basic card (``deck_format.BasicCard``) with an ``occlusion`` value:
the image (a stored media name), its shapes (rectangles, ellipses, polygons and text labels,
each in coordinates relative to the image, 0..1) with the cloze numbers each belongs to, the
number this card asks, and the mode. In "hide all, guess one" every shape is masked on the
question and the asked ones are marked; in "hide one, guess one" only the asked ones are.
On the answer the asked masks lift. Text shapes (number 0, as in Anki) are labels always
shown. A card of the older Image Occlusion Enhanced add-on has no shapes but two mask
images (SVG) drawn over the image, one for the question and one for the answer. Every
value is bounded so a hostile file cannot make the window draw without end.
"""

from __future__ import annotations

import math
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from recall.content.card_html import is_image_name
from recall.core import i18n
from recall.core.i18n import mark, tr

MAX_SHAPES = 500
"""Shapes one card may hold (Anki notes rarely pass a hundred)."""

MAX_POINTS = 200
"""Points of one polygon."""

MAX_TEXT_CHARS = 500
"""Characters of one text shape."""

MAX_ORDINAL = 500
"""The highest cloze number (``card_limits.MAX_CLOZE_CARDS``)."""

LOWEST, HIGHEST = -0.1, 1.1
"""Coordinates may reach a little past the image's edges, as a mask drawn over a border does."""

SHAPE_KINDS = ("rect", "ellipse", "polygon", "text")


def _coordinate(value: float, what: str) -> float:
    if not math.isfinite(value) or not LOWEST <= value <= HIGHEST:
        raise ValueError(
            tr("{what} is {value}; coordinates lie between {low} and {high}").format(
                what=i18n.tr(what), value=repr(value), low=LOWEST, high=HIGHEST
            )
        )
    return value


class OcclusionShape(BaseModel):
    """One mask or label, in coordinates relative to the image's width and height."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

    kind: Literal["rect", "ellipse", "polygon", "text"]
    left: float = Field(default=0.0, description="The left edge (of the bounding box), 0..1.")
    top: float = Field(default=0.0, description="The top edge (of the bounding box), 0..1.")
    width: float = Field(default=0.0, description="Rectangle or ellipse width, 0..1.")
    height: float = Field(default=0.0, description="Rectangle or ellipse height, 0..1.")
    angle: float = Field(default=0.0, description="Rotation in degrees about the top left.")
    points: list[list[float]] = Field(
        default_factory=list,
        max_length=MAX_POINTS,
        description="A polygon's corners as [x, y] pairs, 0..1.",
    )
    text: str = Field(default="", max_length=MAX_TEXT_CHARS, description="A text shape's text.")
    font_size: float = Field(
        default=0.05, description="A text shape's font size as a share of the image's height."
    )
    scale: float = Field(default=1.0, description="A text shape's scale.")
    ordinals: list[int] = Field(
        default_factory=list,
        max_length=MAX_ORDINAL,
        description="The cloze numbers the shape belongs to; none for a label always shown.",
    )

    @field_validator("left", "top", "width", "height")
    @classmethod
    def _check_coordinate(cls, value: float) -> float:
        return _coordinate(value, mark("the coordinate"))

    @field_validator("angle")
    @classmethod
    def _check_angle(cls, value: float) -> float:
        if not math.isfinite(value) or abs(value) > 360:
            raise ValueError(
                tr("the angle is {value}; it lies between -360 and 360 degrees").format(
                    value=repr(value)
                )
            )
        return value

    @field_validator("points")
    @classmethod
    def _check_points(cls, value: list[list[float]]) -> list[list[float]]:
        for point in value:
            if len(point) != 2:
                raise ValueError(
                    tr("a point is [x, y], not {count} numbers").format(count=len(point))
                )
            _coordinate(point[0], mark("a point's x"))
            _coordinate(point[1], mark("a point's y"))
        return value

    @field_validator("font_size", "scale")
    @classmethod
    def _check_size(cls, value: float) -> float:
        if not math.isfinite(value) or not 0 < value <= 10:
            raise ValueError(
                tr("the size is {value}; it lies above 0 and at most 10").format(value=repr(value))
            )
        return value

    @field_validator("ordinals")
    @classmethod
    def _check_ordinals(cls, value: list[int]) -> list[int]:
        for number in value:
            if not 1 <= number <= MAX_ORDINAL:
                raise ValueError(
                    tr("the cloze number {number} is not between 1 and {most}").format(
                        number=number, most=MAX_ORDINAL
                    )
                )
        return value

    @model_validator(mode="after")
    def _check_kind(self) -> OcclusionShape:
        if self.kind == "polygon" and len(self.points) < 3:
            raise ValueError(tr("a polygon needs at least 3 points"))
        if self.kind in ("rect", "ellipse") and (self.width <= 0 or self.height <= 0):
            raise ValueError(
                tr("a {kind} needs a width and a height above 0").format(kind=self.kind)
            )
        if self.kind == "text" and not self.text.strip():
            raise ValueError(tr("a text shape needs its text"))
        return self


class Occlusion(BaseModel):
    """The masked image one occlusion card shows, and which of its shapes it asks."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

    image: str = Field(description="The image: a stored media name (its SHA-256 and suffix).")
    shapes: list[OcclusionShape] = Field(default_factory=list, max_length=MAX_SHAPES)
    question_mask: str | None = Field(
        default=None,
        description=(
            "A mask image (a stored media name, SVG) drawn over the image on the question, "
            "as the Image Occlusion Enhanced add-on keeps its masks; in place of shapes."
        ),
    )
    answer_mask: str | None = Field(
        default=None, description="The mask image drawn over the image on the answer."
    )
    asked: int = Field(ge=1, le=MAX_ORDINAL, description="The cloze number this card asks.")
    mode: Literal["hide-all", "hide-one"] = Field(
        default="hide-all",
        description=(
            "hide-all masks every shape on the question and marks the asked ones; hide-one "
            "masks only the asked ones."
        ),
    )

    @field_validator("image", "question_mask", "answer_mask")
    @classmethod
    def _check_image(cls, value: str | None) -> str | None:
        if value is not None and not is_image_name(value):
            raise ValueError(
                tr("the image {name} is not a stored media name of an image").format(
                    name=repr(value)
                )
            )
        return value

    @model_validator(mode="after")
    def _check_asked(self) -> Occlusion:
        if self.question_mask is not None:
            return self  # the mask image shows what is asked
        if not any(self.asked in shape.ordinals for shape in self.shapes):
            raise ValueError(
                tr("no shape belongs to the asked cloze number {number}").format(number=self.asked)
            )
        return self

    def is_asked(self, shape: OcclusionShape) -> bool:
        """Whether a shape is one this card asks about."""
        return self.asked in shape.ordinals

    def masked(self, answer: bool) -> list[OcclusionShape]:
        """The masks drawn (text labels apart): on the question the asked ones, and every
        other one in hide-all mode; on the answer only the others, in hide-all mode."""
        shown = []
        for shape in self.shapes:
            if shape.kind == "text" or not shape.ordinals:
                continue
            asked = self.is_asked(shape)
            if (asked and not answer) or (not asked and self.mode == "hide-all"):
                shown.append(shape)
        return shown

    @property
    def labels(self) -> list[OcclusionShape]:
        """The text shapes, always shown."""
        return [shape for shape in self.shapes if shape.kind == "text"]
