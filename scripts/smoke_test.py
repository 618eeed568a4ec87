"""Smoke-test built Recall executables as a user would run them; exit 1 if any check fails.

Run with ``.venv/bin/python scripts/smoke_test.py dist/Recall/recall [dist/onefile/recall]``
after ``make package`` (CI does, in ``.ci/run``). Each executable is first copied somewhere
else (with its folder, for a one-folder build) and run from an empty working directory with
a clean environment and a new home folder, so it cannot lean on the source tree, the
virtual environment or the user's data. The checks: ``--version``; ``decks --json`` on a
fresh data folder, where the bundled deck must be installed from inside the bundle;
``import`` of a good and of a bad deck file; ``schema``; ``--self-test``, which decodes a sound
in the app started again as its own sound decoder (``--sound-decoder``), opens the real
window offscreen and studies one card by keyboard; and ``export-reviews`` of that review.
"""

from __future__ import annotations

import csv
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BUNDLED_DECK = ROOT / "decks" / "activation_recompute.json"
GOOD_DECK = ROOT / "tests" / "data" / "decks" / "tiny.json"
BAD_DECK = ROOT / "tests" / "data" / "decks" / "bad" / "no-cards.json"
TIMEOUT_SECONDS = 180
# The one-folder app may not grow past this (docs/packaging.md has the measured size).
# Raised from 120 MiB for today's Anki packages (zstandard, about 1 MiB once its cffi
# backend is left out), sound (miniaudio, about 1 MiB) and fitting FSRS parameters
# (fsrs-rs-python, about 1.5 MiB); then to 130 MiB for typesetting formulas (ziamath with
# its two fonts, about 2.4 MiB, and QtSvg, about 0.8 MiB, which also shows SVG images).
SIZE_BUDGET_MIB = 130
# On Linux, the only Qt libraries and plugin folders in the app (packaging/hooks/qt_trim.py).
LINUX_QT_LIBRARIES = {"Core", "DBus", "Gui", "Svg", "Widgets", "XcbQpa"}
LINUX_PLUGIN_FOLDERS = {"platforms", "platformthemes", "platforminputcontexts", "imageformats"}


@dataclass
class Run:
    """The outcome of one run of the executable."""

    args: list[str]
    status: int
    out: str
    err: str

    def describe(self) -> str:
        return (
            f"$ recall {' '.join(self.args)}\n  exit status {self.status}\n"
            f"  stdout: {self.out.strip()[:2000]!r}\n  stderr: {self.err.strip()[:2000]!r}"
        )


@dataclass
class SmokeTest:
    """Runs one copied executable in a sandbox of temporary folders and records the checks."""

    executable: Path
    sandbox: Path
    passed: int = 0
    failures: list[str] = field(default_factory=list)

    def run(self, *args: str) -> Run:
        home = self.sandbox / "home"
        work = self.sandbox / "work"
        home.mkdir(exist_ok=True)
        work.mkdir(exist_ok=True)
        environment = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": str(home),
            "LANG": "C.UTF-8",
            "QT_QPA_PLATFORM": "offscreen",
            "TMPDIR": str(self.sandbox / "tmp"),
        }
        (self.sandbox / "tmp").mkdir(exist_ok=True)
        result = subprocess.run(
            [str(self.executable), *args],
            cwd=work,
            env=environment,
            capture_output=True,
            text=True,
            encoding="utf-8",
            timeout=TIMEOUT_SECONDS,
            check=False,
        )
        return Run(list(args), result.returncode, result.stdout, result.stderr)

    def check(self, name: str, ok: bool, run: Run | None = None, detail: str = "") -> bool:
        if ok:
            self.passed += 1
            print(f"ok   {name}", flush=True)
        else:
            report = "\n".join(part for part in (detail, run.describe() if run else "") if part)
            self.failures.append(name)
            print(f"FAIL {name}\n{report}", flush=True)
        return ok


