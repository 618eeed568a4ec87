"""The deck list: decks as a tree with their new, due and total cards, and a Study button."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QItemSelectionModel, QModelIndex, QObject, Qt, Signal
from PySide6.QtGui import QKeyEvent, QStandardItem, QStandardItemModel
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QPushButton,
    QTreeView,
    QVBoxLayout,
    QWidget,
)

from recall.collection.deck_list import DeckOverview
from recall.core import deck_tree, i18n
from recall.core.i18n import mark, number, tr, trn
from recall.storage import DeckRow
from recall.ui.feedback_panel import card_label
from recall.ui.override_errors import reports_errors
from recall.ui.plain_text import plain_label, plain_tooltip
from recall.ui.text import shortened

_DECK = Qt.ItemDataRole.UserRole + 1


class DeckListModel(QStandardItemModel):
    """The deck tree: each deck under its parent (names with ``::``), counts summed up it.

    Each row's deck is a ``DeckOverview`` whose counts include its subdecks'; a name step
    no deck holds (``A`` of ``A::B`` alone) is a row with an empty key.
    """

    HEADERS = (mark("Deck"), mark("New"), mark("Due"), mark("Total"))

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.setHorizontalHeaderLabels([i18n.tr(header) for header in self.HEADERS])

    def set_decks(self, decks: Sequence[DeckOverview]) -> None:
        """Replace every row with the tree of ``decks``."""
        self.removeRows(0, self.rowCount())
        rows = [
            DeckRow(index, view.key, view.name, view.description)
            for index, view in enumerate(decks)
        ]
        for node in deck_tree.build(rows):
            self._add(self.invisibleRootItem(), node, decks)

    def deck_at(self, row: int, parent: QModelIndex | None = None) -> DeckOverview:
        """The deck shown in ``row`` (under ``parent``), with its subdecks' counts added."""
        value = self.index(row, 0, parent or QModelIndex()).data(_DECK)
        assert isinstance(value, DeckOverview)
        return value

    def deck_of(self, index: QModelIndex) -> DeckOverview:
        """The deck of the row ``index`` is in."""
        value = index.siblingAtColumn(0).data(_DECK)
        assert isinstance(value, DeckOverview)
        return value

    def index_of(self, key: str) -> QModelIndex | None:
        """The first-column index of the deck with file id ``key``, anywhere in the tree."""
        stack = [self.invisibleRootItem()]
        while stack:
            item = stack.pop()
            for row in range(item.rowCount()):
                child = item.child(row, 0)
                if child.data(_DECK).key == key:
                    return child.index()
                stack.append(child)
        return None

    def row_of(self, key: str) -> int | None:
        """The row of the deck with file id ``key`` among its siblings."""
        index = self.index_of(key)
        return None if index is None else index.row()

    def _add(
        self, parent: QStandardItem, node: deck_tree.Node[DeckRow], decks: Sequence[DeckOverview]
    ) -> None:
        def own(row: DeckRow) -> tuple[int, int, int]:
            view = decks[row.id]
            return (view.new, view.due, view.total)

        def add(a: tuple[int, int, int], b: tuple[int, int, int]) -> tuple[int, int, int]:
            return (a[0] + b[0], a[1] + b[1], a[2] + b[2])

        new, due, total = deck_tree.summed(node, own, add, (0, 0, 0))
        mine = decks[node.deck.id] if node.deck is not None else None
        value = DeckOverview(
            key=mine.key if mine else "",
            name=node.name,
            description=mine.description if mine else "",
            total=total,
            new=new,
            unseen=mine.unseen if mine else 0,
            due=due,
        )
        cells = [QStandardItem(node.label), QStandardItem(str(new)), QStandardItem(str(due))]
        cells.append(QStandardItem(str(total)))
        for column, cell in enumerate(cells):
            cell.setEditable(False)
            cell.setData(value, _DECK)
            if column:
                cell.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        cells[0].setAccessibleText(
            trn(
                "{deck}: {new} new, {due} due, {count} card",
                "{deck}: {new} new, {due} due, {count} cards",
                total,
            ).format(deck=node.name, new=new, due=due, count=number(total))
        )
        description = shortened(value.description)
        if description:
            cells[0].setToolTip(plain_tooltip(description))
        parent.appendRow(cells)
        for child in node.children:
            self._add(cells[0], child, decks)


def _identity(deck: DeckOverview) -> str:
    """What tells a row's deck apart: its file id (two decks may share a name)."""
    return deck.key or f"name:{deck.name}"


