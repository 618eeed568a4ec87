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
    assert "recall.study.session" in names
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


# Which package may import which outside library: the one module or package that owns it
# (or the few, each with its reason).
OWNERS: dict[str, str | tuple[str, ...]] = {
    # Recall's own database: storage/ wraps every sqlite3 error in its own error types.
    # Beside it, only code that works on another program's SQLite file: the Anki
    # collection reader (and its guard), and the Anki package export (genanki writes
    # its collection through a sqlite3 cursor).
    "sqlite3": (
        "recall/storage/",
        "recall/importers/_collection.py",
        "recall/importers/_collection_guard.py",
        "recall/collection/exporting.py",
        "recall/collection/anki_package.py",
    ),
    "PySide6": "recall/ui/",
    "fsrs": "recall/scheduling/",
    "fsrs_rs_python": "recall/scheduling/",
    "sqlmodel": "recall/storage/",
    "sqlalchemy": "recall/storage/",
    # The decoders only in the decoder's child process; the output device in the player.
    "miniaudio": ("recall/host/audio.py", "recall/host/sound_decoder.py"),
    "zstandard": "recall/importers/_zip.py",
    # The typesetter of formulas, loaded when the first one is shown.
    "ziamath": "recall/content/math.py",
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
    assert "fsrs" in _imported_roots(source / "scheduling" / "review.py")
    assert "sqlite3" in _imported_roots(source / "storage" / "maintenance.py")


# Who may import whom among Recall's own packages: a package imports its own modules and the
# tiers below its own; a sideways import inside a tier needs an entry here with its reason.
TIERS = (
    ("recall.core",),
    ("recall.content", "recall.host"),
    ("recall.storage", "recall.scheduling", "recall.importers"),
    ("recall.safekeeping", "recall.changes", "recall.study", "recall.options"),
    ("recall.collection", "recall.stats", "recall.sync"),
    # The local API serves the use cases to tools; the command line and the window run it.
    ("recall.api",),
    ("recall.cli", "recall.ui"),
    ("recall.__main__",),
)
SIDEWAYS = {
    ("recall.host", "recall.content"): "the sound device plays the sounds a card's text names",
    ("recall.changes", "recall.safekeeping"): "deleting backs up first; undo replays as the check",
    ("recall.options", "recall.safekeeping"): "new options back up first and replay as the check",
    ("recall.study", "recall.safekeeping"): "undoing an answer replays the card as the check does",
    (
        "recall.study",
        "recall.changes",
    ): "a leech is tagged as a bulk change, undone with the answer",
    ("recall.cli", "recall.ui"): "the command line opens the window, lazily",
}


def _unit(module: str) -> str:
    """The package a module belongs to: ``recall.X`` for every module under ``recall.X``."""
    return ".".join(module.split(".")[:2])


def _tier(unit: str) -> int | None:
    return next((n for n, tier in enumerate(TIERS) if unit in tier), None)


def import_violations(graph: dict[str, set[str]]) -> list[str]:
    """Every import in ``graph`` (module -> Recall modules it imports) that breaks the tiers,
    and every SIDEWAYS entry no import uses any more."""
    found, used = [], set()
    for module, imported in sorted(graph.items()):
        if module == "recall":
            continue
        unit = _unit(module)
        if _tier(unit) is None:
            found.append(f"{module} is in no tier")
            continue
        for target in sorted(imported - {"recall"}):
            target_unit = _unit(target)
            if target_unit == unit:
                continue
            target_tier = _tier(target_unit)
            if target_tier is None:
                found.append(f"{target} is in no tier")
            elif (unit, target_unit) in SIDEWAYS:
                used.add((unit, target_unit))
            elif target_tier > _tier(unit):  # type: ignore[operator]
                found.append(f"{module} imports {target}, a tier above it")
            elif target_tier == _tier(unit):
                found.append(f"{module} imports {target} sideways; not in SIDEWAYS")
    found += [
        f"SIDEWAYS allows {low} -> {high}, which nothing imports"
        for low, high in sorted(set(SIDEWAYS) - used)
    ]
    return found


def import_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The packages that import each other round in a circle (strongly connected, Tarjan)."""
    units: dict[str, set[str]] = {}
    for module, imported in graph.items():
        units.setdefault(_unit(module), set()).update(
            _unit(t) for t in imported if _unit(t) != _unit(module) and t != "recall"
        )
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    cycles: list[list[str]] = []

    def visit(unit: str) -> None:
        index[unit] = low[unit] = len(index)
        stack.append(unit)
        for target in sorted(units.get(unit, ())):
            if target not in index:
                visit(target)
                low[unit] = min(low[unit], low[target])
            elif target in stack:
                low[unit] = min(low[unit], index[target])
        if low[unit] == index[unit]:
            members = []
            while (member := stack.pop()) != unit:
                members.append(member)
            if members:
                cycles.append(sorted([unit, *members]))

    for unit in sorted(units):
        if unit not in index:
            visit(unit)
    return cycles


def _recall_imports() -> dict[str, set[str]]:
    source = Path(recall.__file__).parent
    modules = {}
    for path in sorted(source.rglob("*.py")):
        parts = ("recall", *path.relative_to(source).with_suffix("").parts)
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        modules[name] = path
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        imported: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                imported.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                imported.add(node.module)
                imported.update(f"{node.module}.{alias.name}" for alias in node.names)
        graph[name] = {
            target for target in imported if target in modules and target.startswith("recall")
        }
    return graph


def test_recall_packages_import_each_other_only_as_the_tiers_allow() -> None:
    graph = _recall_imports()
    assert "recall.storage.transaction" in graph["recall.storage.database"]
    assert import_violations(graph) == []
    assert import_cycles(graph) == []


def test_the_tier_check_finds_imports_across_it() -> None:
    """It can fail: upward, sideways, unplaced, a stale allowance and a cycle are each found."""
    graph = _recall_imports()
    graph["recall.storage.cards"] = graph["recall.storage.cards"] | {"recall.study.session"}
    graph["recall.collection.exporting"] = graph["recall.collection.exporting"] | {
        "recall.sync.rounds"
    }
    graph["recall.shiny"] = {"recall.core.errors"}
    graph["recall.cli.main"] = graph["recall.cli.main"] - {
        "recall.ui.application",
        "recall.ui.self_test",
    }
    assert import_violations(graph) == [
        "recall.collection.exporting imports recall.sync.rounds sideways; not in SIDEWAYS",
        "recall.shiny is in no tier",
        "recall.storage.cards imports recall.study.session, a tier above it",
        "SIDEWAYS allows recall.cli -> recall.ui, which nothing imports",
    ]
    assert import_cycles(graph) == [
        ["recall.changes", "recall.safekeeping", "recall.storage", "recall.study"]
    ]


def test_opening_an_up_to_date_database_does_not_load_sqlalchemy(tmp_path: Path) -> None:
    """Queries are plain SQL: only creating or upgrading a schema needs SQLAlchemy."""
    path = tmp_path / "recall.sqlite3"
    script = (
        "import sys\n"
        "from pathlib import Path\n"
        "from recall.storage import Database\n"
        f"database = Database(Path({str(path)!r}))\n"
        "with database.transaction() as t:\n"
        "    t.decks.keys()\n"
        "database.close()\n"
        "print('sqlalchemy' in sys.modules)\n"
    )

    def run() -> str:
        result = subprocess.run(
            [sys.executable, "-c", script], capture_output=True, text=True, check=True
        )
        return result.stdout.strip()

    assert run() == "True"  # the first start creates the schema from its declaration
    assert run() == "False"


def test_every_package_is_listed_for_installing() -> None:
    """pip installs (and the standalone app freezes) only the packages pyproject.toml lists."""
    import tomllib

    root = Path(recall.__file__).parent
    listed = set(
        tomllib.loads((root.parents[1] / "pyproject.toml").read_text(encoding="utf-8"))["tool"][
            "setuptools"
        ]["packages"]
    )
    found = {
        "recall." + path.parent.relative_to(root).as_posix().replace("/", ".")
        for path in root.rglob("__init__.py")
        if path.parent != root
    }
    assert found - listed == set()
