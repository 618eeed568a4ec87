"""Short real sound files for the sound tests, made with the standard library."""

from __future__ import annotations

import io
import math
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
