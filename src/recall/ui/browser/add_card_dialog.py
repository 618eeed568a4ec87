"""Adding cards: pick a deck and a card type, write the card, Ctrl+Enter adds it and clears.

The deck and the type stay for the next card, as in Anki's Add window, and a warning says
when the deck already has a card with the same question. Escape or closing the window with
text written asks before the text is thrown away.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QHBoxLayout,
    QPushButton,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from recall.changes import editing
from recall.changes.cards import Changes
from recall.core import i18n
from recall.core.errors import RecallError
from recall.core.i18n import mark, tr, trn
from recall.host import paths
from recall.storage import Database, DeckRow
from recall.ui.browser.card_editor import CardEditor
from recall.ui.override_errors import reports_errors
from recall.ui.plain_text import plain_label, plain_tooltip
from recall.ui.prompts import Prompts

KINDS = (
    (mark("Multiple choice"), "choice"),
    (mark("Basic (front and back)"), "basic"),
    (mark("Basic and reversed (a card each way)"), "reversed"),
    (mark("Type the answer"), "type"),
    (mark("Cloze deletion"), "cloze"),
)
DISCARD = mark("Discard what you typed?")


def keep_typed_text(editor: CardEditor, prompts: Prompts, title: str) -> bool:
    """Whether a window closing should stay open: text is written and the learner says keep it."""
    return editor.has_text() and not prompts.confirm(title, i18n.tr(DISCARD))


@reports_errors
class AddCardDialog(QDialog):
    """A window for writing new cards into a deck.

    Args:
        database: Where cards are added.
        changes: The undo stack each added card goes on.
        decks: The decks to choose from.
        clock: The current time, aware UTC.
        deck_id: The deck to start with.
        prompts: Asks before typed text is thrown away; message boxes over this window
            when not given.
    """

    added = Signal(int)

    def __init__(
        self,
        database: Database,
        changes: Changes,
        decks: Sequence[DeckRow],
        clock: Callable[[], datetime],
        deck_id: int | None = None,
        parent: QWidget | None = None,
        prompts: Prompts | None = None,
    ) -> None:
        super().__init__(parent)
        self._prompts = prompts or Prompts(self)
        self.setWindowTitle(tr("Add Cards"))
        self.setObjectName("addCardDialog")
        self._database = database
        self._changes = changes
        self._clock = clock
        self._decks = list(decks)
        self.deck_box = QComboBox()
        self.deck_box.setAccessibleName(tr("Deck"))
        for deck in self._decks:
            self.deck_box.addItem(deck.name, deck.id)
        if deck_id is not None:
            self.deck_box.setCurrentIndex(max(0, self.deck_box.findData(deck_id)))
        self.kind_box = QComboBox()
        self.kind_box.setAccessibleName(tr("Card type"))
        for label, kind in KINDS:
            self.kind_box.addItem(i18n.tr(label), kind)
        self.editor = CardEditor(paths.media_dir(database.path.parent))
        self.warning = plain_label()
        self.warning.setObjectName("duplicateWarning")
        self.warning.setAccessibleName(tr("Warning"))
        self.warning.setTextFormat(Qt.TextFormat.PlainText)
        self.warning.hide()
        self.status = plain_label()
        self.status.setObjectName("addStatus")
        self.status.setAccessibleName(tr("Last added"))
        self.add_button = QPushButton(tr("Add"))
        self.add_button.setDefault(False)
        self.add_button.setAutoDefault(False)
        self.add_button.setToolTip(
            plain_tooltip(tr("Add the card and clear the fields (Ctrl+Enter)"))
        )
        self.add_button.setAccessibleName(tr("Add the card"))
        close = QPushButton(tr("Close"))
        close.setAutoDefault(False)
        close.clicked.connect(self.close)
        top = QHBoxLayout()
        top.addWidget(plain_label(tr("Deck")))
        top.addWidget(self.deck_box, 2)
        top.addWidget(plain_label(tr("Type")))
        top.addWidget(self.kind_box, 1)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setWidget(self.editor)
        bottom = QHBoxLayout()
        bottom.addWidget(self.status, 1)
        bottom.addWidget(self.add_button)
        bottom.addWidget(close)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(scroll, 1)
        layout.addWidget(self.warning)
        layout.addLayout(bottom)
        for keys in ("Ctrl+Return", "Ctrl+Enter"):
            QShortcut(QKeySequence(keys), self, self.add_card)
        self.add_button.clicked.connect(self.add_card)
        self.kind_box.currentIndexChanged.connect(self._on_kind)
        self.editor.changed.connect(self._on_edited)
        self.editor.media_refused.connect(self._on_media_refused)
        self.deck_box.currentIndexChanged.connect(self._on_edited)
        self.resize(760, 720)
        self._on_kind()

    def deck(self) -> DeckRow:
        """The deck chosen."""
        deck_id = self.deck_box.currentData()
        return next(deck for deck in self._decks if deck.id == deck_id)

    def add_card(self) -> int | None:
        """Add the card as written; clear the fields for the next one. None if it has problems."""
        problems = self.editor.check()
        if problems:
            self.status.setText(tr("Not added: {problem}").format(problem=problems[0]))
            return None
        deck = self.deck()
        try:
            change, card_ids = editing.add_cards(
                self._database, deck, self.editor.cards(), self._clock()
            )
        except RecallError as error:
            self.status.setText(tr("Not added: {problem}").format(problem=error))
            return None
        self._changes.push(change)
        added = len(card_ids)
        self.status.setText(
            tr("Added to {deck}.").format(deck=deck.name)
            if added == 1
            else trn(
                "Added {count} card to {deck}.", "Added {count} cards to {deck}.", added
            ).format(count=added, deck=deck.name)
        )
        self.editor.clear()
        self.editor.focus_first()
        self.added.emit(card_ids[-1])
        return card_ids[-1]

    def reject(self) -> None:
        """Close (Escape, Close, the window's button), asking first when text is written."""
        if keep_typed_text(self.editor, self._prompts, tr("Add Cards")):
            return
        super().reject()

    def _on_media_refused(self, message: str) -> None:
        self._prompts.tell(tr("Add Cards"), message, warning=True)

    def _on_kind(self) -> None:
        self.editor.set_kind(str(self.kind_box.currentData()))
        self.editor.focus_first()

    def _on_edited(self) -> None:
        data = self.editor.data()
        question = str(data.get("question") or data.get("front") or "").strip()
        duplicate = bool(question) and editing.is_duplicate(
            self._database, self.deck().id, question
        )
        self.warning.setText(
            tr("{deck} already has a card with this question.").format(deck=self.deck().name)
            if duplicate
            else ""
        )
        self.warning.setVisible(duplicate)
