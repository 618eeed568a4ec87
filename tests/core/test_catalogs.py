"""The catalogs Recall ships: complete for every message marked in the source, and found
inside the installed package where the window and the command line look for them."""

from __future__ import annotations

import fnmatch
import shutil
import subprocess
import sys
import tomllib
from collections.abc import Iterator
from pathlib import Path

import pytest

from recall.core import i18n

ROOT = Path(__file__).resolve().parents[2]
LOCALE = ROOT / "resources" / "locale"
sys.path.insert(0, str(ROOT / "scripts"))
import translations  # noqa: E402 (found through the path set above)


@pytest.fixture
def english_after() -> Iterator[None]:
    yield
    i18n.install(i18n.ENGLISH)


def test_every_marked_message_has_a_german_translation() -> None:
    messages = translations.extract()
    assert len(messages) > 300  # the window's texts are marked
    german = (LOCALE / "de.po").read_text(encoding="utf-8")
    assert translations.problems(messages, german, "de") == []


def test_the_check_command_passes(capsys: pytest.CaptureFixture[str]) -> None:
    assert translations.main(["check"]) == 0
    assert capsys.readouterr().out == ""


def test_the_template_holds_every_marked_message() -> None:
    template = i18n.parse("pot", (LOCALE / "recall.pot").read_text(encoding="utf-8"))
    assert set(template.messages) == set(translations.extract())


def test_german_plural_forms_and_numbers(english_after: None) -> None:
    i18n.install(i18n.load("de", LOCALE))
    assert i18n.trn("{count} card", "{count} cards", 1).format(count=1) == "1 Karte"
    assert i18n.trn("{count} card", "{count} cards", 0).format(count=0) == "0 Karten"
    assert i18n.number(1204) == "1.204"
    assert i18n.decimal(2.5) == "2,5"
    assert i18n.trp("rating", "Again") == "Nochmal"
    i18n.install(i18n.ENGLISH)
    assert i18n.number(1204) == "1,204"
    assert i18n.decimal(1234.5) == "1,234.5"


def _installed_copy(target: Path) -> Path:
    """The package laid out as pip installs it: src/recall, resources/ as recall/resources
    with the files pyproject's package-data names (nothing else of resources/)."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    tool = config["tool"]["setuptools"]
    assert tool["package-dir"]["recall.resources"] == "resources"
    patterns = tool["package-data"]["recall.resources"]
    package = target / "recall"
    shutil.copytree(ROOT / "src" / "recall", package)
    resources = package / "resources"
    resources.mkdir()
    for file in (ROOT / "resources").rglob("*"):
        relative = file.relative_to(ROOT / "resources").as_posix()
        if file.is_file() and (
            relative == "__init__.py" or any(fnmatch.fnmatch(relative, p) for p in patterns)
        ):
            (resources / relative).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(file, resources / relative)
    return package


def test_a_shipped_catalog_loads_from_the_installed_package(tmp_path: Path) -> None:
    package = _installed_copy(tmp_path)
    assert (package / "resources" / "locale" / "de.po").is_file()
    assert not (package / "resources" / "locale" / "recall.pot").exists()  # a template only
    # A fresh interpreter without site-packages (-S), so only the copy can be imported.
    script = (
        "import sys; sys.path.insert(0, sys.argv[1])\n"
        "from recall.core import i18n\n"
        "print(sorted(i18n.shipped()), i18n.start(None, {'LANGUAGE': 'de_DE'}), "
        "i18n.tr('Study'), i18n.__file__.startswith(sys.argv[1]))\n"
    )
    done = subprocess.run(
        [sys.executable, "-S", "-c", script, str(tmp_path)],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    assert done.stdout.strip() == "['de'] de Lernen True"
