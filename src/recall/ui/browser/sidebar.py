"""The browser's sidebar: decks as a tree, card states, flags and tags; a click builds the query.

A plain click searches for the item alone; with Ctrl it is added to the search (both must
match), with Shift it is added with ``or``, as in Anki's browser.
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import QApplication, QTreeWidget, QTreeWidgetItem, QWidget

from recall.changes.cards import FLAG_NAMES
from recall.content.search import quote
from recall.core import deck_tree, i18n
from recall.core.i18n import mark, tr
from recall.storage import DeckRow
from recall.ui.browser.model import FLAG_COLOURS
from recall.ui.plain_text import plain_tooltip

QUERY = Qt.ItemDataRole.UserRole
STATES = (
    (mark("New"), "is:new"),
    (mark("Learning"), "is:learn"),
    (mark("Review"), "is:review"),
    (mark("Due today"), "is:due"),
    (mark("Suspended"), "is:suspended"),
    (mark("Buried"), "is:buried"),
    (mark("Leeches"), "is:leech"),
)
# The flags' names, for flags 1 to 7 (``FLAG_NAMES``).
FLAGS = (
    mark("Red"),
    mark("Orange"),
    mark("Green"),
    mark("Blue"),
    mark("Pink"),
    mark("Turquoise"),
    mark("Purple"),
)


class BrowserSidebar(QTreeWidget):
    """Items that each stand for a search term."""

    query_chosen = Signal(str, str)  # the term, and how to combine it: "", "and" or "or"

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("browserSidebar")
        self.setAccessibleName(tr("Search by deck, state, flag or tag"))
        self.setHeaderHidden(True)
        self.itemClicked.connect(self._on_clicked)
        self.itemActivated.connect(self._on_activated)

    def set_contents(self, decks: Sequence[DeckRow], tags: Sequence[str]) -> None:
        """Rebuild the items from the decks and tags there are, keeping what was collapsed."""
        collapsed = {
            self._path(item)
            for item in self._all_items()
            if item.childCount() and not item.isExpanded()
        }
        self.clear()
        everything = self._section(tr("All cards"), "")
        everything.setExpanded(False)
        deck_section = self._section(tr("Decks"), None)
        for node in deck_tree.build(decks):
            self._add_deck(deck_section, node)
        state_section = self._section(tr("Card state"), None)
        for label, term in STATES:
            QTreeWidgetItem(state_section, [i18n.tr(label)]).setData(0, QUERY, term)
        flag_section = self._section(tr("Flags"), None)
        for number in range(1, len(FLAG_NAMES)):
            item = QTreeWidgetItem(flag_section, [i18n.tr(FLAGS[number - 1])])
            item.setData(0, QUERY, f"flag:{number}")
            item.setForeground(0, QBrush(QColor(FLAG_COLOURS[number])))
        QTreeWidgetItem(flag_section, [tr("No flag")]).setData(0, QUERY, "flag:0")
        tag_section = self._section(tr("Tags"), None)
        self._add_tags(tag_section, tags)
        QTreeWidgetItem(tag_section, [tr("Untagged")]).setData(0, QUERY, "tag:none")
        for item in self._all_items():
            item.setExpanded(self._path(item) not in collapsed)

    def item_for(self, term: str) -> QTreeWidgetItem | None:
        """The item that searches for ``term``, if there is one."""
        return next((item for item in self._all_items() if item.data(0, QUERY) == term), None)

    def _section(self, label: str, term: str | None) -> QTreeWidgetItem:
        item = QTreeWidgetItem(self, [label])
        font = item.font(0)
        font.setBold(True)
        item.setFont(0, font)
        if term is not None:
            item.setData(0, QUERY, term)
        return item

    def _add_deck(self, parent: QTreeWidgetItem, node: deck_tree.Node[DeckRow]) -> None:
        item = QTreeWidgetItem(parent, [node.label])
        deck = node.deck
        beside = deck is not None and node.label.endswith(f" ({deck.key})")
        # A deck sharing its name with another is searched by its id, the others by name.
        term = deck.key if beside and deck is not None else node.name
        item.setData(0, QUERY, f"deck:{quote(term)}")
        item.setToolTip(0, plain_tooltip(node.name))
        for child in node.children:
            self._add_deck(item, child)

    def _add_tags(self, parent: QTreeWidgetItem, tags: Sequence[str]) -> None:
        items: dict[str, QTreeWidgetItem] = {}
        for tag in tags:
            steps = tag.split("::")
            above = parent
            for depth in range(1, len(steps) + 1):
                name = "::".join(steps[:depth])
                found = items.get(name.casefold())
                if found is None:
                    found = QTreeWidgetItem(above, [steps[depth - 1]])
                    found.setData(0, QUERY, f"tag:{quote(name)}")
                    items[name.casefold()] = found
                above = found

    def _all_items(self) -> list[QTreeWidgetItem]:
        found: list[QTreeWidgetItem] = []
        stack = [self.topLevelItem(i) for i in range(self.topLevelItemCount())]
        while stack:
            item = stack.pop()
            if item is None:
                continue
            found.append(item)
            stack.extend(item.child(i) for i in range(item.childCount()))
        return found

    @staticmethod
    def _path(item: QTreeWidgetItem) -> str:
        steps = []
        current: QTreeWidgetItem | None = item
        while current is not None:
            steps.append(current.text(0))
            current = current.parent()
        return "/".join(reversed(steps))

    def _on_clicked(self, item: QTreeWidgetItem, _column: int) -> None:
        term = item.data(0, QUERY)
        if term is None:
            return
        modifiers = QApplication.keyboardModifiers()
        how = ""
        if modifiers & Qt.KeyboardModifier.ControlModifier:
            how = "and"
        elif modifiers & Qt.KeyboardModifier.ShiftModifier:
            how = "or"
        self.query_chosen.emit(str(term), how)

    def _on_activated(self, item: QTreeWidgetItem, column: int) -> None:
        self._on_clicked(item, column)
