"""The numbers behind a chart as a table model, for its "Show as table" view."""

from __future__ import annotations

from PySide6.QtCore import QObject

from recall.ui.rows_model import RowsModel


class NumbersModel(RowsModel[tuple[str, ...]]):
    """A chart's rows of texts under its headers."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.HEADERS = ()

    def set_table(self, headers: tuple[str, ...], rows: tuple[tuple[str, ...], ...]) -> None:
        """Replace the headers and every row."""
        self.beginResetModel()
        self.HEADERS = headers
        self.endResetModel()
        self.set_rows(rows)

    def cells(self, value: tuple[str, ...]) -> tuple[object, ...]:
        return tuple(
            value[column] if column < len(value) else "" for column in range(len(self.HEADERS))
        )
