"""Imported HTML card text: sized to fit, bounded, images only from the media folder, no links.

Qt's rich-text layout slows with a card's length and nesting (tables inside tables double
its work at each level), so text over the bounds of ``card_limits`` is shown as plain text,
cut to ``MAX_PLAIN_SHOWN`` characters, under a note saying why.

Formulas (``content.math``) are typeset at the view's text size and colour and shown as
images drawn from their SVG at the screen's pixel ratio; one that cannot be typeset shows
its source in code style with a note.
"""

from __future__ import annotations

import html
import math as arithmetic
from pathlib import Path

from PySide6.QtCore import QByteArray, QSize, Qt, QUrl
from PySide6.QtGui import (
    QFont,
    QFontInfo,
    QFontMetrics,
    QImage,
    QImageReader,
    QPainter,
    QPalette,
    QResizeEvent,
    QTextDocument,
)
from PySide6.QtSvg import QSvgRenderer
from PySide6.QtWidgets import QFrame, QSizePolicy, QTextBrowser, QWidget

from recall.content import math, ruby
from recall.content.card_html import is_image_name
from recall.core.i18n import tr
from recall.ui.accessibility import expose
from recall.ui.override_errors import reports_errors
from recall.ui.text import bounded_card_html


@reports_errors
class CardTextView(QTextBrowser):
    """Read-only rich text sized to its content, named by its text as plain text.

    Every resource request goes through ``loadResource``: an image (pixels or SVG) is loaded
    only when its name is a stored media name and the file is in ``media_dir``; anything
    else (local paths, remote URLs, style sheets, a stored image that is missing) gets an
    empty placeholder, so Qt never goes looking for it itself (it would try the current
    folder). Links are never followed.
    """

    def __init__(self, media_dir: Path, role: str = "", parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._media_dir = media_dir
        self._role = role
        self._formulas: list[math.Typeset] = []
        self._rubies: list[ruby.Ruby] = []
        expose(self, "", role)
        self.setOpenLinks(False)
        self.setOpenExternalLinks(False)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.viewport().setAutoFillBackground(False)
        self.document().setDocumentMargin(0)
        self.document().documentLayout().documentSizeChanged.connect(self._fit)

    def set_card_html(self, fragment: str) -> None:
        """Show an HTML fragment cleaned to the allow-list, or as plain text when too large."""
        shown = bounded_card_html(fragment)
        self._formulas, self._rubies = [], []
        spoken: str | None = None
        if shown.plain is not None:
            self.setPlainText(shown.plain)
        elif math.has_formula(shown.html) or ruby.has_ruby(shown.html):
            drawn = self._with_ruby(shown.html)
            source = QTextDocument()
            source.setHtml(self._spoken(shown.html))
            spoken = source.toPlainText()  # formulas read as their LaTeX, ruby as base(reading)
            self.setHtml(self._typeset(drawn))
        else:
            self.setHtml(shown.html)
        expose(self, " ".join((spoken or self.toPlainText()).split()), self._role)
        self._fit()

    def _with_ruby(self, fragment: str) -> str:
        """``fragment`` with its ruby elements as images (``recall-ruby:N``) drawn by
        ``_ruby_image``: the reading small above its base."""
        parts: list[str] = []
        for piece in ruby.split(fragment):
            if isinstance(piece, str):
                parts.append(piece)
                continue
            self._rubies.append(piece)
            width, height = self._ruby_size(piece)
            parts.append(
                f'<img src="{_RUBY_SCHEME}{len(self._rubies) - 1}" width="{width}" '
                f'height="{height}" style="vertical-align: bottom">'
            )
        return "".join(parts)

    @staticmethod
    def _spoken(fragment: str) -> str:
        """``fragment`` with each ruby element as its words, for the accessible name."""
        return "".join(
            piece if isinstance(piece, str) else html.escape(piece.spoken)
            for piece in ruby.split(fragment)
        )

    def _ruby_fonts(self) -> tuple[QFont, QFont]:
        self.ensurePolished()
        base = QFont(self.font())
        reading = QFont(base)
        reading.setPixelSize(max(6, round(QFontInfo(base).pixelSize() * 0.55)))
        return base, reading

    def _ruby_size(self, element: ruby.Ruby) -> tuple[int, int]:
        base_font, reading_font = self._ruby_fonts()
        base, reading = QFontMetrics(base_font), QFontMetrics(reading_font)
        width = sum(
            max(base.horizontalAdvance(text), reading.horizontalAdvance(above))
            for text, above in element.pairs
        )
        return max(1, width), base.height() + reading.height()

    def _ruby_image(self, element: ruby.Ruby) -> QImage:
        """A ruby element drawn: each reading centred above its base, in the text's colour."""
        width, height = self._ruby_size(element)
        ratio = self.devicePixelRatioF()
        image = QImage(
            max(1, arithmetic.ceil(width * ratio)),
            max(1, arithmetic.ceil(height * ratio)),
            QImage.Format.Format_ARGB32_Premultiplied,
        )
        image.fill(Qt.GlobalColor.transparent)
        image.setDevicePixelRatio(ratio)
        base_font, reading_font = self._ruby_fonts()
        base, reading = QFontMetrics(base_font), QFontMetrics(reading_font)
        painter = QPainter(image)
        painter.setPen(self.palette().color(QPalette.ColorRole.Text))
        left = 0
        for text, above in element.pairs:
            cell = max(base.horizontalAdvance(text), reading.horizontalAdvance(above))
            painter.setFont(reading_font)
            painter.drawText(
                left + (cell - reading.horizontalAdvance(above)) // 2, reading.ascent(), above
            )
            painter.setFont(base_font)
            painter.drawText(
                left + (cell - base.horizontalAdvance(text)) // 2,
                reading.height() + base.ascent(),
                text,
            )
            left += cell
        painter.end()
        return image

    def _typeset(self, fragment: str) -> str:
        """``fragment`` with its formulas as images (``recall-math:N``), or as source."""
        self.ensurePolished()  # the style sheet's font size, not the default one
        size = float(QFontInfo(self.font()).pixelSize())
        color = self.palette().color(QPalette.ColorRole.Text).name()
        parts: list[str] = []
        for piece in math.split(fragment):
            if isinstance(piece, str):
                parts.append(piece)
                continue
            drawn = None
            if len(self._formulas) < math.MAX_FORMULAS:
                drawn = math.typeset(piece, size, color)
            if drawn is None:
                note = html.escape(tr("(formula not typeset)"))
                parts.append(
                    f"<code>{html.escape(piece.source)}</code>"
                    f' <span style="color: gray">{note}</span>'
                )
                continue
            self._formulas.append(drawn)
            image = (
                f'<img src="{_FORMULA_SCHEME}{len(self._formulas) - 1}" '
                f'width="{arithmetic.ceil(drawn.width)}" '
                f'height="{arithmetic.ceil(drawn.height)}" style="vertical-align: middle">'
            )
            parts.append(f'<p align="center">{image}</p>' if piece.display else image)
        return "".join(parts)

    def loadResource(self, kind: int, name: QUrl | str) -> object:
        if kind != QTextDocument.ResourceType.ImageResource.value:
            return QByteArray()
        stored = name.toString() if isinstance(name, QUrl) else name
        if stored.startswith(_RUBY_SCHEME):
            index = stored.removeprefix(_RUBY_SCHEME)
            if index.isdigit() and int(index) < len(self._rubies):
                return self._ruby_image(self._rubies[int(index)])
            return _placeholder()
        if stored.startswith(_FORMULA_SCHEME):
            index = stored.removeprefix(_FORMULA_SCHEME)
            if index.isdigit() and int(index) < len(self._formulas):
                return self._formula_image(self._formulas[int(index)])
            return _placeholder()
        path = self._media_dir / stored
        if not is_image_name(stored) or not path.is_file():
            return _placeholder()
        image = self._read_image(path, max(64, self.viewport().width()))
        return _placeholder() if image is None else image

    @staticmethod
    def _read_image(path: Path, widest: int) -> QImage | None:
        """The image at ``path`` at most ``widest`` pixels wide.

        SVG is drawn at that size (through Qt's SVG image plugin) rather than at whatever
        size it declares; pixel images are scaled down after reading.
        """
        reader = QImageReader(str(path))
        declared = reader.size()
        if path.suffix == ".svg" and declared.isValid() and declared.width() > widest:
            reader.setScaledSize(
                declared.scaled(widest, widest * 8, Qt.AspectRatioMode.KeepAspectRatio)
            )
        image = reader.read()
        if image.isNull():
            return None
        if image.width() > widest:
            image = image.scaledToWidth(widest, Qt.TransformationMode.SmoothTransformation)
        return image

    def _formula_image(self, drawn: math.Typeset) -> QImage:
        """A typeset formula drawn at the screen's pixel ratio, transparent around it."""
        ratio = self.devicePixelRatioF()
        image = QImage(
            max(1, arithmetic.ceil(drawn.width * ratio)),
            max(1, arithmetic.ceil(drawn.height * ratio)),
            QImage.Format.Format_ARGB32_Premultiplied,
        )
        image.fill(Qt.GlobalColor.transparent)
        painter = QPainter(image)
        QSvgRenderer(QByteArray(drawn.svg)).render(painter)
        painter.end()
        image.setDevicePixelRatio(ratio)
        return image

    def sizeHint(self) -> QSize:
        return QSize(super().sizeHint().width(), self._content_height())

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._fit()

    def _content_height(self) -> int:
        self.document().setTextWidth(self.viewport().width())
        # Borders and padding from the style sheet sit between the widget and its viewport.
        chrome = max(0, self.height() - self.viewport().height())
        return int(self.document().size().height()) + chrome + 2

    def _fit(self) -> None:
        height = self._content_height()
        if height != self.height():
            self.setFixedHeight(height)


_FORMULA_SCHEME = "recall-math:"
_RUBY_SCHEME = "recall-ruby:"


def _placeholder() -> QImage:
    """A transparent pixel: a loaded resource, so Qt does not look for the file itself."""
    image = QImage(1, 1, QImage.Format.Format_ARGB32)
    image.fill(Qt.GlobalColor.transparent)
    return image
