"""Statistics of the review history: figures computed in SQL, returned as plain values."""

from __future__ import annotations

from recall.stats.collect import collect
from recall.stats.figures import Misconception, Statistics
from recall.stats.report import text_report, to_json

__all__ = ["Misconception", "Statistics", "collect", "text_report", "to_json"]
