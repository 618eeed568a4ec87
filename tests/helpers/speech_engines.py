"""Fake speech engines for tests: real programs on PATH that record the arguments they are given."""

from __future__ import annotations

import json
import sys
from pathlib import Path


def fake_engine(folder: Path, name: str, record: Path, then: str = "") -> Path:
    """A program called ``name`` that appends its arguments to ``record`` as a JSON line."""
    folder.mkdir(exist_ok=True)
    program = folder / name
    program.write_text(
        f"#!{sys.executable}\n"
        "import json, os, sys\n"
        f"with open({str(record)!r}, 'a') as out:\n"
        "    out.write(json.dumps(sys.argv[1:]) + '\\n')\n"
        f"{then}\n"
    )
    program.chmod(0o755)
    return program


def runs(record: Path) -> list[list[str]]:
    if not record.exists():
        return []
    return [json.loads(line) for line in record.read_text().splitlines()]
