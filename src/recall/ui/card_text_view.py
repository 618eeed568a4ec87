"""Imported HTML card text: sized to fit, images only from the media folder, no links followed."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QSize, Qt, QUrl
from PySide6.QtGui import QImage, QImageReader, QResizeEvent, QTextDocument
from PySide6.QtWidgets import QFrame, QSizePolicy, QTextBrowser, QWidget

from recall.cardhtml import is_image_name, sanitize
from recall.ui.accessibility import expose


class CardTextView(QTextBrowser):
    """Read-only rich text sized to its content, named by its text as plain text.

    Every resource request goes through ``loadResource``: an image (pixels or SVG) is loaded
    only when its name is a stored media name and the file is in ``media_dir``; anything else (local
    paths, remote URLs, style sheets) loads nothing. Links are never followed.
    """

    def __init__(self, media_dir: Path, role: str = "", parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._media_dir = media_dir
        self._role = role
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
        """Show an HTML fragment after cleaning it to the allow-list."""
        self.setHtml(sanitize(fragment))
        expose(self, " ".join(self.toPlainText().split()), self._role)
        self._fit()

    def loadResource(self, kind: int, name: QUrl | str) -> object:
        if kind != QTextDocument.ResourceType.ImageResource.value:
            return None
        stored = name.toString() if isinstance(name, QUrl) else name
        path = self._media_dir / stored
        if not is_image_name(stored) or not path.is_file():
            return None
        return self._read_image(path, max(64, self.viewport().width()))

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
