"""The review screen's sound player: stored media names in, problems back on the window's thread."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from PySide6.QtCore import QObject, Signal

from recall.content import card_html
from recall.host.audio import DeviceOutput, Output, Player


class SoundPlayer(QObject):
    """Plays a card's sounds from the media folder through :class:`recall.host.audio.Player`.

    The player's worker and output threads report through the signals below, which Qt
    delivers on the window's thread. The player itself (and miniaudio) is made on the
    first sound.

    Args:
        media_dir: The media folder; only stored media names inside it are played.
        output: Makes the output (the system's device unless a test records instead).
    """

    problem = Signal(str)  # "x.mp3 could not be played: ..."
    unavailable = Signal(str)  # no output could be opened: said once per player
    first_frame = Signal()

    def __init__(
        self,
        media_dir: Path,
        output: Callable[[], Output] = DeviceOutput,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self._media_dir = media_dir
        self._output = output
        self._player: Player | None = None
        self._told_unavailable = False

    @property
    def player(self) -> Player | None:
        """The player, once a sound was played."""
        return self._player

    def play(self, names: Sequence[str]) -> None:
        """Stop what plays and play these stored sounds in order."""
        paths = [self._media_dir / name for name in names if card_html.is_media_name(name)]
        if not paths and self._player is None:
            return
        self._ensure_player().play(paths)

    def stop(self) -> None:
        """Stop playing."""
        if self._player is not None:
            self._player.stop()

    def toggle_pause(self) -> bool:
        """Pause or resume; returns whether it is paused now."""
        return self._player.toggle_pause() if self._player is not None else False

    def close(self) -> None:
        """Stop and release the output; a later sound opens it again."""
        if self._player is not None:
            self._player.close()
            self._player = None

    def _ensure_player(self) -> Player:
        if self._player is None:
            self._player = Player(
                self.problem.emit, self._on_unavailable, self._output, self.first_frame.emit
            )
        return self._player

    def _on_unavailable(self, text: str) -> None:
        if not self._told_unavailable:  # once for this player's life, even if reopened
            self._told_unavailable = True
            self.unavailable.emit(text)
