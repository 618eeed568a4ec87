"""Playing card sounds: files decoded in a child process, their samples played here.

A :class:`Player` takes a list of files and plays them one after another. Nothing runs on
the caller's thread but putting a command on a queue: a worker thread opens the output and
starts it, and the output pulls frames from a generator that streams each file a chunk at a
time (never the whole file in memory). Problems come back through callbacks, from those
threads: one per file that cannot be played, and one when no output can be opened.

The files are decoded by :class:`recall.host.sound_decoder.DecoderProcess`, in a process of its
own: miniaudio's decoders are C code that a damaged file can crash, and a crash there costs
that file ("could not be played") and a new decoder process, not the window. This module
imports miniaudio only for the output device, which plays the decoded samples and never
sees a file.

Hostile files are bounded: a file over the 64 MiB imports take, one that is not audio
miniaudio decodes, or whose header claims more than ``sound.MAX_SECONDS``, is refused
before decoding; no file yields more frames than that limit allows, whatever its header
said; and a file that decodes to less than its header claims is reported as cut short.
"""

from __future__ import annotations

import array
import queue
import threading
import time
from collections.abc import Callable, Generator, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Protocol

from recall.content.sound import MAX_SECONDS, MAX_SOUND_BYTES
from recall.core.i18n import tr
from recall.host import sound_decoder
from recall.host.sound_decoder import DecoderProcess, UnplayableError

SAMPLE_RATE = sound_decoder.SAMPLE_RATE
CHANNELS = sound_decoder.CHANNELS
SAMPLE_BYTES = sound_decoder.SAMPLE_BYTES
FRAME_BYTES = sound_decoder.FRAME_BYTES
CHUNK_FRAMES = sound_decoder.CHUNK_FRAMES
BUFFER_MS = 40  # the device's period: how soon a stop or pause is heard

Frames = Generator["bytes | array.array[int]", int, None]
"""What an output pulls from: send it a frame count, it yields up to that many frames."""

Problem = Callable[[str], None]


def _miniaudio() -> ModuleType:
    import miniaudio  # loaded when the device opens, not at start

    module: ModuleType = miniaudio
    return module


class AudioUnavailableError(Exception):
    """No output could be opened (no device, no sound server)."""


class Output(Protocol):
    """Where frames go: a sound device, or a recorder in tests and the self-test."""

    def start(self, frames: Frames) -> None:
        """Begin pulling ``frames`` (already primed); replaces anything playing."""

    def stop(self) -> None:
        """Stop pulling frames."""

    def close(self) -> None:
        """Release the output."""


class DeviceOutput:
    """The system's default sound output, through miniaudio.

    The device is started once and then kept running until ``close``: a new sound swaps the
    source its callback pulls from, and between sounds it pulls silence. Stopping and
    starting a PulseAudio stream for every card was measured to stall for up to two
    seconds now and then; swapping a source costs one device period (``BUFFER_MS``).
    """

    def __init__(self) -> None:
        module = _miniaudio()
        try:
            self._device = module.PlaybackDevice(
                output_format=module.SampleFormat.SIGNED16,
                nchannels=CHANNELS,
                sample_rate=SAMPLE_RATE,
                buffersize_msec=BUFFER_MS,
                app_name="Recall",
            )
        except module.MiniaudioError as error:
            raise AudioUnavailableError(_describe(error)) from None
        self.backend: str = self._device.backend
        self._source: Frames | None = None
        self._running = False

    def start(self, frames: Frames) -> None:
        """Play ``frames`` from the next device period on, in place of anything playing."""
        self._source = frames
        if self._running:
            return
        module = _miniaudio()
        pull = self._pull()
        next(pull)
        try:
            self._device.start(pull)
        except module.MiniaudioError as error:
            raise AudioUnavailableError(_describe(error)) from None
        self._running = True

    def stop(self) -> None:
        """Silence: the device keeps running, pulling nothing but silence."""
        self._source = None

    def close(self) -> None:
        """Stop and close the device."""
        self._source = None
        self._running = False
        self._device.close()

    def _pull(self) -> Frames:
        """The device's callback: the current source's frames, or silence."""
        requested = (yield b"") or CHUNK_FRAMES
        while True:
            source = self._source
            chunk: bytes | array.array[int] = b""
            if source is not None:
                try:
                    chunk = source.send(requested)
                except StopIteration:
                    if self._source is source:
                        self._source = None
            if not len(chunk):
                chunk = bytes(requested * SAMPLE_BYTES * CHANNELS)
            requested = (yield chunk) or CHUNK_FRAMES


