"""The review screen's player: a side's sounds and speech in, problems out on the GUI thread."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from PySide6.QtCore import QObject, Signal

from recall.content import card_html
from recall.content.sound import Played
from recall.content.speech import Speech
from recall.host.audio import DeviceOutput, Output, Player
from recall.host.speech import Speaker

Part = tuple[Path, ...] | Speech
"""One step of what a side plays: a run of sound files, or one text read aloud."""


class SoundPlayer(QObject):
    """Plays a card's sounds through :class:`recall.host.audio.Player` and reads its speech
    through :class:`recall.host.speech.Speaker`, one after another in the card's order.

    Sounds run together go to the player as one list; each text goes to the speaker. When a
    part ends (told from their threads, delivered by Qt on the window's thread), the next
    one starts; a new ``play`` or ``stop`` makes the parts still pending, and any end
    reported for them, count for nothing. The player and the speaker are made on first use.

    Args:
        media_dir: The media folder; only stored media names inside it are played.
        output: Makes the output (the system's device unless a test records instead).
        speaker: Makes the speaker (the system's speech engine by default).
    """

    problem = Signal(str)  # "x.mp3 could not be played: ...", "Speech: ..."
    unavailable = Signal(str)  # no output could be opened: said once per player
    first_frame = Signal()
    _part_ended = Signal(int)  # the generation whose part ended

    def __init__(
        self,
        media_dir: Path,
        output: Callable[[], Output] = DeviceOutput,
        parent: QObject | None = None,
        speaker: Callable[[], Speaker] = Speaker,
    ) -> None:
        super().__init__(parent)
        self._media_dir = media_dir
        self._output = output
        self._make_speaker = speaker
        self._player: Player | None = None
        self._speaker: Speaker | None = None
        self._told_unavailable = False
        self._parts: list[Part] = []
        self._generation = 0
        self._part_ended.connect(self._on_part_ended)

    @property
    def player(self) -> Player | None:
        """The player, once a sound was played."""
        return self._player

    def play(self, items: Sequence[Played]) -> None:
        """Stop what plays and play these stored sounds and texts in order."""
        self.stop()
        self._parts = _parts(self._media_dir, items)
        self._next()

    def stop(self) -> None:
        """Stop playing and reading."""
        self._generation += 1
        self._parts = []
        if self._player is not None:
            self._player.stop()
        if self._speaker is not None:
            self._speaker.stop()

    def toggle_pause(self) -> bool:
        """Pause or resume the sounds; returns whether they are paused now."""
        return self._player.toggle_pause() if self._player is not None else False

    def close(self) -> None:
        """Stop and release the output and the speaker; a later sound opens them again."""
        self.stop()
        if self._player is not None:
            self._player.close()
            self._player = None
        if self._speaker is not None:
            self._speaker.close()
            self._speaker = None

    def _next(self) -> None:
        if not self._parts:
            return
        part = self._parts.pop(0)
        generation = self._generation

        def ended() -> None:  # from the player's worker
            self._part_ended.emit(generation)

        def spoken(problem: str | None) -> None:  # from the speaker's thread
            if problem is not None:
                self.problem.emit(problem)
            self._part_ended.emit(generation)

        if isinstance(part, Speech):
            if self._speaker is None:
                self._speaker = self._make_speaker()
            self._speaker.speak(part, spoken)
        else:
            self._ensure_player().play(part, ended)

    def _on_part_ended(self, generation: int) -> None:
        if generation == self._generation:
            self._next()

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


def _parts(media_dir: Path, items: Sequence[Played]) -> list[Part]:
    """Sounds run together as one list of files; each text a part of its own."""
    parts: list[Part] = []
    for item in items:
        if isinstance(item, Speech):
            parts.append(item)
        elif card_html.is_media_name(item):
            path = media_dir / item
            if parts and not isinstance(parts[-1], Speech):
                parts[-1] = (*parts[-1], path)
            else:
                parts.append((path,))
    return parts
