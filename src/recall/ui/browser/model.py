"""The browser's table: the cards a search matched, read a page at a time as the view scrolls.

The search hands over every matching id at once (one integer each); rows are read from the
database only when the view asks for more (``canFetchMore``/``fetchMore``), so 100,000
matches open as fast as 200. Sorting is the window's: it searches again, sorted in SQL.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime, timedelta

from PySide6.QtCore import (
    QAbstractTableModel,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    Qt,
)
from PySide6.QtGui import QColor

from recall.collection import browse
from recall.collection.browse import BrowseRow, Finder, SearchResult
from recall.core import i18n
from recall.core.i18n import mark, tr
from recall.core.memory import CardState
from recall.core.wording import percent
from recall.ui.override_errors import reports_errors
from recall.ui.plain_text import plain_tooltip
from recall.ui.text import format_interval

Index = QModelIndex | QPersistentModelIndex
PAGE = 200
COLUMNS = (
    ("question", mark("Question")),
    ("deck", mark("Deck")),
    ("due", mark("Due")),
    ("interval", mark("Interval")),
    ("stability", mark("Stability")),
    ("retrievability", mark("Retrievability")),
    ("reviews", mark("Reviews")),
    ("lapses", mark("Lapses")),
    ("last_answer", mark("Last answer")),
    ("tags", mark("Tags")),
    ("added", mark("Added")),
    ("edited", mark("Edited")),
)
# Flag colours as Anki shows them, faint enough to read text over in light and dark themes.
FLAG_COLOURS = {
    1: "#e0505a",
    2: "#f0a040",
    3: "#50b050",
    4: "#5090e0",
    5: "#e070c0",
    6: "#40c0c0",
    7: "#9060d0",
}
_RIGHT = int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
_NUMBERS = {"interval", "stability", "retrievability", "reviews", "lapses"}


@reports_errors
class CardTableModel(QAbstractTableModel):
    """Rows of a search result, fetched a page at a time."""

    def __init__(
        self, finder: Finder, clock: Callable[[], datetime], parent: QObject | None = None
    ) -> None:
        super().__init__(parent)
        self._finder = finder
        self._clock = clock
        self._ids: tuple[int, ...] = ()
        self._rows: list[BrowseRow] = []
        self._now = clock()

    @property
    def card_ids(self) -> tuple[int, ...]:
        """Every matching card's id, loaded or not, in the table's order."""
        return self._ids

    def set_result(self, result: SearchResult) -> None:
        """Show a new search result, reading only its first page."""
        self.beginResetModel()
        self._ids = result.card_ids
        self._now = self._clock()
        self._rows = self._finder.rows(self._ids[:PAGE])
        self.endResetModel()

    def card_id(self, row: int) -> int:
        """The id of the card in ``row``."""
        return self._rows[row].id

    def row_value(self, row: int) -> BrowseRow:
        """The loaded row ``row``."""
        return self._rows[row]

    def row_of(self, card_id: int) -> int | None:
        """The row of a loaded card, if it is loaded."""
        for row, value in enumerate(self._rows):
            if value.id == card_id:
                return row
        return None

    def reload(self, card_ids: Sequence[int] | None = None) -> None:
        """Read loaded rows again after a change (all of them, or those of ``card_ids``)."""
        wanted = set(card_ids) if card_ids is not None else {row.id for row in self._rows}
        fresh = {
            row.id: row for row in self._finder.rows([r.id for r in self._rows if r.id in wanted])
        }
        self._now = self._clock()
        for number, old in enumerate(self._rows):
            if old.id in fresh:
                self._rows[number] = fresh[old.id]
        if self._rows:
            self.dataChanged.emit(
                self.index(0, 0), self.index(len(self._rows) - 1, len(COLUMNS) - 1)
            )

    # Qt overrides

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(COLUMNS)

    def canFetchMore(self, parent: Index = QModelIndex()) -> bool:  # noqa: B008
        return not parent.isValid() and len(self._rows) < len(self._ids)

    def fetchMore(self, parent: Index = QModelIndex()) -> None:  # noqa: B008
        if parent.isValid():
            return
        start = len(self._rows)
        more = self._finder.rows(self._ids[start : start + PAGE])
        if not more:
            return
        self.beginInsertRows(QModelIndex(), start, start + len(more) - 1)
        self._rows.extend(more)
        self.endInsertRows()

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> object:
        if orientation != Qt.Orientation.Horizontal or not 0 <= section < len(COLUMNS):
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return i18n.tr(COLUMNS[section][1])
        return None

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> object:
        if not index.isValid() or not 0 <= index.row() < len(self._rows):
            return None
        row = self._rows[index.row()]
        key = COLUMNS[index.column()][0]
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.AccessibleTextRole):
            return self._cell(row, key)
        if role == Qt.ItemDataRole.TextAlignmentRole and key in _NUMBERS:
            return _RIGHT
        if role == Qt.ItemDataRole.BackgroundRole:
            if row.flag in FLAG_COLOURS:
                colour = QColor(FLAG_COLOURS[row.flag])
                colour.setAlpha(70)
                return colour
            if row.suspended:
                return QColor(240, 200, 60, 60)
            return None
        if role == Qt.ItemDataRole.ToolTipRole and key == "question":
            states = [
                name
                for name, on in (
                    (tr("suspended"), row.suspended),
                    (tr("buried"), self._buried(row)),
                )
                if on
            ]
            return plain_tooltip(
                browse.question(row) + (f" ({', '.join(states)})" if states else "")
            )
        return None

    def _buried(self, row: BrowseRow) -> bool:
        return row.buried_until is not None and row.buried_until > self._now

    def _cell(self, row: BrowseRow, key: str) -> str:
        memory = row.memory
        if key == "question":
            return browse.question(row)
        if key == "deck":
            return row.deck_name
        if key == "due":
            if memory.state is CardState.NEW or memory.due is None:
                text = tr("New")
            else:
                text = memory.due.astimezone().strftime("%Y-%m-%d")
            return f"({text})" if row.suspended or self._buried(row) else text
        if key == "interval":
            if memory.due is None or memory.last_review is None:
                return ""
            return format_interval(memory.due - memory.last_review)
        if key == "stability":
            return (
                ""
                if memory.stability is None
                else format_interval(timedelta(days=memory.stability))
            )
        if key == "retrievability":
            chance = self._finder.retrievability(row, self._now)
            return "" if chance is None else percent(chance)
        if key == "reviews":
            return str(row.reps)
        if key == "lapses":
            return str(row.lapses)
        if key == "last_answer":
            return (
                ""
                if row.last_correct is None
                else (tr("Right") if row.last_correct else tr("Wrong"))
            )
        if key == "tags":
            return " ".join(row.tags)
        if key == "added":
            return row.added_at.astimezone().strftime("%Y-%m-%d")
        return row.updated_at.astimezone().strftime("%Y-%m-%d")
