"""A statistics section: a title, a one-line reading, a chart, and its numbers as a table."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from recall.core.i18n import tr
from recall.ui.charts.base import Chart
from recall.ui.charts.numbers_model import NumbersModel
from recall.ui.plain_text import plain_label


class ChartSection(QFrame):
    """A framed block holding one or more charts, with "Show as table" for their numbers."""

    def __init__(
        self,
        title: str,
        charts: list[Chart] | None = None,
        columns: int = 1,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("statisticsSection")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.charts = list(charts or [])
        self.title = plain_label(title)
        self.title.setObjectName("sectionTitle")
        font = self.title.font()
        font.setBold(True)
        font.setPointSizeF(font.pointSizeF() * 1.15)
        self.title.setFont(font)
        self.reading = plain_label()
        self.reading.setObjectName("sectionReading")
        self.reading.setWordWrap(True)
        self.reading.setAccessibleName(tr("{chart}: reading").format(chart=title))
        self.reading.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.table_button = QPushButton(tr("Show as Table"))
        self.table_button.setCheckable(True)
        self.table_button.setAccessibleName(tr("Show {chart} as a table").format(chart=title))
        policy = self.table_button.sizePolicy()
        policy.setRetainSizeWhenHidden(True)  # titles line up across a row of sections
        self.table_button.setSizePolicy(policy)
        self.table_button.setVisible(bool(self.charts))
        self.model = NumbersModel(self)
        self.table = QTableView()
        self.table.setModel(self.model)
        self.table.setAccessibleName(tr("{chart}: numbers").format(chart=title))
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().hide()
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.table.setMinimumHeight(160)
        self.table.hide()
        header = QHBoxLayout()
        header.addWidget(self.title, 1)
        header.addWidget(self.table_button)
        self.body = QVBoxLayout()
        self.body.setSpacing(6)
        grid = QGridLayout()
        grid.setSpacing(10)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(14, 10, 14, 12)
        layout.setSpacing(6)
        layout.addLayout(header)
        layout.addWidget(self.reading)
        layout.addLayout(self.body)
        layout.addWidget(self.table)
        if not self.charts:
            layout.addStretch(1)  # text and tables stay at the top when the row is taller
        self.captions: dict[Chart, QLabel] = {}
        for index, chart in enumerate(self.charts):
            cell = QVBoxLayout()
            cell.setSpacing(2)
            if len(self.charts) > 1:
                caption = plain_label(chart.title)
                caption.setObjectName("chartCaption")
                caption.setWordWrap(True)
                self.captions[chart] = caption
                cell.addWidget(caption)
            cell.addWidget(chart, 1)
            grid.addLayout(cell, index // columns, index % columns)
            chart.numbers_changed.connect(self._on_numbers_changed)
        self.body.addLayout(grid)
        self.table_button.toggled.connect(self._on_table_toggled)

    def set_reading(self, text: str) -> None:
        """The section's one-line reading."""
        self.reading.setText(text)
        self.setAccessibleDescription(text)

    def set_caption(self, chart: Chart, text: str) -> None:
        """The line above one of several charts (its title, and a figure such as the average)."""
        self.captions[chart].setText(text)

    def _on_table_toggled(self, shown: bool) -> None:
        self.table.setVisible(shown)
        for chart in self.charts:
            chart.setVisible(not shown)
        for caption in self.captions.values():
            caption.setVisible(not shown)
        self.table_button.setText(tr("Show as Chart") if shown else tr("Show as Table"))
        self._on_numbers_changed()

    def _on_numbers_changed(self) -> None:
        if not self.table.isVisible() and not self.table_button.isChecked():
            return
        # With several charts the table shows them one after another, each under its title.
        if len(self.charts) == 1:
            chart = self.charts[0]
            self.model.set_table(chart.headers or ("",), chart.rows)
            return
        width = max((len(chart.headers) for chart in self.charts), default=1)
        rows: list[tuple[str, ...]] = []
        for chart in self.charts:
            rows.append((chart.title, *chart.headers[1:]))
            rows += [tuple(row) for row in chart.rows] or [(chart.empty_text,)]
        headers = ("", *("" for _ in range(width - 1)))
        self.model.set_table(headers, tuple(row + ("",) * (width - len(row)) for row in rows))
