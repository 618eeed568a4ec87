"""Every way the window's code hands Qt a text that Qt could take for HTML goes through
``ui/plain_text``: labels, tooltips (on widgets, items and in models), input dialogs,
progress dialogs and message boxes."""

from __future__ import annotations

import ast
from pathlib import Path

import recall.ui

UI = Path(recall.ui.__file__).parent
HELPER = UI / "plain_text.py"

# Message boxes whose text is the app's own markup (the shortcut table, About).
OWN_MARKUP = {("main_menus.py", "_on_shortcuts"), ("main_menus.py", "_on_about")}
_STATIC_BOXES = {"information", "warning", "critical", "question", "about"}


def _name(node: ast.expr) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return ""


def _is_plain_tooltip(node: ast.expr) -> bool:
    if isinstance(node, ast.Call):
        return _name(node.func) == "plain_tooltip"
    if isinstance(node, ast.Constant):
        return node.value is None or node.value == ""
    if isinstance(node, ast.IfExp):
        return _is_plain_tooltip(node.body) and _is_plain_tooltip(node.orelse)
    return False


def _only_calls(nodes: list[ast.expr]) -> list[ast.Call]:
    return [node for node in nodes if isinstance(node, ast.Call)]


def _mentions_tooltip_role(node: ast.AST) -> bool:
    return any(
        isinstance(part, ast.Attribute) and part.attr == "ToolTipRole" for part in ast.walk(node)
    )


def _calls(node: ast.AST, method: str) -> bool:
    return any(isinstance(part, ast.Call) and _name(part.func) == method for part in ast.walk(node))


def _tooltip_returns(node: ast.AST) -> list[ast.AST]:
    """The tooltips a model's ``data`` hands back for the tooltip role, not made plain."""
    if isinstance(node, ast.IfExp) and _mentions_tooltip_role(node.test):
        return [] if _is_plain_tooltip(node.body) else [node]
    if not isinstance(node, ast.If) or not _mentions_tooltip_role(node.test):
        return []
    return [
        part
        for statement in node.body
        for part in ast.walk(statement)
        if isinstance(part, ast.Return)
        and part.value is not None
        and not _is_plain_tooltip(part.value)
    ]


def _call_problem(node: ast.Call, filename: str, inside: list[ast.FunctionDef]) -> str | None:
    """What is wrong with one call, if it hands Qt a text it may lay out as HTML."""
    called = _name(node.func)
    owner = _name(node.func.value) if isinstance(node.func, ast.Attribute) else ""
    if called in {"QLabel", "QInputDialog"} and filename != HELPER.name:
        return f"{called}(...) instead of ui/plain_text's labels and dialogs"
    if called == "setToolTip" and node.args:
        text = node.args[-1]
        literal = isinstance(text, ast.Constant) and isinstance(text.value, str)
        if not literal and not _is_plain_tooltip(text):
            return "setToolTip with a text not made by plain_tooltip"
    tooltip_data = called == "setData" and any(_mentions_tooltip_role(a) for a in node.args)
    if tooltip_data and not any(_name(a.func) == "plain_tooltip" for a in _only_calls(node.args)):
        return "a tooltip set as data, not made by plain_tooltip"
    if owner == "QInputDialog" and called.startswith("get"):
        return f"QInputDialog.{called} shows its label as guessed rich text"
    own_markup = any((filename, function.name) in OWN_MARKUP for function in inside)
    if owner == "QMessageBox" and called in _STATIC_BOXES and not own_markup:
        return f"QMessageBox.{called} shows its text as guessed rich text"
    for kind, fix in (("QProgressDialog", "setLabel"), ("QMessageBox", "setTextFormat")):
        if called == kind and (not inside or not _calls(inside[-1], fix)):
            return f"{kind}(...) in a function that never calls {fix}"
    return None


def violations(source: str, filename: str) -> list[str]:
    """Where ``source`` gives Qt a text it may lay out as HTML, one line per place."""
    tree = ast.parse(source)
    found: list[str] = []

    def say(node: ast.AST, what: str) -> None:
        found.append(f"{filename}:{getattr(node, 'lineno', 0)}: {what}")

    functions = [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)]
    for node in ast.walk(tree):
        label_class = isinstance(node, ast.ClassDef) and any(
            _name(base) == "QLabel" for base in node.bases
        )
        if label_class and not _calls(node, "setTextFormat"):
            say(node, "a QLabel class that never sets its text format")
        for part in _tooltip_returns(node):
            say(part, "a model's tooltip not made by plain_tooltip")
        if isinstance(node, ast.Call):
            inside = [f for f in functions if node in ast.walk(f)]
            problem = _call_problem(node, filename, inside)
            if problem is not None:
                say(node, problem)
    return found


def test_the_window_code_hands_qt_no_text_it_could_take_for_html() -> None:
    found: list[str] = []
    sources = sorted(UI.rglob("*.py"))
    assert len(sources) > 40
    for path in sources:
        found += violations(path.read_text(encoding="utf-8"), path.name)
    assert found == []


def test_the_check_finds_each_kind_of_unescaped_text() -> None:
    source = """
class Title(QLabel):
    pass

def build(name, path, role, parent):
    label = QLabel(name)
    label.setToolTip(name)
    item.setToolTip(0, f"Deck {name}")
    item.setData(name, Qt.ItemDataRole.ToolTipRole)
    QInputDialog.getText(parent, "Rename", name)
    QMessageBox.warning(parent, "Import", name)
    QProgressDialog(name, "Cancel", 0, 0, parent)
    box = QMessageBox(QMessageBox.Icon.Warning, "Import", name)
    if role == Qt.ItemDataRole.ToolTipRole:
        return str(path)
    return str(path) if role == Qt.ItemDataRole.ToolTipRole else None

def fine(name, role, parent):
    label = plain_label(name)
    label.setToolTip("Literal help.")
    label.setToolTip(plain_tooltip(name))
    dialog = QProgressDialog(name, "Cancel", 0, 0, parent)
    dialog.setLabel(plain_label(name))
    if role == Qt.ItemDataRole.ToolTipRole:
        return plain_tooltip(name)
"""
    found = violations(source, "example.py")
    lines = sorted(int(line.split(":")[1]) for line in found)
    assert lines == [2, 6, 7, 8, 9, 10, 11, 12, 13, 15, 16], found