def smoke_test(built: Path) -> SmokeTest:
    """Copy ``built`` to a temporary folder and run every check against the copy."""
    sandbox = Path(tempfile.mkdtemp(prefix="recall-smoke-"))
    if (built.parent / "_internal").is_dir():  # a one-folder build: take the whole folder
        shutil.copytree(built.parent, sandbox / "app", symlinks=True)
        executable = sandbox / "app" / built.name
    else:
        (sandbox / "app").mkdir()
        executable = sandbox / "app" / built.name
        shutil.copy2(built, executable)
    test = SmokeTest(executable, sandbox)
    print(f"== {built} (run as {executable})", flush=True)
    try:
        if (built.parent / "_internal").is_dir():
            _check_folder(test, built.parent)
        _check_version(test)
        _check_decks(test)
        _check_import(test)
        _check_anki_round_trip(test)
        _check_self_test(test)
    finally:
        shutil.rmtree(sandbox, ignore_errors=True)
    return test


def _check_folder(test: SmokeTest, folder: Path) -> None:
    """The one-folder app is lean: within its size budget, with only the Qt it needs."""
    # Links (PyInstaller links shared libraries into _internal/) take no room of their own.
    size = sum(
        file.stat().st_size
        for file in folder.rglob("*")
        if not file.is_symlink() and file.is_file()
    )
    mib = size / 2**20
    test.check(
        f"the app folder is {mib:.1f} MiB, within {SIZE_BUDGET_MIB} MiB",
        mib <= SIZE_BUDGET_MIB,
        detail=f"{folder} holds {size} bytes",
    )
    qt = folder / "_internal" / "PySide6" / "Qt"
    shipped = sorted(path.stem for path in (ROOT / "resources" / "locale").glob("*.po"))
    translations = sorted(file.name for file in (qt / "translations").glob("*"))
    test.check(
        f"Qt's translations are qtbase for {', '.join(shipped) or 'no language'} alone",
        set(translations) <= {f"qtbase_{language}.qm" for language in shipped}
        and all(f"qtbase_{language}.qm" in translations for language in shipped),
        detail=f"found {translations}",
    )
    if not sys.platform.startswith("linux"):
        return
    libraries = {
        file.name.removeprefix("libQt6").split(".")[0] for file in qt.glob("lib/libQt6*.so*")
    }
    test.check(
        f"the Qt libraries are {', '.join(sorted(LINUX_QT_LIBRARIES))}",
        libraries == LINUX_QT_LIBRARIES,
        detail=f"found {sorted(libraries)}",
    )
    plugins = {entry.name for entry in (qt / "plugins").iterdir()}
    platforms = {file.name for file in (qt / "plugins" / "platforms").iterdir()}
    test.check(
        "the Qt plugins: xcb and offscreen platforms, a theme, an input context, image formats",
        plugins == LINUX_PLUGIN_FOLDERS and platforms == {"libqxcb.so", "libqoffscreen.so"},
        detail=f"found {sorted(plugins)}, platforms {sorted(platforms)}",
    )


def _check_version(test: SmokeTest) -> None:
    expected = f"Recall {metadata.version('recall')}"
    run = test.run("--version")
    test.check(
        f"--version prints {expected!r}", run.status == 0 and run.out.strip() == expected, run
    )


def _check_decks(test: SmokeTest) -> None:
    """With no --data-dir the app uses the platform's folder: here, under the new home."""
    total = len(json.loads(BUNDLED_DECK.read_text(encoding="utf-8"))["cards"])
    run = test.run("decks", "--json")
    try:
        decks = json.loads(run.out) if run.status == 0 else None
    except json.JSONDecodeError:
        decks = None
    test.check(
        "decks --json on a fresh data folder lists the bundled deck, all cards unseen",
        decks is not None
        and [(deck["id"], deck["total"], deck["unseen"], deck["due"]) for deck in decks]
        == [("activation-recompute", total, total, 0)],
        run,
    )
    if sys.platform.startswith("linux"):
        database = test.sandbox / "home" / ".local" / "share" / "Recall" / "recall.sqlite3"
        test.check("the database is in ~/.local/share/Recall", database.is_file())


