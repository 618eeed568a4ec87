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
        "recall/exporting.py",
    ),
    "PySide6": "recall/ui/",
    "fsrs": "recall/scheduling/",
    "fsrs_rs_python": "recall/scheduling/",
    "sqlmodel": "recall/storage/",
    "sqlalchemy": "recall/storage/",
    "miniaudio": "recall/audio.py",
    "zstandard": "recall/importers/_zip.py",
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


# Who may import whom among Recall's own modules. Each module belongs to one layer (the
# longest prefix below names it); a module imports freely from the layers beneath its own.
# Beside that: base modules use each other; a package's modules use each other; and the
# sideways imports listed in SIDEWAYS, each with its reason. A new module must be placed.
LAYERS = {
    "recall": "base",  # the package itself: its version and its submodules' names
    "recall.errors": "base",
    "recall.memory": "base",
    "recall.fields": "base",
    "recall.preferences": "base",
    "recall.presets": "base",
    "recall.days": "base",
    "recall.paths": "base",
    "recall.progress": "base",
    "recall.files": "base",
    "recall.cardlimits": "base",
    "recall.workspace": "base",
    "recall.instances": "base",
    "recall.window_libraries": "base",
    "recall.cardhtml": "base",
    "recall.sound": "base",
    "recall.deckfile": "base",
    "recall.deck_problems": "base",
    "recall.grading": "base",
    "recall.search": "base",
    "recall.search_sql": "base",
    "recall.deck_tree": "base",
    "recall.storage": "core",
    "recall.scheduling": "core",
    "recall.audio": "core",
    "recall.study_queue": "use case",
    "recall.importers": "core",
    "recall.library": "use case",
    "recall.opening": "use case",
    "recall.study": "use case",
    "recall.importing": "use case",
    "recall.exporting": "use case",
    "recall.backups": "use case",
    "recall.integrity": "use case",
    "recall.upkeep": "use case",
    "recall.lint": "use case",
    "recall.deck_options": "use case",
    "recall.optimizing": "use case",
    "recall.workload": "use case",
    "recall.cli_options": "edge",
    "recall.browse": "use case",
    "recall.card_changes": "use case",
    "recall.editing": "use case",
    "recall.deck_changes": "use case",
    "recall.recovery": "use case",
    "recall.stats": "use case",
    "recall.sync": "use case",
    "recall.cli": "edge",
    "recall.cli_shared": "edge",
    "recall.cli_decks": "edge",
    "recall.cli_history": "edge",
    "recall.cli_cards": "edge",
    "recall.cli_sync": "edge",
    "recall.__main__": "edge",
    "recall.ui": "edge",
}
ORDER = ("base", "core", "use case", "edge")
PACKAGES = (
    "recall.storage",
    "recall.importers",
    "recall.scheduling",
    "recall.stats",
    "recall.sync",
    "recall.ui",
)
SIDEWAYS = {
    # A restore checks the restored file.
    ("recall.backups", "recall.integrity"),
    # Installing the bundled deck is an import.
    ("recall.opening", "recall.importing"),
    # Undo rebuilds a card's schedule by the same replay the check uses.
    ("recall.study", "recall.integrity"),
    # A repair backs up first, then rebuilds what the check found.
    ("recall.upkeep", "recall.backups"),
    ("recall.upkeep", "recall.integrity"),
    # New options back up first and replay histories as the check does.
    ("recall.deck_options", "recall.backups"),
    ("recall.deck_options", "recall.integrity"),
    # Applying fitted parameters is a change of options.
    ("recall.optimizing", "recall.deck_options"),
    # Undoing a forget or a set due date replays the card as the check does; deleting
    # cards backs up first.
    ("recall.card_changes", "recall.integrity"),
    ("recall.card_changes", "recall.backups"),
    # A leech is tagged and suspended as a bulk change, so undoing the answer undoes it.
    ("recall.study", "recall.card_changes"),
    # The session keeps today's queue in memory in a module of its own.
    ("recall.study", "recall.study_queue"),
    # Edits and deck changes go on the same undo stack as bulk changes.
    ("recall.editing", "recall.card_changes"),
    ("recall.deck_changes", "recall.card_changes"),
    # Deleting a deck backs up first, and so does a sync round deleting many cards.
    ("recall.sync", "recall.backups"),
    ("recall.deck_changes", "recall.backups"),
    # The command line lists each group of commands (each in its own module) ...
    ("recall.cli", "recall.cli_decks"),
    ("recall.cli", "recall.cli_history"),
    ("recall.cli", "recall.cli_cards"),
    ("recall.cli", "recall.cli_options"),
    # ... and every group opens the database and prints as the others do.
    ("recall.cli", "recall.cli_shared"),
    ("recall.cli_decks", "recall.cli_shared"),
    ("recall.cli_history", "recall.cli_shared"),
    ("recall.cli_cards", "recall.cli_shared"),
    ("recall.cli_options", "recall.cli_shared"),
    # The command line lists the sync command, which opens and prints as the others do.
    ("recall.cli", "recall.cli_sync"),
    ("recall.cli_sync", "recall.cli_shared"),
    # Getting a folder's database back restores a backup and checks the result.
    ("recall.recovery", "recall.backups"),
    ("recall.recovery", "recall.integrity"),
    # The command line opens the window (lazily, so it starts without Qt).
    ("recall.cli", "recall.ui"),
    # python -m recall runs the command line.
    ("recall.__main__", "recall.cli"),
}


