"""Speech on the review screen: read when a side is shown, again with R; one line without engine."""

from __future__ import annotations

import json
import os
import random
from pathlib import Path

import pytest
from PySide6.QtCore import QSize, Qt
from PySide6.QtWidgets import QMainWindow
from pytestqt.qtbot import QtBot

from recall.collection import importing
from recall.content.speech import Speech
from recall.core.preferences import Preferences
from recall.host import paths
from recall.host.audio import RecordingOutput
from recall.host.speech import missing_engine_line
from recall.options import deck_options
from recall.scheduling import Schedulers
from recall.storage import Database
from recall.study.session import StudySession
from recall.ui.review.sound_player import _parts
from recall.ui.review.view import Phase, ReviewView
from tests.conftest import ZONE, Clock
from tests.helpers.sound_files import write_tone
from tests.helpers.speech_engines import fake_engine, runs

_HOSTS: list[QMainWindow] = []
SPOKEN = ["-w", "-r", "0", "-l", "de", "--", "-Hallo"]


def speaking_screen(
    qtbot: QtBot, database: Database, clock: Clock, tmp_path: Path, preferences: Preferences
) -> tuple[ReviewView, RecordingOutput]:
    media = tmp_path / "media"
    media.mkdir()
    write_tone(media / "word.wav", 0.1)
    deck = {
        "format": "recall-deck",
        "version": 1,
        "id": "spoken",
        "name": "Spoken",
        "cards": [
            {
                "id": "say",
                "type": "basic",
                "front": "[sound:word.wav] Say it [anki:tts lang=de]-Hallo[/anki:tts]",
                "back": "hallo",
                "explanation": "[anki:tts lang=de]Antwort[/anki:tts]",
            }
        ],
    }
    (tmp_path / "spoken.json").write_text(json.dumps(deck))
    deck_options.save_preferences(database, preferences, clock())
    schedulers = Schedulers(fuzz=False)
    importing.import_files(database, schedulers, [tmp_path / "spoken.json"], clock())
    session = StudySession(database, schedulers, "spoken", random.Random(1), ZONE)
    output = RecordingOutput()
    view = ReviewView(
        session, clock, paths.media_dir(database.path.parent), audio_output=lambda: output
    )
    host = QMainWindow()
    host.setMinimumSize(QSize(640, 480))
    host.setCentralWidget(view)
    qtbot.addWidget(host)
    _HOSTS.append(host)
    host.show()
    qtbot.waitExposed(host)
    view.start()
    return view, output


def engine_on_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A recording ``spd-say`` first on PATH: the engine Linux looks for first."""
    record = tmp_path / "spoken.jsonl"
    fake_engine(tmp_path / "bin", "spd-say", record)
    monkeypatch.setenv("PATH", f"{tmp_path / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}")
    return record


def test_speech_is_read_when_the_card_is_shown_and_r_reads_it_again(
    qtbot: QtBot,
    database: Database,
    clock: Clock,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    record = engine_on_path(tmp_path, monkeypatch)
    view, output = speaking_screen(qtbot, database, clock, tmp_path, Preferences())
    assert view.sound_bar.replay_button.isVisible()
    qtbot.waitUntil(lambda: runs(record) == [SPOKEN], timeout=10_000)
    assert len(output.takes) == 1  # the card's sound played as well

    qtbot.keyClick(view, Qt.Key.Key_R)
    qtbot.waitUntil(lambda: runs(record) == [SPOKEN, SPOKEN], timeout=10_000)
    assert len(output.takes) == 2

    qtbot.keyClick(view, Qt.Key.Key_Space)  # the answer's speech
    assert view.phase is Phase.FEEDBACK
    qtbot.waitUntil(lambda: len(runs(record)) == 3, timeout=10_000)
    assert runs(record)[-1][-1] == "Antwort"
    assert not view.sound_bar.problems.isVisible()


def test_nothing_is_read_by_itself_when_automatic_play_is_off(
    qtbot: QtBot,
    database: Database,
    clock: Clock,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    record = engine_on_path(tmp_path, monkeypatch)
    quiet = Preferences(play_sounds_automatically=False)
    view, _ = speaking_screen(qtbot, database, clock, tmp_path, quiet)
    assert runs(record) == []
    qtbot.keyClick(view, Qt.Key.Key_R)
    qtbot.waitUntil(lambda: runs(record) == [SPOKEN], timeout=10_000)


def test_without_an_engine_the_card_shows_one_line(
    qtbot: QtBot,
    database: Database,
    clock: Clock,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    (tmp_path / "empty").mkdir()
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    view, output = speaking_screen(qtbot, database, clock, tmp_path, Preferences())
    qtbot.waitUntil(lambda: view.sound_bar.problems.isVisible(), timeout=10_000)
    assert view.sound_bar.problems.text() == missing_engine_line()
    assert len(output.takes) == 1  # the card's sound still played
    qtbot.keyClick(view, Qt.Key.Key_R)
    qtbot.waitUntil(lambda: len(output.takes) == 2, timeout=10_000)
    assert view.sound_bar.problems.text() == missing_engine_line()  # still one line


def test_sounds_run_together_go_to_the_player_as_one_list(tmp_path: Path) -> None:
    one, two = "a" * 64 + ".mp3", "b" * 64 + ".ogg"
    parts = _parts(tmp_path, [one, two, Speech("x"), "../outside.mp3", one, Speech("y")])
    assert parts == [
        (tmp_path / one, tmp_path / two),
        Speech("x"),
        (tmp_path / one,),
        Speech("y"),
    ]
