"""Short real sound files for the sound tests, and damaged copies of them for fuzzing.

WAVs are made here with the standard library; the Ogg Vorbis, FLAC and MP3 seeds are small
files under tests/data/sound (its README says how they were made).
"""

from __future__ import annotations

import io
import math
import random
import struct
import wave
from pathlib import Path


def tone_wav(seconds: float = 0.3, rate: int = 22_050, frequency: float = 440.0) -> bytes:
    """A mono 16-bit WAV holding a sine tone at half volume."""
    frames = int(seconds * rate)
    samples = (
        int(16_000 * math.sin(2 * math.pi * frequency * index / rate)) for index in range(frames)
    )
    buffer = io.BytesIO()
    with wave.open(buffer, "wb") as file:
        file.setnchannels(1)
        file.setsampwidth(2)
        file.setframerate(rate)
        file.writeframes(b"".join(struct.pack("<h", sample) for sample in samples))
    return buffer.getvalue()


def write_tone(path: Path, seconds: float = 0.3, frequency: float = 440.0) -> Path:
    """Write :func:`tone_wav` to ``path``; returns the path."""
    path.write_bytes(tone_wav(seconds, frequency=frequency))
    return path


SEEDS = Path(__file__).parents[1] / "data" / "sound"
CRASHES_MINIAUDIO = SEEDS / "crashes-miniaudio.ogg"


def seed_corpus() -> dict[str, bytes]:
    """The fuzzing seeds: 0.4 s tones as Ogg Vorbis, FLAC and MP3 (tests/data/sound), and a WAV."""
    seeds = {path.suffix: path.read_bytes() for path in sorted(SEEDS.glob("tone.*"))}
    seeds[".wav"] = tone_wav(0.4)
    return seeds


def mutants(seeds: dict[str, bytes], count: int, seed: int = 23) -> list[tuple[str, bytes]]:
    """``count`` damaged copies of the seeds, the same for the same ``seed``, with their suffix.

    Each is one damage: a flipped bit, a cut (the file truncated), or up to 64 random bytes
    inserted, at a random place; the seeds take turns.
    """
    rng = random.Random(seed)
    suffixes = sorted(seeds)
    made: list[tuple[str, bytes]] = []
    for number in range(count):
        suffix = suffixes[number % len(suffixes)]
        data = bytearray(seeds[suffix])
        where = rng.randrange(len(data))
        damage = number // len(suffixes) % 3
        if damage == 0:
            data[where] ^= 1 << rng.randrange(8)
        elif damage == 1:
            del data[where:]
        else:
            data[where:where] = rng.randbytes(rng.randrange(1, 65))
        made.append((suffix, bytes(data)))
    return made
