"""Packages made to hang or exhaust an importer: how fast Recall refuses them, at what memory.

Two files of a few kilobytes each: a package whose collection defines ``notes`` as a view
that recurses without end, and a package of today's format whose zstd collection expands
to 1.5 GiB of zeros. Recall must refuse both within seconds and a few hundred MB; the
baseline is Recall importing the healthy package the first was made from.
"""

from __future__ import annotations

import functools
import sqlite3
import subprocess
import sys
import tempfile
import zipfile
from datetime import UTC, datetime
from pathlib import Path

import zstandard

from benchmarks.common import Figure, alternate, elapsed_ms
from recall.collection import importing
from recall.core.errors import DeckErrors
from recall.scheduling import Schedulers
from recall.storage import Database

_RECURSIVE_NOTES = (
    "CREATE VIEW notes AS WITH RECURSIVE n(id) AS (SELECT 1 UNION ALL SELECT id + 1 FROM n) "
    "SELECT id, 1 AS mid, 'x' AS flds, '' AS tags FROM n"
)
_BOMB_BYTES = 1536 * 1024**2
_MAX_SECONDS = 5
_MAX_MB = 400


def hostile_packages(healthy: Path, latest: Path, folder: Path) -> dict[str, Path]:
    """The two hostile packages, made once from a healthy genanki package and an Anki one."""
    made = {"recursive view": folder / "hostile-view.apkg", "zstd bomb": folder / "bomb.apkg"}
    if not made["recursive view"].exists():
        with zipfile.ZipFile(healthy) as archive:
            entries = {name: archive.read(name) for name in archive.namelist()}
        work = folder / "hostile.anki2"
        work.write_bytes(entries["collection.anki2"])
        connection = sqlite3.connect(work)
        connection.execute("DROP TABLE notes")
        connection.execute(_RECURSIVE_NOTES)
        connection.commit()
        connection.close()
        entries["collection.anki2"] = work.read_bytes()
        work.unlink()
        _write_zip(made["recursive view"], entries)
    if not made["zstd bomb"].exists():
        with zipfile.ZipFile(latest) as archive:
            entries = {name: archive.read(name) for name in archive.namelist()}
        compressor = zstandard.ZstdCompressor(write_content_size=False).compressobj()
        chunk = bytes(16 * 1024**2)
        parts = [compressor.compress(chunk) for _ in range(_BOMB_BYTES // len(chunk))]
        entries["collection.anki21b"] = b"".join([*parts, compressor.flush()])
        _write_zip(made["zstd bomb"], entries)
    return made


def _write_zip(path: Path, entries: dict[str, bytes]) -> None:
    partial = path.with_suffix(".partial")
    with zipfile.ZipFile(partial, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in entries.items():
            archive.writestr(name, data)
    partial.rename(path)


def _import_ms(package: Path, work: Path, refused: bool) -> float:
    with tempfile.TemporaryDirectory(dir=work) as name:
        database = Database(Path(name) / "recall.sqlite3")
        try:
            scheduler = Schedulers()
            now = datetime.now(UTC)

            def run() -> None:
                try:
                    importing.import_files(database, scheduler, [package], now)
                except DeckErrors:
                    if not refused:
                        raise
                else:
                    if refused:
                        raise SystemExit(f"{package} was imported, not refused")

            return elapsed_ms(run)
        finally:
            database.close()


# VmHWM, not getrusage: ru_maxrss carries the parent's peak across fork and exec.
_PEAK_SCRIPT = """
import sys, tempfile
from datetime import UTC, datetime
from pathlib import Path
from recall.collection import importing
from recall.core.errors import DeckErrors
from recall.scheduling import Schedulers
from recall.storage import Database
with tempfile.TemporaryDirectory(dir=sys.argv[2]) as name:
    database = Database(Path(name) / "recall.sqlite3")
    if sys.argv[1]:
        try:
            importing.import_files(database, Schedulers(), [Path(sys.argv[1])],
                                   datetime.now(UTC))
        except DeckErrors:
            pass
    database.close()
status = Path("/proc/self/status").read_text().splitlines()
print(next(int(line.split()[1]) for line in status if line.startswith("VmHWM:")) / 1024)
"""


def _peak_mb(package: Path | None, work: Path) -> float:
    """The peak resident memory of a fresh process importing ``package`` (or nothing)."""
    result = subprocess.run(
        [sys.executable, "-c", _PEAK_SCRIPT, str(package or ""), str(work)],
        capture_output=True,
        text=True,
        check=True,
    )
    return float(result.stdout.strip().splitlines()[-1])


def measure_hostile(healthy: Path, latest: Path, cache: Path, work: Path) -> list[Figure]:
    """Time to refuse each hostile package beside a healthy import; peak memory doing so."""
    packages = hostile_packages(healthy, latest, cache)
    figures = []
    for kind, package in packages.items():
        refused, healthy_ms = alternate(
            functools.partial(_import_ms, package, work, True),
            functools.partial(_import_ms, healthy, work, False),
            2,
        )
        figure = Figure(
            title=f"Refuse a hostile package ({kind})",
            measures=f"import of a {package.stat().st_size:,}-byte package made to hang or "
            "exhaust an importer, until it is refused",
            recall=refused,
            baseline_name="Recall importing the healthy genanki package",
            baseline=healthy_ms,
            goal=f"refused within {_MAX_SECONDS} s",
        )
        figures.append(
            Figure(**{**figure.__dict__, "goal_met": max(refused) <= _MAX_SECONDS * 1000})
        )
    peaks = [_peak_mb(package, work) for package in packages.values()]
    idle = [_peak_mb(None, work) for _ in packages]
    figure = Figure(
        title="Peak memory refusing the hostile packages",
        measures="peak resident memory of a fresh process importing each hostile package",
        recall=peaks,
        unit="MB",
        baseline_name="the same process importing nothing",
        baseline=idle,
        goal=f"at most {_MAX_MB} MB",
    )
    figures.append(Figure(**{**figure.__dict__, "goal_met": max(peaks) <= _MAX_MB}))
    return figures
