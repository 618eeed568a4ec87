"""An occlusion card's image with its masks painted over it, as Anki's reviewer draws them.

The image fills the width it is given (its aspect ratio kept, never wider than twice its
own size), so it scales with the window. On the question the asked masks are Anki's red
and the others (in hide-all mode) its yellow; on the answer the asked ones lift, leaving a
red outline, and O toggles every other mask. Text labels stay, drawn on white at a size
that follows the image, never below the window's small text. The image is read only from
the media folder, by its stored name. A card of the Image Occlusion Enhanced add-on draws
its question's or its answer's mask image (SVG) over the image instead, at the image's size.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QPointF, QRectF, QSize, Qt
from PySide6.QtGui import (
    QBrush,
    QColor,
    QFont,
    QFontMetricsF,
    QImage,
    QImageReader,
    QPainter,
    QPaintEvent,
    QPen,
    QPolygonF,
    QResizeEvent,
)
from PySide6.QtWidgets import QSizePolicy, QWidget

from recall.content.card_html import is_image_name
from recall.content.occlusion import Occlusion, OcclusionShape
from recall.core.i18n import number, tr, trn
from recall.ui.override_errors import reports_errors

# Anki's reviewer colours (ts/routes/image-occlusion/review.ts and tools/lib.ts).
ASKED_COLOUR = QColor("#ff8e8e")
OTHER_COLOUR = QColor("#ffeba2")
BORDER_COLOUR = QColor("#212121")
LABEL_BACKGROUND = QColor("#ffffff")
LABEL_COLOUR = QColor("#000000")
MAX_IMAGE_PIXELS = 64_000_000  # a decoded image's pixels: larger ones are read scaled down
_UPSCALE = 2.0  # a small image is shown at most twice its size
_LABEL_PADDING = 5


@reports_errors
class OcclusionView(QWidget):
    """Paints one occlusion card: the image, its masks and its labels."""

    def __init__(self, media_dir: Path, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("occlusion")
        self._media_dir = media_dir
        self._occlusion: Occlusion | None = None
        self._image = QImage()
        self._answer = False
        self._masks_hidden = False
        self._mask_images: dict[tuple[str, int, int], QImage] = {}
        policy = QSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)
        policy.setHeightForWidth(True)
        self.setSizePolicy(policy)
        self.setFocusPolicy(Qt.FocusPolicy.NoFocus)

    # What the review screen calls

    def show_question(self, occlusion: Occlusion) -> None:
        """Show a card's question: the image with the masks it asks and, in hide-all, the rest."""
        if self._occlusion is None or self._occlusion.image != occlusion.image:
            self._image = _read_image(self._media_dir, occlusion.image)
            self._mask_images = {}
        self._occlusion = occlusion
        self._answer = False
        self._masks_hidden = False
        self._changed()

    def show_answer(self) -> None:
        """Lift the asked masks (an outline shows where they were)."""
        self._answer = True
        self._masks_hidden = False
        self._changed()

    def toggle_masks(self) -> bool:
        """On the answer, hide or show every remaining mask; returns whether it acted."""
        if not self._answer or self._occlusion is None:
            return False
        self._masks_hidden = not self._masks_hidden
        self._changed()
        return True

    @property
    def masks_hidden(self) -> bool:
        """Whether O has hidden the masks left on the answer."""
        return self._masks_hidden

    def image_rect(self) -> QRectF:
        """Where the image is drawn in the widget."""
        if self._image.isNull():
            return QRectF()
        width = min(float(self.width()), self._image.width() * _UPSCALE)
        height = width * self._image.height() / max(1, self._image.width())
        return QRectF((self.width() - width) / 2, 0, width, height)

    # Qt overrides

    def hasHeightForWidth(self) -> bool:
        return True

    def heightForWidth(self, width: int) -> int:
        if self._image.isNull():
            return self.fontMetrics().height() * 2
        shown = min(float(width), self._image.width() * _UPSCALE)
        return round(shown * self._image.height() / max(1, self._image.width()))

    def sizeHint(self) -> QSize:
        width = 600 if self._image.isNull() else min(600, self._image.width())
        return QSize(width, self.heightForWidth(width))

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._fit_height()

    def paintEvent(self, event: QPaintEvent) -> None:
        occlusion = self._occlusion
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        if occlusion is None:
            return
        if self._image.isNull():
            painter.drawText(
                self.rect(),
                Qt.AlignmentFlag.AlignCenter,
                tr("The image is not in the media folder."),
            )
            return
        area = self.image_rect()
        painter.drawImage(area, self._image)
        mask = occlusion.answer_mask if self._answer else occlusion.question_mask
        if mask is not None and not self._masks_hidden:
            painter.drawImage(area, self._mask_image(mask, area))
        if not self._masks_hidden:
            for shape in occlusion.masked(self._answer):
                colour = ASKED_COLOUR if occlusion.is_asked(shape) else OTHER_COLOUR
                _draw_shape(painter, area, shape, QBrush(colour), QPen(BORDER_COLOUR, 1))
        if self._answer:
            outline = QPen(ASKED_COLOUR, 2)
            for shape in occlusion.shapes:
                if occlusion.is_asked(shape) and shape.kind != "text":
                    _draw_shape(painter, area, shape, QBrush(Qt.BrushStyle.NoBrush), outline)
        for label in occlusion.labels:
            self._draw_label(painter, area, label)

    # Drawing

    def _mask_image(self, name: str, area: QRectF) -> QImage:
        """A mask image drawn at the size of the image shown (an SVG at that size)."""
        size = QSize(max(1, round(area.width())), max(1, round(area.height())))
        key = (name, size.width(), size.height())
        if key not in self._mask_images:
            self._mask_images = {
                cached: image for cached, image in self._mask_images.items() if cached[0] != name
            }
            self._mask_images[key] = _read_image(self._media_dir, name, size)
        return self._mask_images[key]

    def _changed(self) -> None:
        self.setAccessibleName(self._spoken())
        self._fit_height()
        self.update()

    def _fit_height(self) -> None:
        """Take the height the image needs at the width given: a layout in a scroll area
        asks a widget's size hint, not its height for width."""
        wanted = self.heightForWidth(max(1, self.width()))
        if self.minimumHeight() != wanted or self.maximumHeight() != wanted:
            self.setFixedHeight(wanted)

    def _spoken(self) -> str:
        occlusion = self._occlusion
        if occlusion is None:
            return tr("Image")
        if occlusion.question_mask is not None and not occlusion.shapes:
            if self._answer:
                return tr("Image with the asked area shown")
            return tr("Image with masked areas; the asked one is marked")
        if self._answer:
            left = 0 if self._masks_hidden else len(occlusion.masked(True))
            return trn(
                "Image with the asked area shown; {count} other area masked",
                "Image with the asked area shown; {count} other areas masked",
                left,
            ).format(count=number(left))
        count = len(occlusion.masked(False))
        return trn(
            "Image with {count} masked area; the asked one is marked",
            "Image with {count} masked areas; the asked one is marked",
            count,
        ).format(count=number(count))

    def _draw_label(self, painter: QPainter, area: QRectF, label: OcclusionShape) -> None:
        font = QFont(self.font())
        font.setFamily("Arial")
        smallest = QFontMetricsF(self.font()).height() * 0.6
        font.setPixelSize(
            max(1, round(max(label.font_size * area.height() * label.scale, smallest)))
        )
        metrics = QFontMetricsF(font)
        lines = label.text.split("\n")
        line_height = metrics.height()
        width = max(metrics.horizontalAdvance(line) for line in lines) + _LABEL_PADDING
        height = line_height * len(lines) + _LABEL_PADDING
        corner = _point(area, label.left, label.top)
        painter.save()
        painter.translate(corner)
        painter.rotate(label.angle)
        painter.fillRect(QRectF(0, 0, width, height), LABEL_BACKGROUND)
        painter.setPen(LABEL_COLOUR)
        painter.setFont(font)
        for index, line in enumerate(lines):
            painter.drawText(QPointF(0, index * line_height + metrics.ascent()), line)
        painter.restore()


