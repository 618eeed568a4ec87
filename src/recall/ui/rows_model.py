"""A table model over a list of plain values: one value a row, one field a column."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Generic, TypeVar

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QObject, QPersistentModelIndex, Qt

from recall.core import i18n
from recall.ui.override_errors import reports_errors

Index = QModelIndex | QPersistentModelIndex
Row = TypeVar("Row")
_RIGHT = int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
_LEFT = int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)


@reports_errors
class RowsModel(QAbstractTableModel, Generic[Row]):
    """Rows of values; subclasses name the columns and say what each cell shows.

    The first column is text, left-aligned; the others are numbers, right-aligned.
    """

    HEADERS: tuple[str, ...] = ()

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._rows: list[Row] = []

    def set_rows(self, rows: Sequence[Row]) -> None:
        """Replace every row."""
        self.beginResetModel()
        self._rows = list(rows)
        self.endResetModel()

    def row_value(self, row: int) -> Row:
        """The value shown in ``row``."""
        return self._rows[row]

    def values(self) -> list[Row]:
        """Every row's value, in order."""
        return list(self._rows)

    def cells(self, value: Row) -> tuple[object, ...]:
        """What each column shows for a row."""
        raise NotImplementedError

    def extra(self, value: Row, column: int, role: int) -> object:
        """Data for roles other than display and alignment (tooltips, accessible text)."""
        return None

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.HEADERS)

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> object:
        if not index.isValid() or not 0 <= index.row() < len(self._rows):
            return None
        value = self._rows[index.row()]
        if role == Qt.ItemDataRole.DisplayRole:
            return self.cells(value)[index.column()]
        if role == Qt.ItemDataRole.TextAlignmentRole and index.column() > 0:
            return _RIGHT
        return self.extra(value, index.column(), role)

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> object:
        if orientation != Qt.Orientation.Horizontal:
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return i18n.tr(self.HEADERS[section])
        if role == Qt.ItemDataRole.TextAlignmentRole:
            return _LEFT if section == 0 else _RIGHT
        return None
