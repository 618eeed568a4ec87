"""Sounds are decoded in a child process: damaged files, crashes and hangs cost only that sound."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from recall.host.audio import CHANNELS, SAMPLE_RATE, Player, RecordingOutput
from recall.host.sound_decoder import DecoderProcess, UnplayableError
from tests.helpers.sound_files import CRASHES_MINIAUDIO, SEEDS, mutants, seed_corpus, write_tone
from tests.host.test_audio import WAIT, Heard

FAULTY = Path(__file__).parents[1] / "helpers" / "faulty_decoder.py"
MAX_FRAMES = 600 * SAMPLE_RATE
FUZZ_MUTANTS = 60  # make bench runs more (benchmarks/measure_sound.py)


def decode(decoder: DecoderProcess, path: Path) -> int | str:
    """The frames ``path`` decodes to, or why it could not be played."""
    try:
        return sum(len(chunk) for chunk in decoder.decode(path, MAX_FRAMES, lambda: False)) // (
            2 * CHANNELS
        )
    except UnplayableError as problem:
        return str(problem)


def test_the_crashing_file_kills_miniaudio_when_decoded_in_process() -> None:
    # The fixture is real: decoding it where the window would (before this design) dies.
    run = subprocess.run(
        [
            sys.executable,
            "-c",
            f"import miniaudio; miniaudio.get_file_info({str(CRASHES_MINIAUDIO)!r})",
        ],
        capture_output=True,
        timeout=60,
        check=False,
    )
    assert run.returncode < 0 or run.returncode >= 128, run  # a signal, not a Python error
    assert b"Traceback" not in run.stderr


def test_a_file_that_crashes_the_decoder_is_a_problem_and_a_new_child_decodes_the_next(
    tmp_path: Path,
) -> None:
    decoder = DecoderProcess()
    try:
        assert decode(decoder, SEEDS / "tone.ogg") == int(0.4 * SAMPLE_RATE)
        assert decoder.started == 1
        assert decode(decoder, CRASHES_MINIAUDIO) == "the decoder crashed on it (SIGSEGV)"
        assert decode(decoder, SEEDS / "tone.flac") == int(0.4 * SAMPLE_RATE)
        assert decoder.started == 2
    finally:
        decoder.close()


def test_the_player_names_the_crashing_file_and_plays_the_next(tmp_path: Path) -> None:
    tone = write_tone(tmp_path / "tone.wav", seconds=0.2)
    output = RecordingOutput()
    heard = Heard()
    player = Player(heard.problem, heard.no_output, lambda: output, heard.first_frame)
    player.play([CRASHES_MINIAUDIO, tone])
    assert player.idle.wait(WAIT)
    assert output.done.wait(WAIT)
    player.close()
    assert heard.problems == [
        "crashes-miniaudio.ogg could not be played: the decoder crashed on it (SIGSEGV)"
    ]
    frames = len(output.samples()) // CHANNELS
    assert abs(frames - 0.2 * SAMPLE_RATE) < 0.02 * SAMPLE_RATE


@pytest.mark.parametrize(
    ("mode", "problem"),
    [
        ("abort", "the decoder crashed on it (SIGABRT)"),
        ("garbage", "it sent something that is not a decoder's answer"),
        ("silent", "the decoder stopped answering"),
        ("exit", "the decoder crashed on it (exit status 0x3)"),
    ],
)
def test_a_child_that_fails_is_reported_and_replaced(
    tmp_path: Path, mode: str, problem: str
) -> None:
    tone = write_tone(tmp_path / "tone.wav", seconds=0.1)
    faulty = DecoderProcess([sys.executable, str(FAULTY), mode], open_seconds=0.5)
    try:
        for started in (1, 2):
            assert decode(faulty, tone) == problem
            assert faulty.started == started  # the second file went to a new child
    finally:
        faulty.close()


def test_a_truncated_flac_could_not_be_played(tmp_path: Path) -> None:
    whole = (SEEDS / "tone.flac").read_bytes()
    cut = tmp_path / "cut.flac"
    cut.write_bytes(whole[: len(whole) // 2])
    output = RecordingOutput()
    heard = Heard()
    player = Player(heard.problem, heard.no_output, lambda: output)
    player.play([cut])
    assert player.idle.wait(WAIT)
    assert output.done.wait(WAIT)
    player.close()
    assert heard.problems == [
        "cut.flac could not be played: it ends after 0.2 seconds of the 0.4 seconds it "
        "claims (the file is cut short)"
    ]


def fuzz(folder: Path, count: int, seed: int = 23) -> tuple[int, int, int]:
    """Run ``count`` mutants through one decoder; returns (decoded, refused, children started).

    Every mutant's result must be samples or a "could not be played" reason, and after a
    crash the next file must go to a new child. The known crasher goes first, so that path
    is taken whatever the mutants do.
    """
    decoder = DecoderProcess()
    decoded = refused = 0
    try:
        files = [(".ogg", CRASHES_MINIAUDIO.read_bytes()), *mutants(seed_corpus(), count, seed)]
        for number, (suffix, data) in enumerate(files):
            path = folder / f"mutant-{number}{suffix}"
            path.write_bytes(data)
            result = decode(decoder, path)
            if isinstance(result, int):
                assert 0 < result <= MAX_FRAMES
                decoded += 1
            else:
                assert result, f"{path.name}: an empty reason"
                refused += 1
                if "decoder" in result:  # it crashed, hung or garbled: a new child next
                    failed = decoder.started
                    assert decode(decoder, SEEDS / "tone.mp3") == int(0.4 * SAMPLE_RATE)
                    assert decoder.started == failed + 1
            path.unlink()
        return decoded, refused, decoder.started
    finally:
        decoder.close()


def test_fuzzed_sound_files_are_decoded_or_refused_and_never_take_the_parent(
    tmp_path: Path,
) -> None:
    decoded, refused, started = fuzz(tmp_path, FUZZ_MUTANTS)
    assert decoded + refused == FUZZ_MUTANTS + 1
    assert started >= 2  # the known crasher at least
