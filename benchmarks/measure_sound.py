"""From a card's sound being asked for to its first frames at the audio output, beside mpv.

Recall: ``recall.host.audio.Player.play`` (what the review screen calls when a card appears) until
the output pulls the file's first decoded frames, with the device already open, as it is
from the second card of a session on. Anki's way: starting ``mpv`` on the same file until
it reports its audio output open (``AO: [...]``, printed as playback starts). Where there is
no mpv or no audio device (CI), the figure is skipped with the reason.

Beside it, the decoder fuzzing at a larger count than the test suite's: damaged copies of
small Ogg, FLAC, MP3 and WAV tones, each decoded in the decoder's child process (a crash
there costs a new child), timed beside decoding the undamaged seeds in-process.
"""

from __future__ import annotations

import functools
import math
import shutil
import struct
import subprocess
import threading
import time
import wave
from pathlib import Path

from tests.helpers.sound_files import mutants, seed_corpus

from benchmarks.common import Figure, elapsed_ms
from recall.host import audio
from recall.host.sound_decoder import DecoderProcess, UnplayableError

GOAL_MS = 100.0
WARM_UP = 2
WAIT = 10.0
FUZZ_MUTANTS = 600  # the test suite runs 60


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


def measure_fuzz(work: Path, count: int = FUZZ_MUTANTS) -> Figure:
    """``count`` mutants through the decoder process, beside the seeds decoded in-process."""
    import miniaudio  # the baseline decodes in this process: the undamaged seeds only

    folder = work / "sound-fuzz"
    folder.mkdir(exist_ok=True)
    seeds = seed_corpus()
    decoder = DecoderProcess()
    outcomes = {"decoded": 0, "refused": 0}
    isolated: list[float] = []

    def decode(path: Path) -> None:
        try:
            for _chunk in decoder.decode(path, 600 * audio.SAMPLE_RATE, lambda: False):
                pass
            outcomes["decoded"] += 1
        except UnplayableError:
            outcomes["refused"] += 1

    try:
        decoder.start()
        for number, (suffix, data) in enumerate(mutants(seeds, count, seed=2023)):
            path = folder / f"mutant-{number}{suffix}"
            path.write_bytes(data)
            isolated.append(elapsed_ms(functools.partial(decode, path)))
            path.unlink()
        children = decoder.started
    finally:
        decoder.close()
    clean = []
    for suffix, data in seeds.items():
        path = folder / f"seed{suffix}"
        path.write_bytes(data)
        clean.append(path)

    def decode_here(path: Path) -> None:
        miniaudio.get_file_info(str(path))
        for _chunk in miniaudio.stream_file(str(path), sample_rate=audio.SAMPLE_RATE):
            pass

    in_process = [
        elapsed_ms(functools.partial(decode_here, clean[number % len(clean)]))
        for number in range(count)
    ]
    return Figure(
        title="Damaged sound, decoded apart",
        measures=(
            f"{count} seeded mutants (bit flips, cuts, inserted bytes) of 0.4 s Ogg, FLAC, MP3 "
            "and WAV tones, each through the decoder's child process, beside the undamaged "
            "seeds decoded in-process"
        ),
        recall=isolated,
        baseline_name="in-process decoding of the seeds",
        baseline=in_process,
        tail=True,
        goal="every mutant decoded or refused, the window's process unharmed",
        goal_met=outcomes["decoded"] + outcomes["refused"] == count,
        notes=[
            f"{outcomes['decoded']} decoded, {outcomes['refused']} could not be played; "
            f"{children - 1} decoder crashes or hangs, each followed by a new child "
            "(whose start is in the next mutant's time)."
        ],
    )
