"""Painted charts: bars (stacked, with an optional line) and a calendar heatmap, each with
tooltips, the numbers behind it for screen readers and a table view, and Save as PNG."""

from __future__ import annotations

from recall.ui.charts.bars import BarChart, Line
from recall.ui.charts.base import EMPTY_TEXT, Chart
from recall.ui.charts.heatmap import CalendarHeatmap
from recall.ui.charts.section import ChartSection

__all__ = ["EMPTY_TEXT", "BarChart", "CalendarHeatmap", "Chart", "ChartSection", "Line"]