def _layer(module: str) -> str | None:
    matches = [
        prefix
        for prefix in LAYERS
        if module == prefix or (prefix != "recall" and module.startswith(prefix + "."))
    ]
    return LAYERS[max(matches, key=len)] if matches else None


def _owner(module: str) -> str:
    """The unit a module belongs to: its package for a package's modules, else itself."""
    return next((package for package in PACKAGES if module.startswith(package + ".")), module)


def import_violations(graph: dict[str, set[str]]) -> list[str]:
    """Every import in ``graph`` (module -> Recall modules it imports) that breaks the table."""
    found = []
    for module, imported in sorted(graph.items()):
        layer = _layer(module)
        if layer is None:
            found.append(f"{module} has no place in LAYERS")
            continue
        for target in sorted(imported - {module}):
            target_layer = _layer(target)
            if target_layer is None:
                found.append(f"{target} has no place in LAYERS")
            elif ORDER.index(target_layer) < ORDER.index(layer):
                continue
            elif ORDER.index(target_layer) > ORDER.index(layer):
                found.append(f"{module} ({layer}) imports {target} ({target_layer}), above it")
            elif (
                layer == "base"
                or target == "recall"
                or _owner(module) == _owner(target)
                or any(
                    (module == low or module.startswith(low + ".")) and _owner(target) == high
                    for low, high in SIDEWAYS
                )
            ):
                continue
            else:
                found.append(f"{module} imports {target} sideways ({layer}); not in SIDEWAYS")
    return found


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


def test_recall_modules_import_each_other_only_as_the_table_allows() -> None:
    graph = _recall_imports()
    assert "recall.storage.transaction" in graph["recall.storage.database"]
    assert import_violations(graph) == []


def test_the_table_check_finds_imports_across_it() -> None:
    """It can fail: an import upward, one sideways, and an unplaced module are each found."""
    graph = _recall_imports()
    graph["recall.storage.cards"] = graph["recall.storage.cards"] | {"recall.study"}
    graph["recall.exporting"] = graph["recall.exporting"] | {"recall.importing"}
    graph["recall.shiny"] = {"recall.errors"}
    assert import_violations(graph) == [
        "recall.exporting imports recall.importing sideways (use case); not in SIDEWAYS",
        "recall.shiny has no place in LAYERS",
        "recall.storage.cards (core) imports recall.study (use case), above it",
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
