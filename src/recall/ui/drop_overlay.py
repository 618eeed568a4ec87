"""The "Drop to import" sheet shown over the window while importable files are dragged in."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtWidgets import QLabel, QWidget

from recall.core.i18n import number, tr, trn
from recall.ui.override_errors import reports_errors


@reports_errors
class DropOverlay(QLabel):
    """Covers ``over`` (following its size) with a note that dropping imports the files."""

    def __init__(self, over: QWidget) -> None:
        super().__init__(over)
        self.setObjectName("dropOverlay")
        self.setTextFormat(Qt.TextFormat.PlainText)
        self.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.setWordWrap(True)
        self.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        self.setAccessibleName(tr("Drop to import"))
        self.hide()
        over.installEventFilter(self)

    def show_for(self, count: int) -> None:
        """Show it, naming how many files a drop would import."""
        self.setText(
            trn("Drop to import this file", "Drop to import these {count} files", count).format(
                count=number(count)
            )
        )
        parent = self.parentWidget()
        if parent is not None:
            self.setGeometry(parent.rect())
        self.raise_()
        self.show()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Resize and self.isVisible():
            parent = self.parentWidget()
            if parent is not None:
                self.setGeometry(parent.rect())
        return super().eventFilter(watched, event)
