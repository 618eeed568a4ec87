"""A calendar heatmap: one square per study day, a column per week, darker for more reviews."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date, timedelta

from PySide6.QtCore import QDate, QLocale, QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QPainter
from PySide6.QtWidgets import QWidget

from recall.core.i18n import number, tr, trn
from recall.ui.charts.base import Chart, series_color, text_color

_LEVELS = 4  # shades above "none"


def long_date(day: date) -> str:
    """A day with its weekday, in the language's own order and names ("Mon 03 Nov 2025")."""
    return QLocale().toString(QDate(day.year, day.month, day.day), "ddd dd MMM yyyy")


class CalendarHeatmap(Chart):
    """Reviews per day over the past year, weeks as columns from Monday down."""

    def __init__(self, title: str, parent: QWidget | None = None) -> None:
        super().__init__(title, parent)
        self._days: tuple[tuple[date, int], ...] = ()
        self._first_monday = date.min
        self.setMinimumHeight(130)
        self.setMaximumHeight(190)  # the squares grow with the width; taller is empty

    def set_days(self, days: Sequence[tuple[date, int]]) -> None:
        """Reviews on each day, oldest first, consecutive."""
        self._days = tuple(days)
        if self._days:
            first = self._days[0][0]
            self._first_monday = first - timedelta(days=first.weekday())
        rows = [(long_date(day), str(count)) for day, count in self._days if count]
        self.set_numbers((tr("Day"), tr("Reviews")), rows)

    def cell_rect(self, day: date, area: QRectF | None = None) -> QRectF:
        """Where a day's square is drawn."""
        origin, size = self._grid(area or QRectF(self.rect()))
        week = (day - self._first_monday).days // 7
        return QRectF(
            origin.x() + week * size, origin.y() + day.weekday() * size, size - 2, size - 2
        )

    def shade(self, count: int) -> QColor:
        """The colour of a day with ``count`` reviews."""
        top = max((c for _, c in self._days), default=0)
        if count <= 0 or top <= 0:
            base = QColor(text_color(self))
            base.setAlphaF(0.08)
            return base
        level = min(_LEVELS, 1 + (count * _LEVELS - 1) // top)
        color = QColor(series_color(1, self.palette()))
        color.setAlphaF(0.25 + 0.75 * level / _LEVELS)
        return color

    def draw(self, painter: QPainter, area: QRectF) -> None:
        origin, size = self._grid(area)
        metrics = self.fontMetrics()
        painter.setPen(text_color(self))
        for row in (0, 2, 4):  # Monday, Wednesday, Friday
            name = QLocale().dayName(row + 1, QLocale.FormatType.ShortFormat)
            painter.drawText(
                QRectF(area.left(), origin.y() + row * size, origin.x() - area.left() - 4, size),
                Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter,
                name,
            )
        shown_month = None
        for day, count in self._days:
            rect = self.cell_rect(day, area)
            painter.fillRect(rect, self.shade(count))
            if day.day <= 7 and day.weekday() == 0 and shown_month != day.month:
                shown_month = day.month
                painter.setPen(text_color(self))
                painter.drawText(
                    QRectF(rect.left(), origin.y() - metrics.height() - 2, 40, metrics.height()),
                    Qt.AlignmentFlag.AlignLeft,
                    QLocale().monthName(day.month, QLocale.FormatType.ShortFormat),
                )

    def tooltip_at(self, point: QPointF) -> str | None:
        if self.is_empty():
            return None
        for day, count in self._days:
            if self.cell_rect(day).adjusted(-1, -1, 1, 1).contains(point):
                return trn("{day}: {count} review", "{day}: {count} reviews", count).format(
                    day=long_date(day), count=number(count)
                )
        return None

    def is_empty(self) -> bool:
        return not any(count for _, count in self._days)

    def _grid(self, area: QRectF) -> tuple[QPointF, float]:
        metrics = self.fontMetrics()
        left = (
            max(
                metrics.horizontalAdvance(QLocale().dayName(day, QLocale.FormatType.ShortFormat))
                for day in (1, 3, 5)
            )
            + 8
        )
        top = metrics.height() + 4
        weeks = max(
            1, ((self._days[-1][0] - self._first_monday).days // 7 + 1) if self._days else 53
        )
        size = max(4.0, min((area.width() - left - 4) / weeks, (area.height() - top - 4) / 7))
        return QPointF(area.left() + left, area.top() + top), size
