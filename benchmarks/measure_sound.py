"""From a card's sound being asked for to its first frames at the audio output, beside mpv.

Recall: ``recall.host.audio.Player.play`` (what the review screen calls when a card appears) until
the output pulls the file's first decoded frames, with the device already open, as it is
from the second card of a session on. Anki's way: starting ``mpv`` on the same file until
it reports its audio output open (``AO: [...]``, printed as playback starts). Where there is
no mpv or no audio device (CI), the figure is skipped with the reason.
"""

from __future__ import annotations

import math
import shutil
import struct
import subprocess
import threading
import time
import wave
from pathlib import Path

from benchmarks.common import Figure
from recall.host import audio

GOAL_MS = 100.0
WARM_UP = 2
WAIT = 10.0


def tone(path: Path, seconds: float = 1.0, rate: int = 44_100) -> Path:
    """A one-second sine tone as a 16-bit mono WAV."""
    frames = b"".join(
        struct.pack("<h", int(12_000 * math.sin(2 * math.pi * 440 * i / rate)))
        for i in range(int(seconds * rate))
    )
    with wave.open(str(path), "wb") as file:
        file.setnchannels(1)
        file.setsampwidth(2)
        file.setframerate(rate)
        file.writeframes(frames)
    return path


def _recall_rounds(sound: Path, rounds: int) -> list[float] | str:
    first = threading.Event()
    problems: list[str] = []
    player = audio.Player(problems.append, problems.append, first_frame=first.set)
    samples: list[float] = []
    try:
        # Not counted: the first round opens the device, and PulseAudio asks for nothing
        # more for a while after a stream starts (two seconds on a null sink).
        for _ in range(rounds + WARM_UP):
            first.clear()
            began = time.perf_counter()
            player.play([sound])
            deadline = began + WAIT
            while not first.wait(0.005):
                if problems or time.perf_counter() > deadline:
                    return f"no audio device ({'; '.join(problems) or 'no frames pulled'})"
            samples.append((time.perf_counter() - began) * 1000)
            player.stop()
            player.idle.wait(WAIT)
    finally:
        player.close()
    return samples[WARM_UP:]


def _mpv_rounds(mpv: str, sound: Path, rounds: int) -> list[float] | str:
    samples: list[float] = []
    for _ in range(rounds):
        began = time.perf_counter()
        process = subprocess.Popen(
            [mpv, "--no-config", "--no-video", str(sound)],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        try:
            assert process.stdout is not None
            for line in process.stdout:
                if line.startswith("AO: ["):
                    samples.append((time.perf_counter() - began) * 1000)
                    break
            else:
                return "mpv opened no audio output"
        finally:
            process.kill()
            process.wait()
    return samples


def measure_sound(work: Path, rounds: int) -> Figure | str:
    """The figure, or why it was not measured ("no mpv", "no audio device ...")."""
    mpv = shutil.which("mpv")
    if mpv is None:
        return "no mpv"
    sound = tone(work / "tone.wav")
    try:
        probe = audio.DeviceOutput()
    except audio.AudioUnavailableError as error:
        return f"no audio device ({error})"
    backend = probe.backend
    probe.close()
    if backend.lower() == "null":
        return "no audio device (only miniaudio's silent null backend)"
    recall = _recall_rounds(sound, rounds)
    if isinstance(recall, str):
        return recall
    baseline = _mpv_rounds(mpv, sound, rounds)
    if isinstance(baseline, str):
        return baseline
    recall_median = sorted(recall)[len(recall) // 2]
    mpv_median = sorted(baseline)[len(baseline) // 2]
    return Figure(
        title="Card's sound to its first frames",
        measures=(
            "`Player.play` until the output pulls the first decoded frames (device open), "
            "beside starting mpv on the same 1 s WAV until its audio output is open"
        ),
        recall=recall,
        baseline_name="mpv (Anki's way)",
        baseline=baseline,
        tail=True,
        goal=f"≤ {GOAL_MS:.0f} ms and ≤ 0.5x mpv",
        goal_met=recall_median <= GOAL_MS and recall_median <= 0.5 * mpv_median,
        notes=[
            f"Recall's time is about one device period ({audio.BUFFER_MS} ms): the running "
            "device takes the new card's frames at its next callback. Both sides then add "
            "the sound server's own buffering before the frames are heard.",
            "Not counted: the first sounds of a session, while the device opens (PulseAudio "
            "asked for no further frames for about 2 s after a stream started, on a null sink).",
        ],
    )
