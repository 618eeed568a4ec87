"""Keys of the review screen that act on the card shown, as in Anki: E edits it, - buries it,
@ suspends it and Ctrl+1..7 flag it."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QKeyEvent

_FLAG_KEYS = {getattr(Qt.Key, f"Key_{number}"): number for number in range(1, 8)}


def card_key_action(event: QKeyEvent) -> tuple[str, int] | None:
    """What a key press asks of the card on screen: ("edit" | "bury" | "suspend", 0) or
    ("flag", 1-7); None for any other key."""
    key = Qt.Key(event.key())
    modifiers = event.modifiers() & ~Qt.KeyboardModifier.KeypadModifier
    if modifiers == Qt.KeyboardModifier.ControlModifier and key in _FLAG_KEYS:
        return ("flag", _FLAG_KEYS[key])
    if key == Qt.Key.Key_At:  # Shift+2 on most layouts: the shift is part of the key
        return ("suspend", 0)
    if modifiers != Qt.KeyboardModifier.NoModifier:
        return None
    if key == Qt.Key.Key_E:
        return ("edit", 0)
    if key == Qt.Key.Key_Minus:
        return ("bury", 0)
    return None