def _check_import(test: SmokeTest) -> None:
    data = str(test.sandbox / "imported")
    run = test.run("--data-dir", data, "import", str(GOOD_DECK))
    test.check(
        "import of a deck file adds it",
        run.status == 0 and "added deck 'Tiny deck' (tiny): 2 added" in run.out,
        run,
    )
    run = test.run("--data-dir", data, "decks", "--json")
    keys = [deck["id"] for deck in json.loads(run.out)] if run.status == 0 else []
    test.check("decks --json lists both decks", keys == ["activation-recompute", "tiny"], run)
    run = test.run("--data-dir", data, "import", str(BAD_DECK))
    test.check(
        "import of a bad deck file exits 1 and names the file",
        run.status == 1 and BAD_DECK.name in run.err and not run.out,
        run,
    )
    run = test.run("schema")
    try:
        schema_ok = run.status == 0 and "$defs" in json.loads(run.out)
    except json.JSONDecodeError:
        schema_ok = False
    test.check("schema prints the deck format's JSON Schema", schema_ok, run)


def _check_anki_round_trip(test: SmokeTest) -> None:
    """An Anki package with an image imports (nh3, zip, media), and a deck exports to one."""
    import genanki  # the smoke test runs from the development environment, which has it

    folder = test.sandbox / "anki"
    folder.mkdir()
    picture = folder / "dot.png"
    picture.write_bytes(
        bytes.fromhex(
            "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
            "1f15c4890000000d49444154789c6360f8cfc0000003010100c9fe92ef0000000049454e44ae426082"
        )
    )
    deck = genanki.Deck(2059400300, "Smoke::Pictures")
    deck.add_note(
        genanki.Note(model=genanki.BASIC_MODEL, fields=['dot <img src="dot.png">', "a dot"])
    )
    package = folder / "smoke.apkg"
    genanki.Package(deck, media_files=[str(picture)]).write_to_file(str(package))
    data = str(test.sandbox / "anki-data")
    run = test.run("--data-dir", data, "import", str(package))
    test.check(
        "import of an Anki package with an image adds its deck and the image",
        run.status == 0 and "added deck 'Smoke::Pictures'" in run.out and "1 image" in run.out,
        run,
    )
    exported = folder / "exported.apkg"
    run = test.run("--data-dir", data, "export", "anki-deck-2059400300", str(exported))
    test.check(
        "export of that deck writes an Anki package",
        run.status == 0 and exported.is_file() and exported.stat().st_size > 0,
        run,
    )


def _check_self_test(test: SmokeTest) -> None:
    data = test.sandbox / "studied"
    run = test.run("--data-dir", str(data), "--self-test")
    test.check(
        "--self-test studies one card by keyboard in the window and quits cleanly",
        run.status == 0
        and "self-test: first card on screen" in run.out
        and "self-test: sound: the decoder process decoded" in run.out
        and run.out.rstrip().endswith("self-test: passed"),
        run,
    )
    resources = next(
        (line.split(" from ", 1)[1] for line in run.out.splitlines() if " from " in line), ""
    )
    test.check(
        "the style sheet and icons come from inside the bundle",
        bool(resources)
        and not Path(resources).is_relative_to(ROOT)
        and Path(resources).is_relative_to(test.sandbox),
        run,
        detail=f"resources from {resources!r}",
    )
    test.check(
        "the window ran on the offscreen platform", "on the offscreen platform" in run.out, run
    )
    run = test.run("--data-dir", str(data), "export-reviews", "-")
    rows = list(csv.reader(io.StringIO(run.out))) if run.status == 0 else []
    test.check(
        "export-reviews writes the self-test's one review",
        len(rows) == 2 and rows[0][0] == "card_id" and rows[1][2] in {"1", "2", "3", "4"},
        run,
    )


def main(arguments: list[str]) -> int:
    if not arguments:
        print(__doc__, file=sys.stderr)
        return 2
    passed = 0
    failed: list[str] = []
    for argument in arguments:
        built = Path(argument).resolve()
        if not built.is_file() or not os.access(built, os.X_OK):
            print(f"FAIL {argument}: no executable there (run make package first)", flush=True)
            failed.append(argument)
            continue
        test = smoke_test(built)
        passed += test.passed
        failed += [f"{argument}: {name}" for name in test.failures]
    for name in failed:
        print(f"failed: {name}")
    print(f"smoke: {passed} passed, {len(failed)} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
