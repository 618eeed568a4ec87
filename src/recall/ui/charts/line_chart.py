"""A painted line chart: one series over a numeric x axis, with labelled markers.

Drawn with QPainter in the palette's colours (so it follows the theme) and described in
words for screen readers through its accessible description.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

from PySide6.QtCore import QPointF, QRectF, QSize, Qt
from PySide6.QtGui import QColor, QPainter, QPainterPath, QPaintEvent, QPalette, QPen
from PySide6.QtWidgets import QSizePolicy, QWidget

from recall.core.i18n import tr
from recall.ui.override_errors import reports_errors

_MARGIN_LEFT = 56
_MARGIN_RIGHT = 16
_MARGIN_TOP = 28
_MARGIN_BOTTOM = 36
_TICKS = 4


@reports_errors
class LineChart(QWidget):
    """One line of (x, y) points, axes with a few ticks, and vertical markers.

    Args:
        title: Shown above the plot and as the accessible name.
        x_format: Turns an x value into tick text.
        y_format: Turns a y value into tick text.
    """

    def __init__(
        self,
        title: str,
        x_format: Callable[[float], str] = lambda value: f"{value:g}",
        y_format: Callable[[float], str] = lambda value: f"{value:,.0f}",
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self._title = title
        self._x_format = x_format
        self._y_format = y_format
        self._points: list[tuple[float, float]] = []
        self._markers: list[tuple[str, float, QColor | None]] = []
        self._x_ticks: list[float] = []
        self.setAccessibleName(title)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self.setMinimumSize(QSize(240, 160))

    @property
    def points(self) -> list[tuple[float, float]]:
        """The points drawn."""
        return list(self._points)

    def set_points(
        self,
        points: Sequence[tuple[float, float]],
        markers: Sequence[tuple[str, float, QColor | None]] = (),
        x_ticks: Sequence[float] = (),
    ) -> None:
        """Draw these points, and a vertical line at each marker's x (label, x, colour).

        ``x_ticks`` are the x values labelled under the axis (by default the ends and three
        between); the y axis is labelled at round numbers.
        """
        self._points = sorted(points)
        self._markers = list(markers)
        self._x_ticks = list(x_ticks)
        if self._points:
            low = min(self._points, key=lambda point: point[1])
            high = max(self._points, key=lambda point: point[1])
            self.setAccessibleDescription(
                tr("{chart}: from {low} at {low_at} to {high} at {high_at}").format(
                    chart=self._title,
                    low=self._y_format(low[1]),
                    low_at=self._x_format(low[0]),
                    high=self._y_format(high[1]),
                    high_at=self._x_format(high[0]),
                )
            )
        self.update()

    def sizeHint(self) -> QSize:
        return QSize(360, 220)

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        palette = self.palette()
        text = palette.color(QPalette.ColorRole.WindowText)
        grid = QColor(text)
        grid.setAlpha(50)
        painter.setPen(text)
        painter.drawText(
            QRectF(0, 4, self.width(), _MARGIN_TOP - 6),
            Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignVCenter,
            self._title,
        )
        plot = QRectF(
            _MARGIN_LEFT,
            _MARGIN_TOP,
            max(1.0, self.width() - _MARGIN_LEFT - _MARGIN_RIGHT),
            max(1.0, self.height() - _MARGIN_TOP - _MARGIN_BOTTOM),
        )
        if not self._points:
            painter.drawText(plot, Qt.AlignmentFlag.AlignCenter, tr("Nothing to show yet"))
            painter.end()
            return
        xs = [x for x, _ in self._points]
        ys = [y for _, y in self._points]
        x_low, x_high = min(xs), max(xs)
        y_step = nice_step(max(ys) / _TICKS)
        y_low, y_high = 0.0, y_step * math.ceil(max(ys) / y_step) if max(ys) > 0 else 1.0
        x_span = (x_high - x_low) or 1.0
        x_ticks = self._x_ticks or [x_low + x_span * tick / _TICKS for tick in range(_TICKS + 1)]

        def at(x: float, y: float) -> QPointF:
            return QPointF(
                plot.left() + (x - x_low) / x_span * plot.width(),
                plot.bottom() - (y - y_low) / (y_high - y_low) * plot.height(),
            )

        y = y_low
        while y <= y_high + y_step / 2:
            point = at(x_low, y)
            painter.setPen(QPen(grid, 1))
            painter.drawLine(QPointF(plot.left(), point.y()), QPointF(plot.right(), point.y()))
            painter.setPen(text)
            painter.drawText(
                QRectF(0, point.y() - 9, _MARGIN_LEFT - 6, 18),
                Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter,
                self._y_format(y),
            )
            y += y_step
        for x in x_ticks:
            painter.drawText(
                QRectF(at(x, y_low).x() - 30, plot.bottom() + 4, 60, 16),
                Qt.AlignmentFlag.AlignHCenter,
                self._x_format(x),
            )
        painter.setPen(QPen(text, 1))
        painter.drawLine(plot.bottomLeft(), plot.bottomRight())
        painter.drawLine(plot.bottomLeft(), plot.topLeft())
        first_x, first_y = self._points[0]
        line = QPainterPath(at(first_x, first_y))
        for x, y in self._points[1:]:
            line.lineTo(at(x, y))
        painter.setPen(QPen(palette.color(QPalette.ColorRole.Highlight), 2))
        painter.drawPath(line)
        for row, (label, x, colour) in enumerate(self._markers):
            marker = colour or palette.color(QPalette.ColorRole.Link)
            top, bottom = at(x, y_high), at(x, y_low)
            painter.setPen(QPen(marker, 1, Qt.PenStyle.DashLine))
            painter.drawLine(top, bottom)
            # One row per marker, so that labels of markers close together never overlap.
            painter.drawText(
                QRectF(top.x() + 3, plot.top() + 16 * row, 120, 16),
                Qt.AlignmentFlag.AlignLeft,
                label,
            )
        painter.end()


def nice_step(rough: float) -> float:
    """A round step (1, 2 or 5 times a power of ten) at least ``rough``."""
    if rough <= 0:
        return 1.0
    power = 10.0 ** math.floor(math.log10(rough))
    return float(next(power * factor for factor in (1, 2, 5, 10) if power * factor >= rough))