class RecordingOutput:
    """An output that keeps the frames it pulls, on a thread of its own: no device needed.

    Args:
        realtime: Pull at the pace a device would (tests of stopping need time to pass);
            otherwise as fast as the frames come.
        limit_frames: The most frames one start records.

    Attributes:
        takes: The frames of each start, as chunks of bytes.
        done: Set when the frames of the latest start have ended or were stopped.
    """

    def __init__(self, realtime: bool = False, limit_frames: int = SAMPLE_RATE * 60) -> None:
        self.takes: list[list[bytes]] = []
        self.done = threading.Event()
        self._realtime = realtime
        self._limit = limit_frames
        self._thread: threading.Thread | None = None
        self._stopped = threading.Event()

    def start(self, frames: Frames) -> None:
        """Pull ``frames`` until they end, or until ``stop``."""
        self.stop()
        self._stopped = threading.Event()
        self.done = threading.Event()
        take: list[bytes] = []
        self.takes.append(take)
        self._thread = threading.Thread(
            target=self._pull, args=(frames, take, self._stopped, self.done), daemon=True
        )
        self._thread.start()

    def _pull(
        self, frames: Frames, take: list[bytes], stopped: threading.Event, done: threading.Event
    ) -> None:
        pulled = 0
        try:
            while not stopped.is_set() and pulled < self._limit:
                try:
                    chunk = bytes(frames.send(CHUNK_FRAMES))
                except StopIteration:
                    break
                take.append(chunk)
                count = len(chunk) // (SAMPLE_BYTES * CHANNELS)
                pulled += count
                if self._realtime or not any(chunk):  # paused: silence, not a busy loop
                    time.sleep(max(count, 1) / SAMPLE_RATE)
        finally:
            done.set()

    def stop(self) -> None:
        """Stop pulling and wait for the thread."""
        self._stopped.set()
        if self._thread is not None:
            self._thread.join()
            self._thread = None

    def close(self) -> None:
        """Stop."""
        self.stop()

    def samples(self, take: int = -1) -> array.array[int]:
        """The frames of one start (the latest by default) as signed 16-bit samples."""
        data = array.array("h")
        data.frombytes(b"".join(self.takes[take]) if self.takes else b"")
        return data


def _describe(error: BaseException) -> str:
    text = str(error.args[0]) if error.args else type(error).__name__
    return text.removesuffix(".")


@dataclass
class FileFeed:
    """The frames of a list of files, one after another; silence while paused.

    Each file is decoded by the decoder process; this turns its chunks into exactly as many
    frames as the output asks for (a device drops what it did not ask for).

    Attributes:
        cancelled: Set by the player when something else is to play: the frames end.
        paused: While set, the frames are silence and the files wait.
        ended: Told (from the player's worker) when the list has played to its end, or
            could not be played at all; not when it was stopped.
    """

    paths: tuple[Path, ...]
    problem: Problem
    first_frame: Callable[[], None]
    finished: Callable[[FileFeed], None]
    decoder: DecoderProcess
    max_seconds: float = MAX_SECONDS
    cancelled: bool = False
    paused: bool = False
    ended: Callable[[], None] = lambda: None

    def frames(self) -> Frames:
        """The generator an output pulls from (prime it with ``next`` first)."""
        requested = (yield b"") or CHUNK_FRAMES
        for path in self.paths:
            if self.cancelled:
                return
            refused = _refusal(path)
            if refused:
                self.problem(f"{path.name} could not be played: {refused}")
                continue
            left = int(self.max_seconds * SAMPLE_RATE)
            chunks = self.decoder.decode(path, left, lambda: self.cancelled)
            pending = bytearray()
            first = True
            try:
                while left > 0 and not self.cancelled:
                    if self.paused:
                        requested = (yield bytes(requested * FRAME_BYTES)) or CHUNK_FRAMES
                        continue
                    wanted = min(requested, left) * FRAME_BYTES
                    while len(pending) < wanted:
                        chunk = next(chunks, None)
                        if chunk is None:
                            break
                        pending += chunk
                    if not pending:
                        break
                    out = bytes(pending[:wanted])
                    del pending[:wanted]
                    if first:
                        self.first_frame()
                        first = False
                    left -= len(out) // FRAME_BYTES
                    requested = (yield out) or CHUNK_FRAMES
            except UnplayableError as problem:
                if not self.cancelled:
                    self.problem(f"{path.name} could not be played: {problem}")
            finally:
                chunks.close()
        self.finished(self)


