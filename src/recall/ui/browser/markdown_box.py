"""A Markdown text box with formatting keys, images and sounds, and the editor's tool bar.

Ctrl+B and Ctrl+I wrap the selection in Markdown's bold and italic marks, the bar's
buttons make a list or code of it, and "Add image..." and "Add sound..." (or pasting an
image) copy the file into the media folder under its hash and insert its reference.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QMimeData, Qt
from PySide6.QtGui import QImage, QKeySequence, QShortcut, QTextCursor
from PySide6.QtWidgets import (
    QApplication,
    QFileDialog,
    QHBoxLayout,
    QPlainTextEdit,
    QToolButton,
    QWidget,
)

from recall.changes import card_media
from recall.core import i18n
from recall.core.errors import RecallError
from recall.core.i18n import mark, tr, trp
from recall.ui.override_errors import reports_errors
from recall.ui.plain_text import plain_tooltip


def wrap_selection(box: QPlainTextEdit, before: str, after: str) -> None:
    """Put ``before`` and ``after`` around the selection (or around the cursor)."""
    cursor = box.textCursor()
    text = cursor.selectedText().replace("\u2029", "\n")  # Qt's paragraph separator
    start = cursor.selectionStart()
    cursor.insertText(f"{before}{text}{after}")
    if not text:  # the cursor goes between the marks, ready for the text
        cursor.setPosition(start + len(before))
    box.setTextCursor(cursor)


def list_selection(box: QPlainTextEdit) -> None:
    """Make each selected line (or the cursor's line) an item of a Markdown list."""
    cursor = box.textCursor()
    start, end = cursor.selectionStart(), cursor.selectionEnd()
    cursor.setPosition(start)
    cursor.movePosition(QTextCursor.MoveOperation.StartOfBlock)
    cursor.setPosition(end, QTextCursor.MoveMode.KeepAnchor)
    cursor.movePosition(QTextCursor.MoveOperation.EndOfBlock, QTextCursor.MoveMode.KeepAnchor)
    lines = cursor.selectedText().split("\u2029")
    cursor.insertText("\n".join(f"- {line}" for line in lines))
    box.setTextCursor(cursor)


def code_selection(box: QPlainTextEdit) -> None:
    """Mark the selection as code: in backticks, or fenced when it spans lines."""
    if "\u2029" in box.textCursor().selectedText():
        wrap_selection(box, "```\n", "\n```")
    else:
        wrap_selection(box, "`", "`")


def image_png(image: QImage) -> bytes:
    """An image's PNG bytes (the same picture always gives the same bytes)."""
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    image.save(buffer, "PNG")  # type: ignore[call-overload]  # the stubs want bytes; Qt takes str
    buffer.close()
    return bytes(data.data())


@reports_errors
class MarkdownBox(QPlainTextEdit):
    """A plain-text box for Markdown that takes a pasted image as a file in the media folder."""

    def __init__(self, name: str, lines: int) -> None:
        super().__init__()
        self.setAccessibleName(name)
        self.setPlaceholderText(name)
        self.setTabChangesFocus(True)
        self.setFixedHeight(self.fontMetrics().lineSpacing() * lines + 16)
        # Set by the editor: stores a pasted image's bytes, returns the text to insert.
        self.paste_image: Callable[[bytes], str | None] | None = None

    def canInsertFromMimeData(self, source: QMimeData) -> bool:
        """An image can be pasted when the editor keeps media."""
        if source.hasImage() and self.paste_image is not None:
            return True
        return super().canInsertFromMimeData(source)

    def insertFromMimeData(self, source: QMimeData) -> None:
        """Paste an image as a reference to its file in the media folder; text as text."""
        if source.hasImage() and self.paste_image is not None and not source.hasText():
            image = QImage(source.imageData())
            if not image.isNull():
                reference = self.paste_image(image_png(image))
                if reference:
                    self.insertPlainText(reference)
                return
        super().insertFromMimeData(source)


IMAGE_FILTER = mark("Images (*.png *.jpg *.jpeg *.gif *.webp *.bmp)")
SOUND_FILTER = mark("Sounds (*.mp3 *.ogg *.flac *.wav)")


class FormatBar(QWidget):
    """Bold, italic, list and code buttons and the media buttons, acting on the last box used.

    Args:
        boxes: The Markdown boxes the bar formats.
        media_dir: Where images and sounds go, or None when the editor keeps none.
        refused: Says why a file was not added.
    """

    def __init__(
        self,
        boxes: list[MarkdownBox],
        media_dir: Path | None,
        refused: Callable[[RecallError], None],
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self._boxes = boxes
        self._media_dir = media_dir
        self._refused = refused
        self._last = boxes[0]
        # Tests answer the file dialog: a callable given a title and a filter returns a path.
        self.choose_file: Callable[[str, str], str] = self._ask_for_file
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.bold = self._button(trp("bold", "B"), tr("Bold (Ctrl+B)"), self._on_bold)
        self.italic = self._button(trp("italic", "I"), tr("Italic (Ctrl+I)"), self._on_italic)
        self.bullets = self._button(tr("List"), tr("Make the lines a list"), self._on_list)
        self.code = self._button(tr("Code"), tr("Mark as code"), self._on_code)
        self.add_image = self._button(tr("Add image…"), tr("Add an image file"), self._on_image)
        self.add_sound = self._button(tr("Add sound…"), tr("Add a sound file"), self._on_sound)
        font = self.bold.font()
        font.setBold(True)
        self.bold.setFont(font)
        font = self.italic.font()
        font.setItalic(True)
        self.italic.setFont(font)
        for button in (self.bold, self.italic, self.bullets, self.code):
            layout.addWidget(button)
        layout.addSpacing(12)
        layout.addWidget(self.add_image)
        layout.addWidget(self.add_sound)
        layout.addStretch(1)
        for button in (self.add_image, self.add_sound):
            button.setEnabled(media_dir is not None)
        for box in boxes:
            box.paste_image = self._store_pasted if media_dir is not None else None
            for keys, marker in (("Ctrl+B", "**"), ("Ctrl+I", "*")):
                # Each box's own keys act on that box, whichever the buttons last served.
                shortcut = QShortcut(QKeySequence(keys), box)
                shortcut.setContext(Qt.ShortcutContext.WidgetShortcut)
                shortcut.activated.connect(
                    lambda box=box, marker=marker: wrap_selection(box, marker, marker)
                )
        app = QApplication.instance()
        assert isinstance(app, QApplication)
        app.focusChanged.connect(self._on_focus)

    def target(self) -> MarkdownBox:
        """The box the buttons act on: the one that last had the keyboard, if still shown."""
        if self._last.isHidden():  # the card type changed since: the first box shown
            self._last = next((box for box in self._boxes if not box.isHidden()), self._last)
        return self._last

    def _button(self, text: str, tip: str, slot: Callable[[], None]) -> QToolButton:
        button = QToolButton()
        button.setText(text)
        button.setAccessibleName(tip)
        button.setToolTip(plain_tooltip(tip))
        button.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # the box being written keeps the keys
        button.clicked.connect(slot)
        return button

    def _ask_for_file(self, title: str, kinds: str) -> str:
        return QFileDialog.getOpenFileName(self, title, "", kinds)[0]

    def _insert(self, name: str) -> None:
        reference = f"[sound:{name}]" if card_media.is_sound_name(name) else f"![]({name})"
        self.target().insertPlainText(reference)
        self.target().setFocus()

    def _store_pasted(self, data: bytes) -> str | None:
        assert self._media_dir is not None
        try:
            name = card_media.store_media(self._media_dir, data, "pasted.png")
        except RecallError as error:
            self._refused(error)
            return None
        return f"![]({name})"

    def _add_file(self, title: str, kinds: str) -> None:
        path = self.choose_file(title, kinds)
        if not path or self._media_dir is None:
            return
        try:
            name = card_media.store_media_file(self._media_dir, Path(path))
        except RecallError as error:
            self._refused(error)
            return
        self._insert(name)

    # Slots

    def _on_focus(self, _old: QWidget | None, new: QWidget | None) -> None:
        if isinstance(new, MarkdownBox) and new in self._boxes:
            self._last = new

    def _on_bold(self) -> None:
        wrap_selection(self.target(), "**", "**")

    def _on_italic(self) -> None:
        wrap_selection(self.target(), "*", "*")

    def _on_list(self) -> None:
        list_selection(self.target())

    def _on_code(self) -> None:
        code_selection(self.target())

    def _on_image(self) -> None:
        self._add_file(tr("Add an image"), i18n.tr(IMAGE_FILTER))

    def _on_sound(self) -> None:
        self._add_file(tr("Add a sound"), i18n.tr(SOUND_FILTER))
