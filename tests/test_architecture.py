"""The house's arrows: nothing outside recall.ui loads Qt, and the CLI starts without it."""

from __future__ import annotations

import ast
import pkgutil
import subprocess
import sys
from pathlib import Path

import recall


def _core_modules() -> list[str]:
    names = [
        module.name
        for module in pkgutil.walk_packages(recall.__path__, prefix="recall.")
        if not module.name.startswith(("recall.ui", "recall.decks", "recall.resources"))
        and module.name != "recall.__main__"
    ]
    assert "recall.study" in names
    assert "recall.storage.transaction" in names
    return names


def test_no_module_outside_ui_imports_qt() -> None:
    modules = _core_modules()
    script = (
        "import importlib, sys\n"
        f"for name in {modules!r}:\n"
        "    importlib.import_module(name)\n"
        "print(sorted(m for m in sys.modules if m.startswith('PySide6')))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "[]"


def test_the_ui_does_import_qt() -> None:
    """The check above can fail: importing the window does load PySide6."""
    script = "import sys, recall.ui.main_window; print('PySide6' in sys.modules)"
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "True"


# Which package may import which outside library: the one module or package that owns it.
OWNERS = {
    "PySide6": "recall/ui/",
    "fsrs": "recall/scheduling.py",
    "fsrs_rs_python": "recall/scheduling.py",
    "sqlmodel": "recall/storage/",
    "sqlalchemy": "recall/storage/",
}


def _imported_roots(path: Path) -> set[str]:
    roots: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            roots.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            roots.add(node.module.split(".")[0])
    return roots


def test_outside_libraries_are_imported_only_by_their_owner() -> None:
    source = Path(recall.__file__).parent
    offenders = []
    for path in sorted(source.rglob("*.py")):
        relative = "recall/" + path.relative_to(source).as_posix()
        for root in _imported_roots(path) & set(OWNERS):
            if not relative.startswith(OWNERS[root]):
                offenders.append(f"{relative} imports {root}")
    assert offenders == []
    assert "fsrs" in _imported_roots(source / "scheduling.py")
