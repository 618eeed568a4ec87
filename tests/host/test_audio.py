"""The player decodes real files through miniaudio into an output that records frames."""

from __future__ import annotations

import math
import threading
from pathlib import Path

from recall.host.audio import (
    CHANNELS,
    SAMPLE_RATE,
    AudioUnavailableError,
    FileFeed,
    Output,
    Player,
    RecordingOutput,
)
from recall.host.sound_decoder import DecoderProcess
from tests.helpers.sound_files import write_tone

WAIT = 10.0


class Heard:
    """Collects what the player reports, from whichever thread."""

    def __init__(self) -> None:
        self.problems: list[str] = []
        self.unavailable: list[str] = []
        self.first_frames = 0
        self.lock = threading.Lock()

    def problem(self, text: str) -> None:
        with self.lock:
            self.problems.append(text)

    def no_output(self, text: str) -> None:
        with self.lock:
            self.unavailable.append(text)

    def first_frame(self) -> None:
        with self.lock:
            self.first_frames += 1


def rms(samples: list[int]) -> float:
    return math.sqrt(sum(s * s for s in samples) / len(samples)) if samples else 0.0


def play_and_wait(paths: list[Path], max_seconds: float = 600) -> tuple[RecordingOutput, Heard]:
    output = RecordingOutput()
    heard = Heard()
    player = Player(heard.problem, heard.no_output, lambda: output, heard.first_frame, max_seconds)
    player.play(paths)
    assert player.idle.wait(WAIT)
    assert output.done.wait(WAIT)
    player.close()
    return output, heard


def test_a_wav_is_decoded_and_resampled_to_the_output(tmp_path: Path) -> None:
    tone = write_tone(tmp_path / "tone.wav", seconds=0.3)
    output, heard = play_and_wait([tone])
    samples = output.samples()
    frames = len(samples) // CHANNELS
    assert abs(frames - 0.3 * SAMPLE_RATE) < 0.02 * SAMPLE_RATE
    assert rms(list(samples)) > 5_000  # a half-volume sine, not silence
    assert (heard.problems, heard.unavailable, heard.first_frames) == ([], [], 1)


def test_bad_files_are_named_and_the_next_file_still_plays(tmp_path: Path) -> None:
    missing = tmp_path / "gone.mp3"
    not_audio = tmp_path / "notes.mp3"
    not_audio.write_text("these are not the sounds you are looking for" * 50)
    long = write_tone(tmp_path / "long.wav", seconds=1.5)
    tone = write_tone(tmp_path / "tone.wav", seconds=0.2)
    output, heard = play_and_wait([missing, not_audio, long, tone], max_seconds=1.0)
    assert heard.problems == [
        "gone.mp3 could not be played: the file is missing",
        "notes.mp3 could not be played: not a sound Recall plays (mp3, ogg vorbis, flac or wav)",
        "long.wav could not be played: it claims to last 1.5 seconds, and Recall plays "
        "sounds of up to 1.0 seconds",
    ]
    frames = len(output.samples()) // CHANNELS
    assert abs(frames - 0.2 * SAMPLE_RATE) < 0.02 * SAMPLE_RATE
    assert heard.first_frames == 1


def test_pause_gives_silence_and_resume_goes_on_where_it_stopped(tmp_path: Path) -> None:
    tone = write_tone(tmp_path / "tone.wav", seconds=0.5)
    heard = Heard()
    decoder = DecoderProcess()
    feed = FileFeed((tone,), heard.problem, heard.first_frame, lambda _feed: None, decoder)
    frames = feed.frames()
    next(frames)
    played = [bytes(frames.send(1024)) for _ in range(3)]
    assert all(any(chunk) for chunk in played)
    feed.paused = True
    assert bytes(frames.send(512)) == bytes(512 * 2 * CHANNELS)
    feed.paused = False
    rest = b"".join(bytes(chunk) for chunk in iter(lambda: frames.send(1024), None))
    decoder.close()
    total = (sum(map(len, played)) + len(rest)) // (2 * CHANNELS)
    assert abs(total - 0.5 * SAMPLE_RATE) < 0.02 * SAMPLE_RATE


def test_no_output_is_told_once_and_studying_goes_on(tmp_path: Path) -> None:
    tone = write_tone(tmp_path / "tone.wav")
    heard = Heard()

    def no_device() -> Output:
        raise AudioUnavailableError("failed to init device")

    player = Player(heard.problem, heard.no_output, no_device)
    for _ in range(3):
        player.play([tone])
        assert player.idle.wait(WAIT)
    player.close()
    assert heard.unavailable == [
        "Sound is off: no audio output could be opened (failed to init device)"
    ]
    assert heard.problems == []


def test_a_new_list_stops_the_one_playing(tmp_path: Path) -> None:
    long = write_tone(tmp_path / "long.wav", seconds=3.0)
    short = write_tone(tmp_path / "short.wav", seconds=0.1, frequency=880)
    output = RecordingOutput(realtime=True)
    heard = Heard()
    player = Player(heard.problem, heard.no_output, lambda: output)
    assert player.toggle_pause() is False  # nothing playing: nothing to pause
    player.play([long])
    assert player.idle.wait(WAIT)
    while not output.takes or not output.takes[0]:
        threading.Event().wait(0.01)
    player.play([short])
    assert player.idle.wait(WAIT)
    assert output.done.wait(WAIT)
    player.close()
    long_frames = len(output.samples(0)) // CHANNELS
    assert 0 < long_frames < 2.0 * SAMPLE_RATE  # cut short, well before its end
    frames = len(output.samples(1)) // CHANNELS
    assert abs(frames - 0.1 * SAMPLE_RATE) < 0.02 * SAMPLE_RATE
