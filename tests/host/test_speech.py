"""The speech engine: which one is found, the command each is given, and running it for real."""

from __future__ import annotations

import os
import shutil
import subprocess
import threading
from pathlib import Path

import pytest

from recall.content.speech import Speech
from recall.host.speech import (
    Engine,
    Speaker,
    SpeechCommand,
    command,
    find_engine,
    missing_engine_line,
)
from tests.helpers.speech_engines import fake_engine, runs

HOSTILE = "-v xx; rm -rf ~ $(reboot) `id` 'quoted' \"double\""


def test_the_first_engine_on_path_is_found_for_each_system() -> None:
    on_path = {"espeak": "/bin/espeak", "espeak-ng": "/bin/espeak-ng", "say": "/bin/say"}
    assert find_engine("linux", on_path.get) == Engine("espeak-ng", "/bin/espeak-ng")
    on_path["spd-say"] = "/bin/spd-say"
    assert find_engine("linux", on_path.get) == Engine("spd-say", "/bin/spd-say")
    assert find_engine("darwin", on_path.get) == Engine("say", "/bin/say")
    assert find_engine("win32", {"powershell": "C:/ps.exe"}.get) == Engine(
        "powershell", "C:/ps.exe"
    )
    nothing: dict[str, str] = {}
    assert find_engine("linux", nothing.get) is None
    assert "install espeak-ng or speech-dispatcher" in missing_engine_line("linux")


@pytest.mark.parametrize(
    ("engine", "said", "argv"),
    [
        ("spd-say", Speech(HOSTILE, "de_DE", 1.5), ["-w", "-r", "50", "-l", "de", "--", HOSTILE]),
        ("spd-say", Speech("x", "", 3.0), ["-w", "-r", "100", "--", "x"]),
        ("espeak-ng", Speech(HOSTILE, "de", 1.0), ["-s", "175", "-v", "de", "--", HOSTILE]),
        ("espeak-ng", Speech("x", "en_US", 0.5), ["-s", "88", "-v", "en-us", "--", "x"]),
        (
            "espeak",
            Speech("a\x00b\x1bc", "pt-BR", 3.0),
            ["-s", "450", "-v", "pt-br", "--", "a b c"],
        ),
        ("say", Speech(HOSTILE, "fr", 2.0), ["-r", "350", "--", HOSTILE]),
    ],
)
def test_each_engine_is_given_the_text_as_one_argument_after_its_options(
    engine: str, said: Speech, argv: list[str]
) -> None:
    assert command(Engine(engine, f"/usr/bin/{engine}"), said) == SpeechCommand(
        (f"/usr/bin/{engine}", *argv)
    )


def test_windows_speech_gets_text_and_language_outside_its_script() -> None:
    made = command(Engine("powershell", "C:/ps.exe"), Speech(HOSTILE + "'); calc; ('", "de_DE", 2))
    assert made.argv[:4] == ("C:/ps.exe", "-NoProfile", "-NonInteractive", "-Command")
    script = made.argv[4]
    assert "calc" not in script
    assert "$s.Rate = 10" in script
    assert made.environment == {
        "RECALL_SPEECH_TEXT": HOSTILE + "'); calc; ('",
        "RECALL_SPEECH_LANGUAGE": "de-de",
    }


def speak(speaker: Speaker, said: Speech) -> str | None:
    """Speak and wait for the end (the speaker's thread tells; nothing here sleeps)."""
    ended = threading.Event()
    problems: list[str | None] = []

    def done(problem: str | None) -> None:
        problems.append(problem)
        ended.set()

    speaker.speak(said, done)
    assert ended.wait(60)
    return problems[0]


def test_a_real_engine_process_is_run_with_the_built_arguments(tmp_path: Path) -> None:
    record = tmp_path / "record.jsonl"
    real = shutil.which("espeak-ng")
    if real is None:  # in CI: a real process all the same, recording what it was given
        engine = Engine("espeak-ng", str(fake_engine(tmp_path / "bin", "espeak-ng", record)))
    else:
        engine = Engine("espeak-ng", real)
    speaker = Speaker(lambda: engine)
    try:
        assert speak(speaker, Speech("-v hallo", "de", 1.2)) is None
    finally:
        speaker.close()
    if real is None:
        assert runs(record) == [["-s", "210", "-v", "de", "--", "-v hallo"]]
    else:  # the same arguments, writing a file: espeak-ng took "-v hallo" as text to read
        argv = list(command(engine, Speech("-v hallo", "de", 1.2)).argv)
        wav = tmp_path / "out.wav"
        subprocess.run([argv[0], "-w", str(wav), *argv[1:]], check=True, timeout=60)
        assert wav.stat().st_size > 1000


def test_an_engine_that_fails_says_why_in_one_line(tmp_path: Path) -> None:
    record = tmp_path / "record.jsonl"
    program = fake_engine(
        tmp_path / "bin", "espeak-ng", record, "sys.stderr.write('no voice\\n'); sys.exit(3)"
    )
    speaker = Speaker(lambda: Engine("espeak-ng", str(program)))
    try:
        said = speak(speaker, Speech("x", "zz"))
        missing = Speaker(lambda: None)
        assert speak(missing, Speech("x")) == missing_engine_line()
        missing.close()
    finally:
        speaker.close()
    assert said == "Speech: espeak-ng failed (exit status 3: no voice)"


def test_stop_ends_the_engine_process_and_its_end_is_not_reported(tmp_path: Path) -> None:
    pipe = tmp_path / "running"
    os.mkfifo(pipe)
    program = fake_engine(
        tmp_path / "bin",
        "espeak-ng",
        tmp_path / "record.jsonl",
        f"import time\nheld = open({str(pipe)!r}, 'w')\nheld.write(f'{{os.getpid()}}\\n')\n"
        "held.flush()\ntime.sleep(600)",
    )
    speaker = Speaker(lambda: Engine("espeak-ng", str(program)))
    reported: list[str | None] = []
    speaker.speak(Speech("a long text"), reported.append)
    with pipe.open() as running:
        pid = int(running.readline())  # the engine is running
        speaker.stop()
        assert running.read() == ""  # the end of the pipe: the engine has ended
    speaker.close()
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)
    assert reported == []
