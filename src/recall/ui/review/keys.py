"""The review screen's keys: those that act on the card shown, as in Anki (E edits it, -
buries it, @ suspends it and Ctrl+1..7 flag it), and the screen's own (answering, rating,
hints, masks, sounds, scrolling, leaving)."""

from __future__ import annotations

from typing import Protocol

from PySide6.QtCore import Qt
from PySide6.QtGui import QKeyEvent

from recall.content.deck_format import ChoiceCard
from recall.core.memory import Rating
from recall.study.values import StudyCard
from recall.ui.review.card_panel import CardPanel
from recall.ui.review.sound_player import SoundPlayer

_FLAG_KEYS = {getattr(Qt.Key, f"Key_{number}"): number for number in range(1, 8)}
_DIGIT_KEYS = {getattr(Qt.Key, f"Key_{digit}"): digit for digit in range(10)}
_ACCEPT_KEYS = (Qt.Key.Key_Space, Qt.Key.Key_Return, Qt.Key.Key_Enter)
_SCROLL_KEYS = (Qt.Key.Key_Up, Qt.Key.Key_Down, Qt.Key.Key_PageUp, Qt.Key.Key_PageDown)


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


class KeyedScreen(Protocol):
    """What the screen's keys act on: the review screen's public face (``ReviewView``)."""

    sounds: SoundPlayer

    @property
    def card_panel(self) -> CardPanel: ...
    @property
    def shown(self) -> StudyCard | None: ...
    @property
    def rating_asked(self) -> bool: ...
    def leave(self) -> None: ...
    def show_hint(self) -> None: ...
    def toggle_masks(self) -> bool: ...
    def replay_sounds(self) -> None: ...
    def rate(self, rating: Rating | None = None) -> None: ...
    def submit(self) -> None: ...
    def pick(self, position: int) -> None: ...


def screen_key_pressed(view: KeyedScreen, event: QKeyEvent) -> bool:
    """Act on a key of the review screen's own, as ``ReviewView`` describes them.

    Returns:
        Whether the key was one of them and acted (else it goes on to the parent widget).
    """
    key = event.key()
    modifiers = event.modifiers() & ~Qt.KeyboardModifier.KeypadModifier
    if modifiers != Qt.KeyboardModifier.NoModifier:
        return False
    panel = view.card_panel
    if key == Qt.Key.Key_Escape:
        view.leave()
    elif key == Qt.Key.Key_H and panel.hints_left:
        view.show_hint()
    elif key == Qt.Key.Key_O and view.rating_asked:
        if not view.toggle_masks():
            return False
    elif key in (Qt.Key.Key_R, Qt.Key.Key_F5):
        view.replay_sounds()
    elif key == Qt.Key.Key_5 and not _digit_picks(view, 5):
        view.sounds.toggle_pause()
    elif key in _ACCEPT_KEYS:
        if view.rating_asked:
            view.rate()
        else:
            view.submit()
    elif key in _SCROLL_KEYS:
        panel.scroll_by_key(event)
    elif key in _DIGIT_KEYS:
        digit = _DIGIT_KEYS[Qt.Key(key)]
        if view.rating_asked:
            if 1 <= digit <= 4:
                view.rate(Rating(digit))
        else:
            view.pick(9 if digit == 0 else digit - 1)
    else:
        return False
    return True


def _digit_picks(view: KeyedScreen, digit: int) -> bool:
    """Whether ``digit`` is a choice or rating key on the screen now."""
    if view.rating_asked:
        return 1 <= digit <= 4
    shown = view.shown
    return (
        shown is not None
        and isinstance(shown.card, ChoiceCard)
        and not shown.as_recall  # its choices are not on screen
        and digit <= len(shown.order)
    )
