"""Walking Qt's accessibility tree as a screen reader would, for the accessibility tests."""

from __future__ import annotations

import re
from collections.abc import Iterator

import shiboken6
from PySide6.QtCore import QObject, Qt
from PySide6.QtGui import QAccessible, QAccessibleInterface, QTextDocument
from PySide6.QtWidgets import QAbstractButton, QLabel, QTextEdit, QWidget

# Roles a learner acts on: each must have a name to be found and understood.
CONTROL_ROLES = frozenset(
    {
        QAccessible.Role.PushButton,
        QAccessible.Role.CheckBox,
        QAccessible.Role.RadioButton,
        QAccessible.Role.ComboBox,
        QAccessible.Role.SpinBox,
        QAccessible.Role.Slider,
        QAccessible.Role.Table,
        QAccessible.Role.List,
        QAccessible.Role.Tree,
        QAccessible.Role.EditableText,
    }
)
_WORD = re.compile(r"\w[\w'.-]*")


def walk(interface: QAccessibleInterface) -> Iterator[QAccessibleInterface]:
    """The interface and every descendant, depth first."""
    yield interface
    for index in range(interface.childCount()):
        child = interface.child(index)
        if child is not None and child.isValid():
            yield from walk(child)


def exposed(interface: QAccessibleInterface) -> str:
    """Everything a screen reader can read from one node: name, description, value, text."""
    parts = [
        interface.text(QAccessible.Text.Name),
        interface.text(QAccessible.Text.Description),
        interface.text(QAccessible.Text.Value),
    ]
    # Only text views have a text interface. Asking another node for one returns None, and
    # PySide6 6.12 then drops a reference to None it never took (Python 3.11 aborts later).
    if isinstance(interface.object(), QTextEdit):
        text = interface.textInterface()
        parts.append(text.text(0, text.characterCount()))
    return " ".join(" ".join(parts).split())


def shown_text(widget: QWidget) -> str:
    """What a widget shows as text, as plain text."""
    if isinstance(widget, QLabel):
        document = QTextDocument()
        if widget.textFormat() != Qt.TextFormat.PlainText and "<" in widget.text():
            document.setHtml(widget.text())
        else:
            document.setPlainText(widget.text())
        return " ".join(document.toPlainText().split())
    if isinstance(widget, QAbstractButton):
        return " ".join(widget.text().split())
    if isinstance(widget, QTextEdit):
        return " ".join(widget.toPlainText().split())
    return ""


def _address(thing: QObject) -> int:
    """The C++ object's address (a widget Qt made, like a form caption, gets new wrappers)."""
    address: int = shiboken6.getCppPointer(thing)[0]
    return address


def _words(text: str) -> set[str]:
    return {word.casefold().rstrip(".") for word in _WORD.findall(text)}


def unreachable_texts(root: QWidget) -> list[str]:
    """Visible texts under ``root`` that a screen reader cannot reach in the tree.

    A text is reachable when its widget is in the tree from ``root`` and that node's name,
    description, value or text holds every word of it.
    """
    top = QAccessible.queryAccessibleInterface(root)
    assert top is not None
    in_tree = {_address(node.object()): node for node in walk(top) if node.object() is not None}
    missing = []
    for widget in [root, *root.findChildren(QWidget)]:
        text = shown_text(widget)
        if not text or not widget.isVisible():
            continue
        node = in_tree.get(_address(widget))
        if node is None:
            missing.append(f"{widget.objectName() or type(widget).__name__}: not in the tree")
            continue
        lacking = _words(text) - _words(exposed(node))
        if lacking:
            name = widget.objectName() or type(widget).__name__
            missing.append(f"{name}: {text!r} lacks {sorted(lacking)} in {exposed(node)!r}")
    return missing


def unnamed_controls(root: QWidget) -> list[str]:
    """Visible controls under ``root`` whose accessible name is empty."""
    top = QAccessible.queryAccessibleInterface(root)
    assert top is not None
    unnamed = []
    for node in walk(top):
        if node.role() not in CONTROL_ROLES or node.state().invisible:
            continue
        if not node.text(QAccessible.Text.Name).strip():
            found = node.object()
            unnamed.append(f"{node.role().name} {found.objectName() if found else ''}".strip())
    return unnamed
