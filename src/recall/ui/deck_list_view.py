"""The deck list: each deck with its new, due and total cards, and a Study button."""

from __future__ import annotations

import html
from collections.abc import Sequence

from PySide6.QtCore import (
    Qt,
    Signal,
)
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from recall.library import DeckOverview
from recall.ui.feedback_panel import card_label
from recall.ui.rows_model import RowsModel
from recall.ui.text import shortened


class DeckListModel(RowsModel[DeckOverview]):
    """Rows of ``DeckOverview`` values: name, new, due, total."""

    HEADERS = ("Deck", "New", "Due", "Total")

    def set_decks(self, decks: Sequence[DeckOverview]) -> None:
        """Replace every row."""
        self.set_rows(decks)

    def deck_at(self, row: int) -> DeckOverview:
        """The deck shown in ``row``."""
        return self.row_value(row)

    def row_of(self, key: str) -> int | None:
        """The row showing the deck with file id ``key``."""
        for row, deck in enumerate(self.values()):
            if deck.key == key:
                return row
        return None

    def cells(self, value: DeckOverview) -> tuple[object, ...]:
        return (value.name, value.new, value.due, value.total)

    def extra(self, value: DeckOverview, column: int, role: int) -> object:
        if role == Qt.ItemDataRole.ToolTipRole:
            # Tooltips guess rich text from the first tag: escape so a description shows as written.
            description = shortened(value.description)
            return f"<p>{html.escape(description)}</p>" if description else None
        if role == Qt.ItemDataRole.AccessibleTextRole:
            if column == 0:
                return f"{value.name}: {value.new} new, {value.due} due, {value.total} cards"
            return str(self.cells(value)[column])
        return None


class _DeckTable(QTableView):
    activated_by_key = Signal()

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            self.activated_by_key.emit()
            event.accept()
            return
        super().keyPressEvent(event)


class DeckListView(QWidget):
    """The start page: pick a deck and press Enter (or Study)."""

    study_requested = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("deckListView")
        self.model = DeckListModel(self)
        self._title = QLabel("Decks")
        self._title.setObjectName("pageTitle")
        self._description = card_label("deckDescription", "About the selected deck", rich=False)
        self._description.setTextInteractionFlags(Qt.TextInteractionFlag.NoTextInteraction)
        self._status = card_label("deckStatus", "Today", rich=False)
        self._status.setWordWrap(False)
        self._status.setTextInteractionFlags(Qt.TextInteractionFlag.NoTextInteraction)
        self.table = _DeckTable()
        self.table.setObjectName("deckTable")
        self.table.setAccessibleName("Decks")
        self.table.setModel(self.model)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setShowGrid(False)
        self.table.setAlternatingRowColors(True)
        self.table.verticalHeader().hide()
        self.table.setCornerButtonEnabled(False)
        self.table.setTabKeyNavigation(False)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        for column in (1, 2, 3):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)
        self.study_button = QPushButton("Study")
        self.study_button.setObjectName("studyButton")
        self.study_button.setAccessibleName("Study the selected deck")
        self.study_button.setDefault(True)
        buttons = QHBoxLayout()
        buttons.addWidget(self._status, 1)
        buttons.addWidget(self.study_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(32, 24, 32, 24)
        layout.setSpacing(14)
        layout.addWidget(self._title)
        layout.addWidget(self.table, 1)
        layout.addWidget(self._description)
        layout.addLayout(buttons)
        self._connect_signals()

    def set_decks(self, decks: Sequence[DeckOverview], select: str | None = None) -> None:
        """Show ``decks`` and select the one with file id ``select`` (else keep the row)."""
        previous = self.selected_key()
        self.model.set_decks(decks)
        row = self.model.row_of(select or previous or "") if decks else None
        if row is None and decks:
            row = 0
        if row is not None:
            self.table.selectRow(row)
        self.study_button.setEnabled(bool(decks))
        due = sum(deck.new + deck.due for deck in decks)
        self._status.setText(
            "Nothing left to study today." if due == 0 else f"{due} cards to study today."
        )

    def selected_key(self) -> str | None:
        """The file id of the selected deck."""
        rows = self.table.selectionModel().selectedRows() if self.table.selectionModel() else []
        return self.model.deck_at(rows[0].row()).key if rows else None

    def focus_table(self) -> None:
        """Put the keyboard on the deck table so Enter starts studying."""
        self.table.setFocus()

    def _connect_signals(self) -> None:
        self.study_button.clicked.connect(self._on_study)
        self.table.selectionModel().selectionChanged.connect(self._on_selection_changed)
        self.table.activated_by_key.connect(self._on_study)
        self.table.doubleClicked.connect(self._on_study)

    def _on_selection_changed(self) -> None:
        rows = self.table.selectionModel().selectedRows()
        text = self.model.deck_at(rows[0].row()).description if rows else ""
        self._description.setText(shortened(text))
        self._description.setVisible(bool(text))

    def _on_study(self) -> None:
        key = self.selected_key()
        if key is not None:
            self.study_requested.emit(key)
