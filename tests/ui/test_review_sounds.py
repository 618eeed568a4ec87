"""Sounds on the review screen: when they play, the keys, and problems shown on the card."""

from __future__ import annotations

import json
import random
from pathlib import Path

from PySide6.QtCore import QSize, Qt
from PySide6.QtWidgets import QMainWindow
from pytestqt.qtbot import QtBot

from recall.collection import importing
from recall.core.preferences import Preferences
from recall.host import paths
from recall.host.audio import CHANNELS, SAMPLE_RATE, AudioUnavailableError, Output, RecordingOutput
from recall.options import deck_options
from recall.scheduling import Schedulers
from recall.storage import Database
from recall.study.session import StudySession
from recall.ui.review.sound_bar import SoundBar
from recall.ui.review.view import Phase, ReviewView
from tests.conftest import ZONE, Clock
from tests.helpers.sound_files import CRASHES_MINIAUDIO, write_tone

_HOSTS: list[QMainWindow] = []
QUESTION_SECONDS = 0.3
ANSWER_SECONDS = 0.15


def sound_deck(folder: Path) -> Path:
    media = folder / "media"
    media.mkdir()
    write_tone(media / "word.wav", QUESTION_SECONDS)
    write_tone(media / "answer.wav", ANSWER_SECONDS, frequency=660)
    (media / "broken.mp3").write_bytes(b"ID3 this is no mp3 at all" * 20)
    (media / "crash.ogg").write_bytes(CRASHES_MINIAUDIO.read_bytes())
    deck = {
        "format": "recall-deck",
        "version": 1,
        "id": "listening",
        "name": "Listening",
        "cards": [
            {
                "id": "hear",
                "type": "basic",
                "front": "[sound:word.wav]",
                "back": "chat",
                "explanation": "A cat. [sound:answer.wav]",
            },
            {
                "id": "broken",
                "type": "basic",
                "front": "Which word? [sound:broken.mp3]",
                "back": "none",
            },
            {
                "id": "crash",
                "type": "basic",
                "front": "And this one? [sound:crash.ogg]",
                "back": "none",
                "explanation": "[sound:answer.wav]",
            },
        ],
    }
    path = folder / "listening.json"
    path.write_text(json.dumps(deck))
    return path


def review_screen(
    qtbot: QtBot,
    database: Database,
    clock: Clock,
    tmp_path: Path,
    preferences: Preferences,
    output: Output | None = None,
    make_output: type[Output] | None = None,
    notices: list[str] | None = None,
) -> ReviewView:
    deck_options.save_preferences(database, preferences, clock())
    schedulers = Schedulers(fuzz=False)
    importing.import_files(database, schedulers, [sound_deck(tmp_path)], clock())
    session = StudySession(database, schedulers, "listening", random.Random(1), ZONE)
    recorder = output or RecordingOutput()
    view = ReviewView(
        session,
        clock,
        paths.media_dir(database.path.parent),
        audio_output=make_output or (lambda: recorder),
    )
    if notices is not None:
        view.sounds.unavailable.connect(notices.append)
    host = QMainWindow()  # a page of a window, as in the app
    host.setMinimumSize(QSize(640, 480))
    host.setCentralWidget(view)
    qtbot.addWidget(host)
    _HOSTS.append(host)  # pytest-qt closes it after the test; this keeps it alive until then
    host.show()
    qtbot.waitExposed(host)
    view.start()
    return view


def played_seconds(output: RecordingOutput, take: int = -1) -> float:
    return len(output.samples(take)) / CHANNELS / SAMPLE_RATE


def wait_played(qtbot: QtBot, view: ReviewView, output: RecordingOutput, takes: int) -> None:
    def done() -> None:
        player = view.sounds.player
        assert player is not None
        assert player.idle.is_set()
        assert len(output.takes) == takes
        assert output.done.is_set()

    qtbot.waitUntil(done, timeout=10_000)


