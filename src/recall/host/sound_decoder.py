"""Decoding sound files in a child process, so a decoder crash costs a sound, not the window.

miniaudio's decoders (dr_mp3, dr_flac, dr_wav, stb_vorbis) are C code fed untrusted files:
a one-byte change in a small Ogg file was seen to make them write out of bounds, and glibc
then aborts the process or it dies of SIGSEGV. So the decoders run only here, in a process
of their own: ``python -m recall.host.sound_decoder``, or in the frozen app the app itself with
``--sound-decoder`` (``packaging/launcher.py`` recognises it before anything else loads).

The child decodes to PCM (signed 16-bit, stereo, 44.1 kHz) and streams it back; the parent
plays the samples on its device (``audio.py``). The device stays in the parent because the
danger is the decoders, not the output; a running device in the parent takes a new sound at
its next period, where a child opening its own device would add a sound-server connection
per child and lose the window's "no audio output" notice. The parent trusts nothing it
reads: every message is checked (kind, length, whole frames), and a child that dies (a
signal, an abort, an exit), says something malformed or is silent past a deadline is killed
and replaced at once; the file it was decoding "could not be played".

The wire format. The parent writes one JSON line per request: ``{"job": n, "path": ...,
"max_frames": ...}`` starts a file (and ends any file the child was on), ``{"stop": n}`` ends
job ``n``. The child answers with messages of a 9-byte header (kind, job, payload length)
and a payload: ``R`` once when ready, then for each job ``D`` chunks of PCM and one ``E``
(the end) or ``P`` (a problem, in words). Backpressure is the pipe's: a child ahead of the
player blocks on its write, and reads the next request after that write.
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import signal
import struct
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Generator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

SAMPLE_RATE = 44_100
CHANNELS = 2
SAMPLE_BYTES = 2  # signed 16-bit
FRAME_BYTES = SAMPLE_BYTES * CHANNELS
CHUNK_FRAMES = 1024
DECODER_ARGUMENT = "--sound-decoder"  # the frozen app runs as the decoder with this alone

HEADER = struct.Struct("<cII")  # kind, job, payload length
READY, DATA, END, PROBLEM = b"R", b"D", b"E", b"P"
MAX_DATA_BYTES = CHUNK_FRAMES * FRAME_BYTES
MAX_PROBLEM_BYTES = 1000

START_SECONDS = 30.0  # a cold start of the frozen app on a loaded machine
OPEN_SECONDS = 20.0  # to a file's first answer: an hour of MP3 is decoded whole to count it
CHUNK_SECONDS = 5.0  # between two chunks of a file already playing
POLL_SECONDS = 0.05  # how often a wait looks whether the sound was cancelled
QUEUED_CHUNKS = 16  # read ahead of the player: about 0.4 s
NOT_A_SOUND = "not a sound Recall plays (mp3, ogg vorbis, flac or wav)"
TRUNCATED_SHARE = 0.98  # fewer frames than this share of the claimed ones: cut short


class UnplayableError(Exception):
    """A file could not be played; the message says why, in words for the card."""


# The child's side.


def main() -> int:
    """Serve decode requests on stdin, answers on stdout, until stdin closes."""
    replies = os.fdopen(os.dup(sys.stdout.fileno()), "wb", buffering=0)
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())  # a stray print cannot corrupt the pipe
    requests: queue.Queue[dict[str, Any] | None] = queue.Queue()
    threading.Thread(target=_read_requests, args=(sys.stdin.buffer, requests), daemon=True).start()
    import miniaudio

    _send(replies, READY, 0)
    job: _Job | None = None
    while True:
        try:
            request = requests.get(block=job is None)
        except queue.Empty:
            request = {}
        if request is None:
            return 0
        if "path" in request:
            job = _Job.start(miniaudio, request, replies)
        elif "stop" in request and job is not None and request["stop"] == job.number:
            job = None
        if job is not None and not job.step():
            job = None


def _read_requests(stream: IO[bytes], requests: queue.Queue[dict[str, Any] | None]) -> None:
    for line in stream:
        with contextlib.suppress(ValueError):
            request = json.loads(line)
            if isinstance(request, dict):
                requests.put(request)
    requests.put(None)


def _send(replies: IO[bytes], kind: bytes, job: int, payload: bytes = b"") -> None:
    replies.write(HEADER.pack(kind, job, len(payload)) + payload)


@dataclass
class _Job:
    """One file being decoded in the child."""

    number: int
    name: str
    stream: Generator[Any, int, None]
    replies: IO[bytes]
    left: int
    claimed: int
    decoded: int = 0

    @classmethod
    def start(cls, module: Any, request: dict[str, Any], replies: IO[bytes]) -> _Job | None:
        number, path, max_frames = int(request["job"]), str(request["path"]), request["max_frames"]
        try:
            info = module.get_file_info(path)
        except module.DecodeError:
            return cls._refuse(replies, number, NOT_A_SOUND)
        claimed = int(info.num_frames * SAMPLE_RATE / max(info.sample_rate, 1))
        if info.duration * SAMPLE_RATE > max_frames:
            return cls._refuse(
                replies,
                number,
                f"it claims to last {_length(info.duration)}, and Recall plays sounds of up to "
                f"{_length(max_frames / SAMPLE_RATE)}",
            )
        try:
            stream = module.stream_file(
                path,
                output_format=module.SampleFormat.SIGNED16,
                nchannels=CHANNELS,
                sample_rate=SAMPLE_RATE,
                frames_to_read=CHUNK_FRAMES,
            )
        except Exception as error:  # miniaudio's decode errors: the file is damaged
            return cls._refuse(replies, number, _describe(error))
        return cls(number, Path(path).name, stream, replies, int(max_frames), claimed)

    @staticmethod
    def _refuse(replies: IO[bytes], number: int, reason: str) -> None:
        _send(replies, PROBLEM, number, reason.encode()[:MAX_PROBLEM_BYTES])

    def step(self) -> bool:
        """Send the next chunk; False once the job has ended (its end or problem sent)."""
        if self.left <= 0:  # as long as Recall plays: the rest is not decoded
            _send(self.replies, END, self.number)
            return False
        try:
            chunk = bytes(self.stream.send(min(CHUNK_FRAMES, self.left)))
        except StopIteration:
            chunk = b""
        except Exception as error:  # miniaudio's decode errors: the file is damaged
            self._refuse(self.replies, self.number, _describe(error))
            return False
        if chunk:
            chunk = chunk[: self.left * FRAME_BYTES]
            self.decoded += len(chunk) // FRAME_BYTES
            self.left -= len(chunk) // FRAME_BYTES
            _send(self.replies, DATA, self.number, chunk)
            return True
        if self.decoded == 0:
            self._refuse(self.replies, self.number, "it holds no sound that could be decoded")
        elif self.decoded < self.claimed * TRUNCATED_SHARE:
            self._refuse(
                self.replies,
                self.number,
                f"it ends after {_length(self.decoded / SAMPLE_RATE)} of the "
                f"{_length(self.claimed / SAMPLE_RATE)} it claims (the file is cut short)",
            )
        else:
            _send(self.replies, END, self.number)
        return False


def _length(seconds: float) -> str:
    if seconds < 60:
        return f"{seconds:.1f} seconds"
    return f"{round(seconds / 60)} minutes"


def _describe(error: BaseException) -> str:
    text = str(error.args[0]) if error.args else type(error).__name__
    return text.removesuffix(".")


# The parent's side.


def decoder_command() -> list[str]:
    """How to start the decoder: this Python with ``-m``, or the frozen app with its argument."""
    if getattr(sys, "frozen", False):
        return [sys.executable, DECODER_ARGUMENT]
    return [sys.executable, "-m", "recall.host.sound_decoder"]


@dataclass(frozen=True)
class _Message:
    kind: bytes
    job: int
    payload: bytes = b""


_GONE = b"?"  # the reader's last message: the pipe ended or carried garbage
_ENDED = "the decoder ended"


class _Child:
    """One running decoder process and the thread that reads its answers into a queue."""

    def __init__(self, command: Sequence[str]) -> None:
        self.process = subprocess.Popen(
            list(command),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            creationflags=getattr(subprocess, "CREATE_NO_WINDOW", 0),
        )
        self.ready = False
        self.closed = threading.Event()
        self.messages: queue.Queue[_Message] = queue.Queue(maxsize=QUEUED_CHUNKS)
        threading.Thread(target=self._read, name="recall-decoder-reader", daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        stdout = self.process.stdout
        why = _ENDED
        try:
            while True:
                header = stdout.read(HEADER.size)
                if len(header) < HEADER.size:
                    break
                kind, job, length = HEADER.unpack(header)
                limit = MAX_DATA_BYTES if kind == DATA else MAX_PROBLEM_BYTES
                if kind not in (READY, DATA, END, PROBLEM) or length > limit:
                    why = "it sent something that is not a decoder's answer"
                    break
                payload = stdout.read(length)
                if len(payload) < length:
                    break
                if kind == DATA and (length == 0 or length % FRAME_BYTES):
                    why = "it sent samples that are not whole frames"
                    break
                self._put(_Message(kind, job, payload))
        except (OSError, ValueError):
            pass
        self._put(_Message(_GONE, 0, why.encode()))

    def _put(self, message: _Message) -> None:
        while not self.closed.is_set():
            try:
                self.messages.put(message, timeout=POLL_SECONDS)
                return
            except queue.Full:
                continue

    def send(self, request: dict[str, object]) -> bool:
        """Write one request; False if the child is gone."""
        try:
            assert self.process.stdin is not None
            self.process.stdin.write(json.dumps(request).encode() + b"\n")
            self.process.stdin.flush()
        except (OSError, ValueError):
            return False
        return True

    def death(self, why: str, exiting: bool) -> str:
        """Say how the child ended, then kill it if it still runs.

        Args:
            why: What the parent saw (its output ended, garbage, silence).
            exiting: The child's output ended: it is likely dying, so wait for its status.
        """
        try:
            status = self.process.wait(timeout=CHUNK_SECONDS if exiting else 0)
        except subprocess.TimeoutExpired:
            self.close()  # still running: killed here, so its status says nothing of the file
            return why
        self.close()
        if status < 0:
            with contextlib.suppress(ValueError):
                return f"the decoder crashed on it ({signal.Signals(-status).name})"
            return f"the decoder crashed on it (signal {-status})"
        if status > 0:
            return f"the decoder crashed on it (exit status {status:#x})"
        return why

    def close(self) -> None:
        """Kill the child, reap it and let the reader end."""
        self.closed.set()
        with contextlib.suppress(OSError):
            self.process.kill()
        for stream in (self.process.stdin, self.process.stdout):
            with contextlib.suppress(OSError, ValueError):
                if stream is not None:
                    stream.close()
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(timeout=CHUNK_SECONDS)  # a killed process ends at once


class DecoderProcess:
    """Decodes files in one child process at a time, started on demand and replaced on failure.

    Used from the player's threads, never the window's: :meth:`decode` waits for the child.

    Args:
        command: The child's command line (``decoder_command()`` by default).
        start_seconds: How long a new child may take to say it is ready.
        open_seconds: How long a file's first answer may take.
        chunk_seconds: How long each further chunk may take.

    Attributes:
        started: How many children were started (one more after each failure).
    """

    def __init__(
        self,
        command: Sequence[str] | None = None,
        start_seconds: float = START_SECONDS,
        open_seconds: float = OPEN_SECONDS,
        chunk_seconds: float = CHUNK_SECONDS,
    ) -> None:
        self._command = list(command) if command is not None else decoder_command()
        self._start_seconds = start_seconds
        self._open_seconds = open_seconds
        self._chunk_seconds = chunk_seconds
        self._lock = threading.RLock()
        self._child: _Child | None = None
        self._jobs = 0
        self._unfinished: int | None = None  # a job given up on before its end came
        self.started = 0

    def start(self) -> None:
        """Start a child now if none runs, so the first sound need not wait for it."""
        with self._lock, contextlib.suppress(UnplayableError):
            self._running()

    def decode(
        self, path: Path, max_frames: int, cancelled: Callable[[], bool]
    ) -> Generator[bytes, None, None]:
        """The PCM of ``path`` in chunks of whole frames, at most ``max_frames`` in all.

        Args:
            path: The file.
            max_frames: The most frames decoded.
            cancelled: Looked at while waiting: once true, the chunks end without a problem.

        Raises:
            UnplayableError: The file could not be played, or the decoder failed on it.
        """
        for attempt in (1, 2):
            with self._lock:
                child, job, after_unfinished = self._begin(path, max_frames)
            answered = False
            try:
                while True:
                    message = self._next(child, job, answered, cancelled)
                    if message is None:
                        return
                    answered = True
                    if message.kind == DATA:
                        yield message.payload
                    elif message.kind == END:
                        return
                    else:
                        raise UnplayableError(message.payload.decode(errors="replace"))
            except _DecoderFailedError as failure:
                # The child may have died of the file before, given up on mid-way: try once more.
                if attempt == 1 and after_unfinished and not answered:
                    continue
                raise UnplayableError(str(failure)) from None
            finally:
                self._end(child, job)

    def close(self) -> None:
        """Stop the child; a later :meth:`decode` starts another."""
        with self._lock:
            child, self._child = self._child, None
        if child is not None:
            child.close()

    def _running(self) -> _Child:
        if self._child is None:
            try:
                self._child = _Child(self._command)
            except OSError as error:
                raise UnplayableError(f"the sound decoder could not be started ({error})") from None
            self.started += 1
        return self._child

    def _begin(self, path: Path, max_frames: int) -> tuple[_Child, int, bool]:
        child = self._running()
        self._jobs += 1
        after_unfinished = self._unfinished is not None
        self._unfinished = self._jobs
        request = {"job": self._jobs, "path": str(path), "max_frames": max_frames}
        if not child.send(request):
            self._fail(child)
            raise UnplayableError(child.death("the decoder ended", exiting=True))
        return child, self._jobs, after_unfinished

    def _end(self, child: _Child, job: int) -> None:
        with self._lock:
            if self._unfinished == job and self._child is child:
                child.send({"stop": job})  # given up on: the child drops it

    def _next(
        self, child: _Child, job: int, answered: bool, cancelled: Callable[[], bool]
    ) -> _Message | None:
        """The next message of ``job``, or None once cancelled; a bad child raises."""
        patience = self._chunk_seconds if answered else self._open_seconds
        deadline = time.monotonic() + (patience if child.ready else self._start_seconds)
        while True:
            if cancelled():
                return None
            try:
                message = child.messages.get(timeout=POLL_SECONDS)
            except queue.Empty:
                if time.monotonic() > deadline:
                    self._fail(child)
                    raise _DecoderFailedError(
                        child.death("the decoder stopped answering", False)
                    ) from None
                continue
            if message.kind == _GONE:
                self._fail(child)
                why = message.payload.decode()
                raise _DecoderFailedError(child.death(why, exiting=why == _ENDED))
            if message.kind == READY:
                child.ready = True
                deadline = time.monotonic() + patience
                continue
            if message.kind in (END, PROBLEM) and message.job == self._unfinished:
                self._unfinished = None
            if message.job == job:
                return message
            # An answer about a file given up on: dropped.

    def _fail(self, child: _Child) -> None:
        """Take a failed child out of use; the next file starts another (``death`` kills it)."""
        with self._lock:
            if self._child is child:
                self._child = None
                self._unfinished = None


class _DecoderFailedError(Exception):
    """The child failed (died, garbled, fell silent); the message says how, for the card."""


if __name__ == "__main__":
    sys.exit(main())