@reports_errors
class _DeckTable(QTreeView):
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
    custom_study_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("deckListView")
        self.model = DeckListModel(self)
        self._title = plain_label(tr("Decks"))
        self._title.setObjectName("pageTitle")
        self._description = card_label("deckDescription", tr("About the selected deck"), rich=False)
        self._description.setTextInteractionFlags(Qt.TextInteractionFlag.NoTextInteraction)
        self._status = card_label("deckStatus", tr("Today"), rich=False)
        self._status.setWordWrap(True)  # a long deck name must not widen the window
        self._status.setTextInteractionFlags(Qt.TextInteractionFlag.NoTextInteraction)
        self.table = _DeckTable()
        self.table.setObjectName("deckTable")
        self.table.setAccessibleName(tr("Decks"))
        self.table.setModel(self.model)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setAlternatingRowColors(True)
        self.table.setUniformRowHeights(True)
        self.table.setTabKeyNavigation(False)
        self.table.setAllColumnsShowFocus(True)
        header = self.table.header()
        header.setStretchLastSection(False)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        for column in (1, 2, 3):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)
        self.study_button = QPushButton(tr("Study"))
        self.study_button.setObjectName("studyButton")
        self.study_button.setAccessibleName(tr("Study the selected deck"))
        self.study_button.setDefault(True)
        # Offered when the selected deck has nothing due: cram, preview, beyond the limits.
        self.custom_study_button = QPushButton(tr("&Custom Study…"))
        self.custom_study_button.setObjectName("customStudyButton")
        self.custom_study_button.setAccessibleName(tr("Custom study: cram, preview, more cards"))
        self.custom_study_button.setToolTip(
            plain_tooltip(
                tr("Cram a search, preview cards due soon, go beyond today's limits (Ctrl+Shift+C)")
            )
        )
        self.custom_study_button.setVisible(False)
        buttons = QHBoxLayout()
        buttons.addWidget(self._status, 1)
        buttons.addWidget(self.custom_study_button)
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
        """Show ``decks`` as a tree and select the one with file id ``select`` (else keep it).

        Subtrees the learner collapsed stay collapsed.
        """
        previous = self.selected_key()
        collapsed = self._collapsed()
        self.model.set_decks(decks)
        self.table.expandAll()
        for name in collapsed:
            index = self._index_named(name)
            if index is not None:
                self.table.collapse(index)
        index = self.model.index_of(select or previous or "") if decks else None
        if index is None and decks:
            index = self.model.index(0, 0)
        if index is not None:
            self.table.setCurrentIndex(index)
            self.table.selectionModel().select(
                index,
                QItemSelectionModel.SelectionFlag.ClearAndSelect
                | QItemSelectionModel.SelectionFlag.Rows,
            )
        self.study_button.setEnabled(bool(decks))
        self._show_selected_counts()

    def selected_key(self) -> str | None:
        """The file id of the selected deck (None for a name step no deck holds)."""
        rows = self.table.selectionModel().selectedRows() if self.table.selectionModel() else []
        key = self.model.deck_of(rows[0]).key if rows else ""
        return key or None

    def selected_deck(self) -> DeckOverview | None:
        """The selected row's deck, its counts summed over its subdecks."""
        rows = self.table.selectionModel().selectedRows() if self.table.selectionModel() else []
        return self.model.deck_of(rows[0]) if rows else None

    def _collapsed(self) -> set[str]:
        names: set[str] = set()
        stack = [QModelIndex()]
        while stack:
            parent = stack.pop()
            for row in range(self.model.rowCount(parent)):
                index = self.model.index(row, 0, parent)
                if self.model.hasChildren(index) and not self.table.isExpanded(index):
                    names.add(_identity(self.model.deck_of(index)))
                stack.append(index)
        return names

    def _index_named(self, name: str) -> QModelIndex | None:
        stack = [QModelIndex()]
        while stack:
            parent = stack.pop()
            for row in range(self.model.rowCount(parent)):
                index = self.model.index(row, 0, parent)
                if _identity(self.model.deck_of(index)) == name:
                    return index
                stack.append(index)
        return None

    def focus_table(self) -> None:
        """Put the keyboard on the deck table so Enter starts studying."""
        self.table.setFocus()

    def _connect_signals(self) -> None:
        self.study_button.clicked.connect(self._on_study)
        self.custom_study_button.clicked.connect(self.custom_study_requested)
        self.table.selectionModel().selectionChanged.connect(self._on_selection_changed)
        self.table.activated_by_key.connect(self._on_study)
        self.table.doubleClicked.connect(self._on_study)

    def _on_selection_changed(self) -> None:
        rows = self.table.selectionModel().selectedRows()
        text = self.model.deck_of(rows[0]).description if rows else ""
        self._description.setText(shortened(text))
        self._description.setVisible(bool(text))
        self._show_selected_counts()

    def _show_selected_counts(self) -> None:
        """Say what the selected deck (with its subdecks) has today, beside its Study button."""
        deck = self.selected_deck()
        self.custom_study_button.setVisible(deck is not None and deck.new + deck.due == 0)
        if deck is None:
            self._status.setText("")
            return
        name = deck.name
        if deck.new + deck.due == 0:
            self._status.setText(tr("Nothing due in {deck} today.").format(deck=name))
            return
        self._status.setText(
            tr("{deck}: {new} new and {due} due today.").format(
                deck=name, new=deck.new, due=deck.due
            )
        )

    def _on_study(self) -> None:
        key = self.selected_key()
        if key is not None:
            self.study_requested.emit(key)