def _point(area: QRectF, x: float, y: float) -> QPointF:
    return QPointF(area.left() + x * area.width(), area.top() + y * area.height())


def _draw_shape(
    painter: QPainter, area: QRectF, shape: OcclusionShape, brush: QBrush, pen: QPen
) -> None:
    painter.save()
    painter.setBrush(brush)
    painter.setPen(pen)
    if shape.kind == "polygon":
        painter.drawPolygon(QPolygonF([_point(area, x, y) for x, y in shape.points]))
    else:
        corner = _point(area, shape.left, shape.top)
        painter.translate(corner)
        painter.rotate(shape.angle)  # about the top left, as Anki turns it
        box = QRectF(0, 0, shape.width * area.width(), shape.height * area.height())
        if shape.kind == "ellipse":
            painter.drawEllipse(box)
        else:
            painter.drawRect(box)
    painter.restore()


def _read_image(media_dir: Path, name: str, size: QSize | None = None) -> QImage:
    """The stored image (at ``size`` when given), or a null image when it is missing or
    cannot be read."""
    path = media_dir / name
    if not is_image_name(name) or not path.is_file():
        return QImage()
    reader = QImageReader(str(path))
    declared = reader.size()
    if size is not None:
        reader.setScaledSize(size)
    elif declared.isValid() and declared.width() * declared.height() > MAX_IMAGE_PIXELS:
        reader.setScaledSize(declared.scaled(4000, 4000, Qt.AspectRatioMode.KeepAspectRatio))
    return reader.read()
