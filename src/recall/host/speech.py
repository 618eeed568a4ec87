"""Reading card text aloud through the system's speech engine, one child process per text.

The engine is a program found on PATH: ``spd-say`` (speech-dispatcher), ``espeak-ng`` or
``espeak`` on Linux, ``say`` on macOS, and PowerShell's System.Speech (SAPI) on Windows. A
text is given as one argument after ``--`` (so text beginning with "-" is never read as an
option), never through a shell; for PowerShell the text and language travel in environment
variables, so no quoting can turn them into script. :class:`Speaker` starts and waits for
the process on a thread of its own; the caller's thread only queues the text, and
``stop`` ends the process without waiting for it.
"""

from __future__ import annotations

import os
import queue
import re
import shutil
import subprocess
import sys
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from recall.content.speech import Speech
from recall.core.i18n import tr

LINUX_ENGINES = ("spd-say", "espeak-ng", "espeak")
NORMAL_WORDS_PER_MINUTE = 175  # espeak's and say's normal pace
LONGEST_SECONDS = 10 * 60  # a text still being read after this is stopped
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
_TEXT_VARIABLE = "RECALL_SPEECH_TEXT"
_LANGUAGE_VARIABLE = "RECALL_SPEECH_LANGUAGE"
# System.Speech's synthesizer, with a voice for the language when one is installed.
_SAPI_SCRIPT = (
    "Add-Type -AssemblyName System.Speech; "
    "$s = New-Object System.Speech.Synthesis.SpeechSynthesizer; "
    f"$l = $env:{_LANGUAGE_VARIABLE}; "
    "if ($l) { try { $s.SelectVoiceByHints("
    "[System.Speech.Synthesis.VoiceGender]::NotSet, [System.Speech.Synthesis.VoiceAge]::NotSet, "
    "0, [System.Globalization.CultureInfo]::GetCultureInfo($l)) } catch {} }; "
    "$s.Rate = {rate}; "
    f"$s.Speak($env:{_TEXT_VARIABLE})"
)

Done = Callable[[str | None], None]
"""Told, from the speaker's thread, that a text ended: None, or the line the card shows."""


@dataclass(frozen=True)
class Engine:
    """A speech engine found on this system.

    Attributes:
        name: ``spd-say``, ``espeak-ng``, ``espeak``, ``say`` or ``powershell``.
        path: The program's full path.
    """

    name: str
    path: str


@dataclass(frozen=True)
class SpeechCommand:
    """How one text is spoken: the program's arguments and what its environment adds."""

    argv: tuple[str, ...]
    environment: Mapping[str, str] = field(default_factory=dict)


def find_engine(
    platform: str | None = None, which: Callable[[str], str | None] = shutil.which
) -> Engine | None:
    """The first speech engine on PATH for ``platform`` (``sys.platform`` by default)."""
    platform = sys.platform if platform is None else platform
    if platform.startswith("win"):
        names: tuple[str, ...] = ("powershell",)
    elif platform == "darwin":
        names = ("say",)
    else:
        names = LINUX_ENGINES
    for name in names:
        path = which(name)
        if path:
            return Engine(name, path)
    return None


def missing_engine_line(platform: str | None = None) -> str:
    """The line a card shows when no engine is found, saying what to install."""
    platform = sys.platform if platform is None else platform
    if platform.startswith("win"):
        return tr("Speech: no speech engine found (Windows PowerShell is needed)")
    if platform == "darwin":
        return tr("Speech: no speech engine found (the say command is missing)")
    return tr("Speech: no speech engine found (install espeak-ng or speech-dispatcher)")


