"""The standalone app's Qt translations: qtbase of each language Recall ships, nothing else."""

from __future__ import annotations

import sys
from pathlib import Path

import PySide6

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "packaging" / "hooks"))
import qt_trim  # noqa: E402 (found through the path set above)

TRANSLATIONS = Path(PySide6.__file__).parent / "Qt" / "translations"


def test_the_shipped_languages_are_the_catalogs_in_resources() -> None:
    assert qt_trim.shipped_languages() == {
        path.stem for path in (ROOT / "resources" / "locale").glob("*.po")
    }
    assert "de" in qt_trim.shipped_languages()


def test_trim_keeps_qtbase_of_the_shipped_languages_from_a_pattern_or_a_folder() -> None:
    where = "PySide6/Qt/translations"
    plugin = (
        str(TRANSLATIONS.parent / "plugins" / "platforms" / "libqxcb.so"),
        "x/plugins/platforms",
    )
    for source in (str(TRANSLATIONS / "qtbase_*.qm"), str(TRANSLATIONS)):
        binaries, datas = qt_trim.trim([plugin], [(source, where), ("/x/icon.png", "PySide6")])
        assert binaries == [plugin]
        assert ("/x/icon.png", "PySide6") in datas
        kept = sorted(Path(file).name for file, folder in datas if folder == where)
        assert kept == sorted(f"qtbase_{language}.qm" for language in qt_trim.shipped_languages())


def test_kept_translations_leave_other_modules_and_languages_out() -> None:
    files = ["/t/qtbase_de.qm", "/t/qtbase_fr.qm", "/t/qt_de.qm", "/t/qtdeclarative_de.qm"]
    assert qt_trim.kept_translations(files, {"de"}) == ["/t/qtbase_de.qm"]
