"""Bars, stacked or single, with an optional line on its own scale: reviews per day, cards
due ahead with the running total, histograms, hours of the day."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QPainter, QPainterPath, QPen
from PySide6.QtWidgets import QWidget

from recall.core.i18n import tr
from recall.core.wording import percent
from recall.ui.charts.base import (
    Chart,
    axis_top,
    grid_color,
    number,
    series_color,
    text_color,
)

_GAP = 0.18  # of each bar's slot, left empty between bars


@dataclass(frozen=True)
class Line:
    """A line over the bars, scaled on the right axis (a share is drawn 0-100%)."""

    name: str
    values: tuple[float | None, ...]
    share: bool = False


class BarChart(Chart):
    """Bars for labelled slots; each bar a stack of one or more series."""

    def __init__(self, title: str, parent: QWidget | None = None) -> None:
        super().__init__(title, parent)
        self._labels: tuple[str, ...] = ()
        self._series: tuple[str, ...] = ()
        self._values: tuple[tuple[float, ...], ...] = ()
        self._colors: tuple[QColor | None, ...] = ()
        self._line: Line | None = None
        self._format: Callable[[float], str] = number
        self._label_every = 1

    def set_bars(
        self,
        labels: Sequence[str],
        values: Sequence[float],
        name: str = "",
        line: Line | None = None,
        value_format: Callable[[float], str] = number,
        colors: Sequence[QColor | None] | None = None,
    ) -> None:
        """One bar per label (``colors`` may give each bar its own colour)."""
        self.set_stacks(
            labels, (name or tr("Cards"),), [(value,) for value in values], line, value_format
        )
        self._colors = tuple(colors) if colors is not None else ()

    def set_stacks(
        self,
        labels: Sequence[str],
        series: Sequence[str],
        values: Sequence[Sequence[float]],
        line: Line | None = None,
        value_format: Callable[[float], str] = number,
    ) -> None:
        """One bar per label, stacked from the first series up."""
        self._labels = tuple(labels)
        self._series = tuple(series)
        self._values = tuple(tuple(float(v) for v in stack) for stack in values)
        self._colors = ()
        self._line = line
        self._format = value_format
        headers = ["", *self._series] if len(self._series) > 1 else ["", self._series[0]]
        if line is not None:
            headers.append(line.name)
        rows = []
        for index, label in enumerate(self._labels):
            cells = [label, *(value_format(v) for v in self._values[index])]
            if len(self._series) > 1:
                cells.append(value_format(sum(self._values[index])))
            if line is not None:
                cells.append(self._line_text(line.values[index]))
            rows.append(cells)
        if len(self._series) > 1:
            headers.insert(len(self._series) + 1, tr("Total"))
        empty = not any(sum(stack) for stack in self._values)
        self.set_numbers(headers, [] if empty else rows)

    def bar_rects(self, area: QRectF | None = None) -> list[QRectF]:
        """Each bar's full rectangle (all its series), in the order of the labels."""
        plot = self._plot(area or QRectF(self.rect()))
        top = self._scale_top()
        rects = []
        for index, stack in enumerate(self._values):
            left, width = self._slot(plot, index)
            height = plot.height() * sum(stack) / top
            rects.append(QRectF(left, plot.bottom() - height, width, height))
        return rects

    # Painting

    def draw(self, painter: QPainter, area: QRectF) -> None:
        plot = self._plot(area)
        top = self._scale_top()
        self._draw_axes(painter, plot, top)
        for index, stack in enumerate(self._values):
            left, width = self._slot(plot, index)
            bottom = plot.bottom()
            for part, value in enumerate(stack):
                if value <= 0:
                    continue
                height = plot.height() * value / top
                painter.fillRect(
                    QRectF(left, bottom - height, width, height), self._color(index, part)
                )
                bottom -= height
        if self._line is not None:
            self._draw_line(painter, plot, self._line)
        self._draw_labels(painter, plot)
        if len(self._series) > 1 or self._line is not None:
            self._draw_legend(painter, area)

    def tooltip_at(self, point: QPointF) -> str | None:
        plot = self._plot(QRectF(self.rect()))
        if self.is_empty() or not plot.adjusted(0, 0, 0, 20).contains(point):
            return None
        index = int((point.x() - plot.left()) / (plot.width() / len(self._labels)))
        if not 0 <= index < len(self._labels):
            return None
        stack = self._values[index]
        lines = [self._labels[index]]
        lines += [f"{name}: {self._format(v)}" for name, v in zip(self._series, stack, strict=True)]
        if len(self._series) > 1:
            lines.append(tr("Total: {value}").format(value=self._format(sum(stack))))
        if self._line is not None:
            lines.append(f"{self._line.name}: {self._line_text(self._line.values[index])}")
        return "\n".join(lines)

    # Geometry

    def _plot(self, area: QRectF) -> QRectF:
        metrics = self.fontMetrics()
        top = self._scale_top()
        left = (
            max(metrics.horizontalAdvance(self._format(top * step / 4)) for step in range(5)) + 12
        )
        right = 50 if self._line is not None else 10
        legend = metrics.height() + 8 if len(self._series) > 1 or self._line is not None else 6
        return area.adjusted(left, legend, -right, -(metrics.height() + 8))

    def _slot(self, plot: QRectF, index: int) -> tuple[float, float]:
        slot = plot.width() / max(1, len(self._labels))
        return plot.left() + index * slot + slot * _GAP / 2, slot * (1 - _GAP)

    def _scale_top(self) -> float:
        highest = max((sum(stack) for stack in self._values), default=0.0)
        whole = all(float(v).is_integer() for stack in self._values for v in stack)
        return axis_top(highest, whole)

    def _color(self, index: int, part: int) -> QColor:
        if self._colors and self._colors[index] is not None:
            color = self._colors[index]
            assert color is not None
            return color
        return series_color(part, self.palette())

    def _line_text(self, value: float | None) -> str:
        if value is None:
            return "-"
        assert self._line is not None
        return percent(value) if self._line.share else self._format(value)

    # Pieces

    def _draw_axes(self, painter: QPainter, plot: QRectF, top: float) -> None:
        metrics = self.fontMetrics()
        for step in range(5):
            y = plot.bottom() - plot.height() * step / 4
            painter.setPen(QPen(grid_color(self), 1))
            painter.drawLine(QPointF(plot.left(), y), QPointF(plot.right(), y))
            painter.setPen(text_color(self))
            label = self._format(top * step / 4)
            painter.drawText(
                QRectF(0, y - metrics.height() / 2, plot.left() - 6, metrics.height()),
                Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter,
                label,
            )

    def _draw_labels(self, painter: QPainter, plot: QRectF) -> None:
        metrics = self.fontMetrics()
        slot = plot.width() / max(1, len(self._labels))
        widest = max((metrics.horizontalAdvance(label) for label in self._labels), default=0)
        every = max(1, int((widest + 10) / max(slot, 1)) + 1)
        painter.setPen(text_color(self))
        drawn_to = -1.0
        for index, label in enumerate(self._labels):
            if index % every:
                continue
            x = plot.left() + index * slot + slot / 2
            left = min(max(x - widest / 2 - 4, 0.0), self.width() - widest - 8.0)
            if left < drawn_to:
                continue  # pushed in from the edge onto the label before it
            drawn_to = left + widest + 8
            painter.drawText(
                QRectF(left, plot.bottom() + 4, widest + 8, metrics.height()),
                Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignTop,
                label,
            )

    def _draw_line(self, painter: QPainter, plot: QRectF, line: Line) -> None:
        values = [v for v in line.values if v is not None]
        whole = all(float(v).is_integer() for v in values)
        top = 1.0 if line.share else axis_top(max(values, default=0.0), whole)
        slot = plot.width() / max(1, len(self._labels))
        path = QPainterPath()
        points: list[QPointF] = []
        started = False
        for index, value in enumerate(line.values):
            if value is None:
                started = False
                continue
            point = QPointF(
                plot.left() + index * slot + slot / 2, plot.bottom() - plot.height() * value / top
            )
            points.append(point)
            if started:
                path.lineTo(point)
            else:
                path.moveTo(point)
                started = True
        color = series_color(5, self.palette())
        painter.setPen(QPen(color, 2))
        painter.drawPath(path)
        if any(value is None for value in line.values):  # gaps: show the lone points
            painter.setBrush(color)
            for point in points:
                painter.drawEllipse(point, 2.5, 2.5)
            painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.setPen(color)
        metrics = self.fontMetrics()
        for step in (0, 2, 4):
            y = plot.bottom() - plot.height() * step / 4
            label = f"{25 * step}%" if line.share else self._format(top * step / 4)
            painter.drawText(
                QRectF(plot.right() + 4, y - metrics.height() / 2, 40, metrics.height()),
                Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
                label,
            )

    def _draw_legend(self, painter: QPainter, area: QRectF) -> None:
        metrics = self.fontMetrics()
        x = area.right() - 8
        entries: list[tuple[str, QColor, bool]] = []
        if len(self._series) > 1:
            entries += [
                (name, series_color(i, self.palette()), False)
                for i, name in enumerate(self._series)
            ]
        if self._line is not None:
            entries.append((self._line.name, series_color(5, self.palette()), True))
        for name, color, is_line in reversed(entries):
            width = metrics.horizontalAdvance(name)
            x -= width
            painter.setPen(text_color(self))
            painter.drawText(QRectF(x, area.top(), width + 2, metrics.height()), name)
            x -= 16
            mark = QRectF(x, area.top() + metrics.height() / 2 - 5, 10, 10)
            if is_line:
                painter.setPen(QPen(color, 2))
                painter.drawLine(
                    QPointF(mark.left(), mark.center().y()),
                    QPointF(mark.right(), mark.center().y()),
                )
            else:
                painter.fillRect(mark, color)
            x -= 12
