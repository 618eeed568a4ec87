"""What every painted chart shares: palette colours, the empty state, tooltips, the numbers
behind the picture (for screen readers and the "Show as table" view), and Save as PNG."""

from __future__ import annotations

import math
from collections.abc import Sequence

from PySide6.QtCore import QEvent, QPointF, QRectF, QSize, Qt, Signal
from PySide6.QtGui import (
    QColor,
    QContextMenuEvent,
    QGuiApplication,
    QHelpEvent,
    QImage,
    QPainter,
    QPaintEvent,
    QPalette,
)
from PySide6.QtWidgets import QFileDialog, QMenu, QSizePolicy, QToolTip, QWidget

from recall.core import i18n
from recall.core.i18n import mark, tr
from recall.ui.override_errors import reports_errors

EMPTY_TEXT = mark("No reviews yet")

# Hues that read on white and on near-black alike; dark palettes get them lighter.
_SERIES = ("#3b7dd8", "#2e9e5b", "#1f6b3d", "#d9822b", "#8e63ce", "#c8455d", "#6b7785")


def is_dark(palette: QPalette) -> bool:
    """Whether the palette is a dark one (light text on a dark window)."""
    return palette.color(QPalette.ColorRole.Window).lightness() < 128


def series_color(index: int, palette: QPalette) -> QColor:
    """The colour of the ``index``-th series, tuned to the palette."""
    color = QColor(_SERIES[index % len(_SERIES)])
    return color.lighter(135) if is_dark(palette) else color


def nice_ceiling(value: float) -> float:
    """The smallest of 1, 2, 2.5, 5 times a power of ten at or above ``value`` (1 for 0)."""
    if value <= 0:
        return 1.0
    power = 10.0 ** math.floor(math.log10(value))
    for step in (1.0, 2.0, 2.5, 5.0, 10.0):
        if value <= step * power + 1e-9:
            return float(step * power)
    return float(10.0 * power)


def axis_top(value: float, whole: bool) -> float:
    """The top of a four-step axis over values up to ``value``: each step a round number,
    and a whole one when the values are counts."""
    step = nice_ceiling(value / 4)
    if whole:
        step = max(1.0, math.ceil(step))
    return 4 * step


def number(value: float) -> str:
    """A figure for an axis or a tooltip: whole numbers plainly, others to two digits."""
    if abs(value - round(value)) < 1e-9:
        return i18n.number(round(value))
    return i18n.decimal(value, 2 if abs(value) < 10 else 1)