def _refusal(path: Path) -> str:
    """Why ``path`` is not even given to the decoder, or "" when it may be."""
    try:
        size = path.stat().st_size if path.is_file() else None
    except OSError:
        size = None
    if size is None:
        return tr("the file is missing")
    if size > MAX_SOUND_BYTES:
        return tr("it is larger than {size} MiB").format(size=MAX_SOUND_BYTES // 1024**2)
    return ""


class Player:
    """Plays lists of sound files one after another, off the caller's thread.

    Args:
        problem: Told, from a worker thread, why a file could not be played.
        unavailable: Told, once per player, that no output could be opened.
        output: Makes the output on the worker thread (the system's device by default).
        first_frame: Called (from the output's thread) when a file's first frames go out.
        max_seconds: The longest sound played; longer ones are refused.
        decoder: Decodes the files (a process running ``recall.host.sound_decoder`` by default).
    """

    def __init__(
        self,
        problem: Problem,
        unavailable: Problem,
        output: Callable[[], Output] = DeviceOutput,
        first_frame: Callable[[], None] = lambda: None,
        max_seconds: float = MAX_SECONDS,
        decoder: DecoderProcess | None = None,
    ) -> None:
        self._max_seconds = max_seconds
        self.decoder = decoder or DecoderProcess()
        self._problem = problem
        self._unavailable = unavailable
        self._make_output = output
        self._first_frame = first_frame
        self._commands: queue.Queue[tuple[str, FileFeed | None]] = queue.Queue()
        self._feed: FileFeed | None = None
        self._last: tuple[Path, ...] = ()
        self._output: Output | None = None
        self._told_unavailable = False
        self._thread: threading.Thread | None = None
        self.idle = threading.Event()
        self.idle.set()

    def play(self, paths: Sequence[Path], ended: Callable[[], None] = lambda: None) -> None:
        """Stop what is playing and play ``paths`` in order (nothing when empty).

        Args:
            paths: The files.
            ended: Told, from the player's worker thread, when they have all played (or
                no output could be opened); not when they are stopped.
        """
        self._last = tuple(paths)
        self.stop()
        if not paths:
            return
        feed = FileFeed(
            self._last,
            self._problem,
            self._first_frame,
            self._on_finished,
            self.decoder,
            self._max_seconds,
            ended=ended,
        )
        self._feed = feed
        self._send("play", feed)

    def replay(self) -> None:
        """Play the last list again from its start."""
        self.play(self._last)

    def stop(self) -> None:
        """Stop playing (a new card does this)."""
        feed, self._feed = self._feed, None
        if feed is not None:
            feed.cancelled = True
            self._send("stop", None)

    @property
    def paused(self) -> bool:
        """Whether the list playing is paused."""
        return self._feed is not None and self._feed.paused

    def toggle_pause(self) -> bool:
        """Pause, or resume where it paused; returns whether it is now paused."""
        feed = self._feed
        if feed is None:
            return False
        feed.paused = not feed.paused
        return feed.paused

    def close(self) -> None:
        """Stop, end the decoder process and release the output; the worker ends."""
        self.stop()
        if self._thread is not None:
            self._commands.put(("close", None))
            self._thread.join()
            self._thread = None

    def _on_finished(self, feed: FileFeed) -> None:
        self._commands.put(("finished", feed))  # from the output's thread

    def _send(self, command: str, feed: FileFeed | None) -> None:
        self.idle.clear()
        if self._thread is None:
            self._thread = threading.Thread(target=self._work, name="recall-audio", daemon=True)
            self._thread.start()
        self._commands.put((command, feed))

    def _work(self) -> None:
        while True:
            command, feed = self._commands.get()
            try:
                if command == "close":
                    self.decoder.close()  # first: a wait for it in the output then ends
                    if self._output is not None:
                        self._output.close()
                        self._output = None
                    return
                if command == "stop" and self._output is not None:
                    self._output.stop()
                elif command == "finished" and feed is self._feed and self._output is not None:
                    self._output.stop()  # the device rests until the next sound
                    if feed is not None and not feed.cancelled:
                        feed.ended()
                elif command == "play" and feed is not None and not feed.cancelled:
                    self._start(feed)
            finally:
                if self._commands.empty():
                    self.idle.set()

    def _start(self, feed: FileFeed) -> None:
        self.decoder.start()  # not on the caller's thread: this worker's
        try:
            if self._output is None:
                self._output = self._make_output()
            frames = feed.frames()
            next(frames)
            self._output.start(frames)
        except AudioUnavailableError as error:
            self._output = None
            if not self._told_unavailable:
                self._told_unavailable = True
                self._unavailable(f"Sound is off: no audio output could be opened ({error})")
            feed.ended()  # what follows the sounds (speech) still plays
