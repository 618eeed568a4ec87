"""Child process: import one Recall JSON deck into an empty database, then report.

``python -m benchmarks.import_peak DECK DATABASE`` imports DECK into a new database at
DATABASE as ``recall import`` does and prints ``imported <cards> <milliseconds> <peak RSS
in kB>``: the peak (VmHWM) of a process that did nothing else.
"""

from __future__ import annotations

import sys
import time
from datetime import UTC, datetime
from pathlib import Path

from benchmarks.proc import peak_rss_kb
from recall.collection import importing
from recall.scheduling import Schedulers
from recall.storage import Database


def main() -> None:
    deck_file, database_file = Path(sys.argv[1]), Path(sys.argv[2])
    database = Database(database_file)
    try:
        started = time.perf_counter()
        (report,) = importing.import_files(database, Schedulers(), [deck_file], datetime.now(UTC))
        elapsed = (time.perf_counter() - started) * 1000
    finally:
        database.close()
    cards = sum(deck.added for deck in report.decks)
    print(f"imported {cards} {elapsed:.0f} {peak_rss_kb()}", flush=True)


if __name__ == "__main__":
    main()