@reports_errors
class Chart(QWidget):
    """A painted chart. Subclasses fill ``draw`` and ``tooltip_at`` and call ``set_numbers``.

    Its accessible name is its title and its accessible description reads out every number
    behind it; the context menu saves it as a PNG or copies the numbers.
    """

    numbers_changed = Signal()

    def __init__(self, title: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.title = title
        self.headers: tuple[str, ...] = ()
        self.rows: tuple[tuple[str, ...], ...] = ()
        self.empty_text = i18n.tr(EMPTY_TEXT)
        self.setAccessibleName(title)
        self.setMouseTracking(True)
        self.setMinimumHeight(170)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self.setFocusPolicy(Qt.FocusPolicy.TabFocus)
        self.setContextMenuPolicy(Qt.ContextMenuPolicy.DefaultContextMenu)

    # For subclasses

    def is_empty(self) -> bool:
        """Whether there is nothing to draw (the empty state is drawn instead)."""
        return not self.rows

    def draw(self, painter: QPainter, area: QRectF) -> None:
        """Paint the chart into ``area`` (the widget's rectangle, in its own pixels)."""
        raise NotImplementedError

    def tooltip_at(self, point: QPointF) -> str | None:
        """The exact values under ``point``, if any."""
        return None

    def set_numbers(self, headers: Sequence[str], rows: Sequence[Sequence[str]]) -> None:
        """Give the numbers behind the chart, as a table of texts."""
        self.headers = tuple(headers)
        self.rows = tuple(tuple(row) for row in rows)
        if self.rows:
            described = "; ".join(
                ", ".join(
                    f"{h} {c}" if i else c
                    for i, (h, c) in enumerate(zip(self.headers, row, strict=False))
                )
                for row in self.rows
            )
        else:
            described = self.empty_text
        self.setAccessibleDescription(f"{self.title}: {described}")
        self.numbers_changed.emit()
        self.update()

    # Output

    def numbers_text(self) -> str:
        """The numbers as tab-separated lines, headers first."""
        return "\n".join("\t".join(row) for row in (self.headers, *self.rows))

    def render_image(self, size: QSize | None = None, scale: float | None = None) -> QImage:
        """The chart painted into an image, at ``scale`` device pixels per pixel (the
        screen's ratio if None), on the window colour."""
        size = size or self.size()
        ratio = scale if scale is not None else self.devicePixelRatioF()
        image = QImage(
            math.ceil(size.width() * ratio),
            math.ceil(size.height() * ratio),
            QImage.Format.Format_ARGB32_Premultiplied,
        )
        image.setDevicePixelRatio(ratio)
        image.fill(self.palette().color(QPalette.ColorRole.Window))
        painter = QPainter(image)
        try:
            self._paint(painter, QRectF(0, 0, size.width(), size.height()))
        finally:
            painter.end()
        return image

    def save_png(self, path: str) -> bool:
        """Write the chart as a PNG (".png" added if missing) at twice its size at least, for
        sharp print; True on success."""
        image = self.render_image(self.size(), max(2.0, self.devicePixelRatioF()))
        return bool(image.save(path if path.lower().endswith(".png") else f"{path}.png"))

    # Qt overrides

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        try:
            self._paint(painter, QRectF(self.rect()))
        finally:
            painter.end()

    def sizeHint(self) -> QSize:
        return QSize(520, 200)

    def event(self, event: QEvent) -> bool:
        if event.type() == QEvent.Type.ToolTip:
            assert isinstance(event, QHelpEvent)
            text = None if self.is_empty() else self.tooltip_at(QPointF(event.pos()))
            if text:
                QToolTip.showText(event.globalPos(), text, self)
            else:
                QToolTip.hideText()
                event.ignore()
            return True
        return super().event(event)

    def contextMenuEvent(self, event: QContextMenuEvent) -> None:
        menu = self.context_menu()
        menu.exec(event.globalPos())

    def context_menu(self) -> QMenu:
        """The chart's menu: Save as PNG and Copy numbers."""
        menu = QMenu(self)
        save = menu.addAction(tr("Save as PNG..."))
        save.triggered.connect(self._on_save)
        copy = menu.addAction(tr("Copy Numbers"))
        copy.triggered.connect(self._on_copy)
        copy.setEnabled(bool(self.rows))
        return menu

    # Painting

    def _paint(self, painter: QPainter, area: QRectF) -> None:
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setFont(self.font())
        if self.is_empty():
            painter.setPen(self.palette().color(QPalette.ColorRole.PlaceholderText))
            painter.drawText(area, Qt.AlignmentFlag.AlignCenter, self.empty_text)
            return
        self.draw(painter, area)

    def _on_save(self) -> None:
        name = self.title.lower().replace(" ", "-") + ".png"
        path, _ = QFileDialog.getSaveFileName(
            self, tr("Save Chart as PNG"), name, tr("PNG image (*.png)")
        )
        if path:
            self.save_png(path)

    def _on_copy(self) -> None:
        QGuiApplication.clipboard().setText(self.numbers_text())


def text_color(widget: QWidget) -> QColor:
    """The colour for labels on a chart."""
    return widget.palette().color(QPalette.ColorRole.WindowText)


def grid_color(widget: QWidget) -> QColor:
    """The colour of grid lines: the text colour, faint."""
    color = QColor(text_color(widget))
    color.setAlphaF(0.18)
    return color
