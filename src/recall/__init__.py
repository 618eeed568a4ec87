"""Recall: an adaptive spaced-repetition desktop app for quiz-style learning."""

from __future__ import annotations

# The one place the version is written: pyproject.toml reads it from here. Reading it from
# the installed metadata instead would load importlib.metadata (and email) at every start.
__version__ = "0.1.0"