def test_question_sound_plays_on_show_answer_sound_on_reveal_and_r_replays_both(
    qtbot: QtBot, database: Database, clock: Clock, tmp_path: Path
) -> None:
    output = RecordingOutput()
    view = review_screen(qtbot, database, clock, tmp_path, Preferences(), output)
    assert view.shown is not None
    assert view.shown.card.id == "hear"
    assert view.sound_bar.replay_button.isVisible()
    wait_played(qtbot, view, output, takes=1)
    assert abs(played_seconds(output) - QUESTION_SECONDS) < 0.02

    qtbot.keyClick(view, Qt.Key.Key_R)
    wait_played(qtbot, view, output, takes=2)
    assert abs(played_seconds(output) - QUESTION_SECONDS) < 0.02

    qtbot.keyClick(view, Qt.Key.Key_Space)  # reveal: the answer's sound only
    assert view.phase is Phase.FEEDBACK
    wait_played(qtbot, view, output, takes=3)
    assert abs(played_seconds(output) - ANSWER_SECONDS) < 0.02

    focused = view.focusWidget()
    assert focused is not None
    qtbot.keyClick(focused, Qt.Key.Key_F5)  # replaying the answer: question, then answer
    wait_played(qtbot, view, output, takes=4)
    assert abs(played_seconds(output) - QUESTION_SECONDS - ANSWER_SECONDS) < 0.03
    assert not view.sound_bar.problems.isVisible()


def test_skip_question_sounds_when_replaying_the_answer(
    qtbot: QtBot, database: Database, clock: Clock, tmp_path: Path
) -> None:
    output = RecordingOutput()
    skipping = Preferences(skip_question_sounds_on_replay=True)
    view = review_screen(qtbot, database, clock, tmp_path, skipping, output)
    wait_played(qtbot, view, output, takes=1)
    qtbot.keyClick(view, Qt.Key.Key_Space)
    wait_played(qtbot, view, output, takes=2)
    qtbot.mouseClick(view.sound_bar.replay_button, Qt.MouseButton.LeftButton)
    wait_played(qtbot, view, output, takes=3)
    assert abs(played_seconds(output) - ANSWER_SECONDS) < 0.02


def test_nothing_plays_by_itself_when_automatic_play_is_off(
    qtbot: QtBot, database: Database, clock: Clock, tmp_path: Path
) -> None:
    output = RecordingOutput()
    quiet = Preferences(play_sounds_automatically=False)
    view = review_screen(qtbot, database, clock, tmp_path, quiet, output)
    qtbot.keyClick(view, Qt.Key.Key_Space)
    qtbot.wait(50)
    assert view.sounds.player is None
    assert output.takes == []
    qtbot.keyClick(view.focusWidget() or view, Qt.Key.Key_R)
    wait_played(qtbot, view, output, takes=1)


def test_a_sound_that_cannot_be_played_is_a_line_on_the_card_and_studying_goes_on(
    qtbot: QtBot, database: Database, clock: Clock, tmp_path: Path
) -> None:
    output = RecordingOutput()
    view = review_screen(qtbot, database, clock, tmp_path, Preferences(), output)
    qtbot.keyClick(view, Qt.Key.Key_Space)
    qtbot.keyClick(view.focusWidget() or view, Qt.Key.Key_Space)  # rate Good: next card
    assert view.shown is not None
    assert view.shown.card.id == "broken"
    problems = view.sound_bar.problems
    qtbot.waitUntil(lambda: problems.isVisible(), timeout=10_000)
    assert problems.text().endswith(
        ".mp3 could not be played: not a sound Recall plays (mp3, ogg vorbis, flac or wav)"
    )
    assert problems.accessibleName() == problems.text()
    qtbot.keyClick(view, Qt.Key.Key_Space)
    assert view.phase is Phase.FEEDBACK


def test_no_audio_output_is_said_once_per_session(
    qtbot: QtBot, database: Database, clock: Clock, tmp_path: Path
) -> None:
    class NoDevice(RecordingOutput):
        def __init__(self) -> None:
            raise AudioUnavailableError("failed to init device")

    notices: list[str] = []
    view = review_screen(
        qtbot, database, clock, tmp_path, Preferences(), make_output=NoDevice, notices=notices
    )
    qtbot.waitUntil(lambda: view.sound_bar.problems.isVisible(), timeout=10_000)
    for _ in range(3):
        qtbot.keyClick(view, Qt.Key.Key_R)
        player = view.sounds.player
        assert player is not None
        qtbot.waitUntil(player.idle.is_set, timeout=10_000)
    qtbot.wait(20)
    assert view.sound_bar.problems.text() == (
        "Sound is off: no audio output could be opened (failed to init device)"
    )
    assert len(notices) == 1
    qtbot.keyClick(view, Qt.Key.Key_Space)
    assert view.phase is Phase.FEEDBACK


