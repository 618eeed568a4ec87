"""The row on a card for its media: the sound button, links to videos, and sound problems."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt, QUrl, Signal
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import QHBoxLayout, QPushButton, QStyle, QVBoxLayout, QWidget

from recall.content import card_html
from recall.content.sound import short_name
from recall.core.i18n import tr
from recall.ui.feedback_panel import card_label
from recall.ui.plain_text import plain_tooltip


class SoundBar(QWidget):
    """Shown when a card has sounds or videos; hidden otherwise.

    The sound button replays the card's sounds (as R does). Each video is a button that
    opens the file with the system's player, and only a file inside the media folder.
    Problems playing a sound appear as lines under the buttons.
    """

    replay_requested = Signal()

    def __init__(self, media_dir: Path, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("soundBar")
        self._media_dir = media_dir
        self.replay_button = QPushButton(tr("Play sound"))
        self.replay_button.setIcon(self.style().standardIcon(QStyle.StandardPixmap.SP_MediaVolume))
        self.replay_button.setObjectName("replaySound")
        self.replay_button.setAccessibleName(tr("Play the card's sound again"))
        self.replay_button.setToolTip(
            plain_tooltip(tr("Play the card's sound again (R or F5; 5 pauses)"))
        )
        self.replay_button.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # R does this by keyboard
        self._buttons = QHBoxLayout()
        self._buttons.setContentsMargins(0, 0, 0, 0)
        self._buttons.addWidget(self.replay_button)
        self._buttons.addStretch(1)
        self.problems = card_label("soundProblem", tr("Sound problem"), rich=False)
        self.problems.hide()
        self._videos: list[QPushButton] = []
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(4)
        layout.addLayout(self._buttons)
        layout.addWidget(self.problems)
        self.replay_button.clicked.connect(self._on_replay_clicked)
        self.hide()

    @property
    def video_buttons(self) -> list[QPushButton]:
        """The buttons that open the card's videos, in order."""
        return list(self._videos)

    def show_media(self, sounds: bool, videos: tuple[str, ...]) -> None:
        """Show the sound button if the card has sounds, and a button per video."""
        for button in self._videos:
            self._buttons.removeWidget(button)
            button.deleteLater()
        self._videos = []
        for number, name in enumerate(videos, start=1):
            button = QPushButton(tr("Open video {number}").format(number=number))
            button.setIcon(self.style().standardIcon(QStyle.StandardPixmap.SP_MediaPlay))
            button.setObjectName("openVideo")
            button.setAccessibleName(
                tr("Open video {number} ({name}) in your player").format(
                    number=number, name=short_name(name)
                )
            )
            button.setFocusPolicy(Qt.FocusPolicy.TabFocus)
            button.clicked.connect(lambda _checked=False, n=name: self.open_video(n))
            self._buttons.insertWidget(self._buttons.count() - 1, button)
            self._videos.append(button)
        self.replay_button.setVisible(sounds)
        self.setVisible(sounds or bool(videos) or self.problems.isVisibleTo(self))

    def clear(self) -> None:
        """A new card: no buttons, no problems."""
        self.problems.setText("")
        self.problems.hide()
        self.show_media(False, ())

    def add_problem(self, text: str) -> None:
        """Add a line saying why a sound could not be played; studying goes on."""
        lines = [line for line in self.problems.text().split("\n") if line]
        if text not in lines:
            lines.append(text)
        self.problems.setText("\n".join(lines))
        self.problems.show()
        self.show()

    def open_video(self, name: str) -> bool:
        """Open a stored video with the system's player; False if it is not in the media folder."""
        path = self._media_dir / name
        inside = card_html.is_media_name(name) and path.is_file() and not path.is_symlink()
        if not inside or path.resolve().parent != self._media_dir.resolve():
            self.add_problem(
                tr("{name} could not be opened: the file is missing").format(name=short_name(name))
            )
            return False
        return QDesktopServices.openUrl(QUrl.fromLocalFile(str(path)))

    def _on_replay_clicked(self) -> None:
        self.replay_requested.emit()
