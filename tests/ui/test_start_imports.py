"""What the first screen loads: a start shows the deck list without the modules it does not use.

The statistics, the browser, the charts, the deck options (optimizer, simulator), the
importers and exporter, the deck format's models (pydantic), the review screen and sound
load when first used. A start that loaded them again would be slower without anything
failing, so this holds it: the real window is opened offscreen in a new interpreter on a
library that was opened before (its bundled deck installed), and its modules are listed.
The same start shows that the module sources PySide6's import hook reads are not kept.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import pytest

from recall.collection import opening

# Loaded when first used, never by a start on the deck list.
LAZY = (
    "pydantic",
    "recall.content.deck_format",
    "recall.collection.importing",
    "recall.importers",
    "recall.collection.exporting",
    "genanki",
    "recall.content.lint",
    "recall.changes.editing",
    "recall.study.session",
    "recall.stats",
    "recall.storage.statistics",
    "recall.storage.browsing",
    "recall.options.optimizing",
    "recall.options.workload",
    "fsrs_rs_python",
    "recall.host.audio",
    "miniaudio",
    "sqlalchemy",
    "sqlmodel",
    "importlib.metadata",
    "recall.ui.review.view",
    "recall.ui.statistics.window",
    "recall.ui.browser.window",
    "recall.ui.charts",
    "recall.ui.options.deck_options_dialog",
    "recall.ui.options.preferences_dialog",
    "recall.ui.browser.card_editor",
    "recall.ui.data.backups_dialog",
    "recall.content.search",
    "recall.storage.search_sql",
    "recall.sync.folder",
)

_SCRIPT = """
import json, linecache, sys
from pathlib import Path
from recall.ui import application
from recall.ui.prompts import Prompts

lazy = json.loads(sys.argv[2])
data_dir = Path(sys.argv[1])
app = application.application()
prompts = Prompts()
database = application.open_database(data_dir, prompts)
window = application.show_window(database, data_dir, prompts)
app.processEvents()
loaded = {"deck list": [name for name in lazy if name in sys.modules]}
kept = {"deck list": [Path(name).name for name in linecache.cache if "recall" in name]}
assert window.deck_list.model.rowCount() == 1
window.show_statistics()
window.statistics.tasks.wait()
loaded["statistics"] = [name for name in lazy if name in sys.modules]
window.study("activation-recompute")
app.processEvents()
loaded["review"] = [name for name in lazy if name in sys.modules]
kept["review"] = [Path(name).name for name in linecache.cache if "recall" in name]
print(json.dumps(kept))
print(json.dumps(loaded))
window.close()
window.tasks.wait()
database.close()
"""


@dataclass(frozen=True)
class Start:
    """One start of the window in a new interpreter: the lazy modules loaded and the files
    whose source lines linecache held, on the deck list, the statistics and a review."""

    loaded: dict[str, list[str]]
    kept: dict[str, list[str]]


@pytest.fixture
def start(tmp_path: Path) -> Start:
    """The window started offscreen on a library that was opened before (the data folder
    and the configuration the test's own, as for every test)."""
    data_dir = tmp_path
    opening.open_library(data_dir, datetime.now(UTC)).close()  # an earlier start
    environment = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    result = subprocess.run(
        [sys.executable, "-c", _SCRIPT, str(data_dir), json.dumps(LAZY)],
        capture_output=True,
        text=True,
        check=True,
        env=environment,
    )
    kept, loaded = result.stdout.strip().splitlines()[-2:]
    return Start(loaded=json.loads(loaded), kept=json.loads(kept))


def test_the_deck_list_starts_without_what_it_does_not_show(start: Start) -> None:
    loaded = start.loaded
    assert loaded["deck list"] == []
    # The check can fail: opening the statistics and a review does load their modules.
    assert {"recall.stats", "recall.ui.statistics.window", "recall.ui.charts"} <= set(
        loaded["statistics"]
    )
    assert {
        "recall.study.session",
        "recall.ui.review.view",
        "pydantic",
        "recall.content.deck_format",
    } <= set(loaded["review"])
    # A review reads the decks through the browser's queries but never searches.
    assert "recall.storage.search_sql" not in loaded["review"]


def test_the_sources_read_by_pysides_import_hook_are_not_kept(start: Start) -> None:
    # Each module imported after PySide6 had its source read into linecache; the deck
    # list and the review screen let go of them before reading their rows.
    assert not {"main_window.py", "deck_list_view.py", "application.py"} & set(
        start.kept["deck list"]
    )
    assert not {"view.py", "session.py", "deck_format.py"} & set(start.kept["review"])