def test_leaving_the_screen_stops_the_sound(
    qtbot: QtBot, database: Database, clock: Clock, tmp_path: Path
) -> None:
    output = RecordingOutput(realtime=True)
    view = review_screen(qtbot, database, clock, tmp_path, Preferences(), output)
    qtbot.waitUntil(lambda: bool(output.takes) and bool(output.takes[0]), timeout=10_000)
    view.hide()
    assert output.done.is_set()
    assert view.sounds.player is None
    assert played_seconds(output, 0) < QUESTION_SECONDS


def test_a_video_is_a_named_button_that_opens_only_stored_files(
    qtbot: QtBot, tmp_path: Path
) -> None:
    media = tmp_path / "media"
    media.mkdir()
    outside = tmp_path / "secret.mp4"
    outside.write_bytes(b"not for the card")
    stored = "a" * 64 + ".mp4"
    (media / stored).symlink_to(outside)  # a link in the media folder pointing out of it
    host = QMainWindow()
    host.setMinimumSize(QSize(640, 480))
    bar = SoundBar(media)
    host.setCentralWidget(bar)
    qtbot.addWidget(host)
    host.show()
    bar.show_media(False, (stored,))
    (button,) = bar.video_buttons
    assert button.isVisible()
    assert button.accessibleName() == "Open video 1 (aaaaaaaa.mp4) in your player"
    assert not bar.replay_button.isVisible()
    assert bar.open_video("../secret.mp4") is False
    assert bar.open_video(stored) is False
    assert bar.problems.text() == (
        "../secret.mp4 could not be opened: the file is missing\n"
        "aaaaaaaa.mp4 could not be opened: the file is missing"
    )


def test_five_pauses_and_resumes_unless_it_picks_a_choice(
    qtbot: QtBot, database: Database, clock: Clock, tmp_path: Path
) -> None:
    output = RecordingOutput(realtime=True)
    view = review_screen(qtbot, database, clock, tmp_path, Preferences(), output)
    player = view.sounds.player
    assert player is not None
    qtbot.keyClick(view, Qt.Key.Key_5)
    assert player.paused
    qtbot.keyClick(view, Qt.Key.Key_5)
    assert not player.paused
    assert view.phase is Phase.QUESTION  # a basic card: 5 picked nothing


def test_a_sound_that_crashes_the_decoder_is_a_line_on_the_card_and_the_next_sound_plays(
    qtbot: QtBot, database: Database, clock: Clock, tmp_path: Path
) -> None:
    output = RecordingOutput()
    view = review_screen(qtbot, database, clock, tmp_path, Preferences(), output)
    for _ in range(2):  # past "hear" and "broken", rated Good
        qtbot.keyClick(view, Qt.Key.Key_Space)
        qtbot.keyClick(view.focusWidget() or view, Qt.Key.Key_Space)
    assert view.shown is not None
    assert view.shown.card.id == "crash"
    problems = view.sound_bar.problems
    qtbot.waitUntil(lambda: "could not be played" in problems.text(), timeout=10_000)
    assert problems.text().endswith(".ogg could not be played: the decoder crashed on it (SIGSEGV)")
    player = view.sounds.player
    assert player is not None
    crashed = player.decoder.started
    qtbot.keyClick(view, Qt.Key.Key_Space)  # the window still answers: reveal the answer
    assert view.phase is Phase.FEEDBACK

    def answer_played() -> None:
        assert player.idle.is_set()
        assert output.done.is_set()
        assert abs(played_seconds(output) - ANSWER_SECONDS) < 0.02

    qtbot.waitUntil(answer_played, timeout=10_000)
    assert player.decoder.started == crashed + 1  # the answer's sound: a new decoder process