def command(engine: Engine, speech: Speech) -> SpeechCommand:
    """The command that reads ``speech`` aloud with ``engine``.

    The language picks the engine's voice (``espeak-ng -v de``, ``spd-say -l de``, a SAPI
    voice of that culture); ``say`` keeps the system's voice, which it chooses by name,
    not by language. The speed scales the engine's normal pace.
    """
    text = _CONTROL.sub(" ", speech.text)
    tag = speech.language.replace("_", "-").lower()
    if engine.name == "spd-say":
        rate = round((speech.speed - 1) * 100)
        argv = [engine.path, "-w", "-r", str(max(-100, min(100, rate)))]
        if tag:
            argv += ["-l", tag.split("-")[0]]
        return SpeechCommand((*argv, "--", text))
    words = str(max(80, min(450, round(NORMAL_WORDS_PER_MINUTE * speech.speed))))
    if engine.name in ("espeak-ng", "espeak"):
        argv = [engine.path, "-s", words]
        if tag:
            argv += ["-v", tag]
        return SpeechCommand((*argv, "--", text))
    if engine.name == "say":
        return SpeechCommand((engine.path, "-r", words, "--", text))
    sapi_rate = max(-10, min(10, round((speech.speed - 1) * 10)))
    script = _SAPI_SCRIPT.replace("{rate}", str(sapi_rate))
    return SpeechCommand(
        (engine.path, "-NoProfile", "-NonInteractive", "-Command", script),
        {_TEXT_VARIABLE: text, _LANGUAGE_VARIABLE: tag},
    )


@dataclass
class _Job:
    speech: Speech
    done: Done
    cancelled: bool = False
    process: subprocess.Popen[bytes] | None = None


class Speaker:
    """Reads texts aloud one at a time, off the caller's thread.

    Args:
        find: Finds the engine (on PATH by default); looked up for each text, on the
            speaker's thread, so an engine installed meanwhile is used.
        missing: The line told when ``find`` finds none.
    """

    def __init__(
        self,
        find: Callable[[], Engine | None] = find_engine,
        missing: Callable[[], str] = missing_engine_line,
    ) -> None:
        self._find = find
        self._missing = missing
        self._jobs: queue.Queue[_Job | None] = queue.Queue()
        self._lock = threading.Lock()
        self._job: _Job | None = None
        self._stopped: _Job | None = None
        self._thread: threading.Thread | None = None

    def speak(self, speech: Speech, done: Done) -> None:
        """Stop any text being read and read ``speech``; ``done`` is told when it ends
        (not when it is stopped)."""
        self.stop()
        job = _Job(speech, done)
        with self._lock:
            self._job = job
        if self._thread is None:
            self._thread = threading.Thread(target=self._work, name="recall-speech", daemon=True)
            self._thread.start()
        self._jobs.put(job)

    def stop(self) -> None:
        """Stop the text being read (a new card, leaving the screen); waits for nothing."""
        with self._lock:
            job, self._job = self._job, None
            if job is not None:
                job.cancelled = True
                self._stopped = job
                if job.process is not None and job.process.poll() is None:
                    job.process.terminate()

    def close(self) -> None:
        """Stop, and end the speaker's thread (an engine that outlives its stop is killed)."""
        self.stop()
        with self._lock:
            stopped = self._stopped
            process = stopped.process if stopped is not None else None
            if process is not None and process.poll() is None:
                process.kill()
        if self._thread is not None:
            self._jobs.put(None)
            self._thread.join()
            self._thread = None

    def _work(self) -> None:
        while (job := self._jobs.get()) is not None:
            if not job.cancelled:
                problem = self._run(job)
                if not job.cancelled:
                    job.done(problem)

    def _run(self, job: _Job) -> str | None:
        engine = self._find()
        if engine is None:
            return self._missing()
        spoken = command(engine, job.speech)
        with self._lock:
            if job.cancelled:
                return None
            try:
                job.process = subprocess.Popen(
                    spoken.argv,
                    stdin=subprocess.DEVNULL,
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.PIPE,
                    env={**os.environ, **spoken.environment},
                    creationflags=getattr(subprocess, "CREATE_NO_WINDOW", 0),
                )
            except OSError as error:
                return tr("Speech: {engine} could not be started ({reason})").format(
                    engine=engine.name, reason=error.strerror or error
                )
        process = job.process
        try:
            _, errors = process.communicate(timeout=LONGEST_SECONDS)
        except subprocess.TimeoutExpired:
            process.kill()
            process.communicate()
            return None
        if process.returncode == 0 or job.cancelled:
            return None
        said = errors.decode("utf-8", "replace").strip().splitlines()
        detail = f": {said[-1][:200]}" if said else ""
        return tr("Speech: {engine} failed (exit status {status}{detail})").format(
            engine=engine.name, status=process.returncode, detail=detail
        )
