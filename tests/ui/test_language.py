"""The window in the learner's language: German menus and review screen, Qt's own buttons
in German, the Language preference applied at the next start, right-to-left layout."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QLocale, Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QApplication, QComboBox, QDialogButtonBox, QLabel, QMenu
from pytestqt.qtbot import QtBot

from recall.core import i18n
from recall.core.memory import Rating
from recall.core.preferences import Preferences
from recall.options import deck_options
from recall.storage import Database
from recall.ui import application
from recall.ui.language import use_language
from recall.ui.main_window import MainWindow
from recall.ui.options.preferences_dialog import PreferencesDialog
from tests.ui.conftest import FakePrompts, WindowFactory
from tests.ui.test_review_window import DIGITS, right_position, start_studying

LOCALE = Path(__file__).resolve().parents[2] / "resources" / "locale"
# A new language is announced to every window (LanguageChange); the offscreen platform
# warns for the windows earlier tests left open.
pytestmark = pytest.mark.qt_log_ignore("^This plugin does not support propagateSizeHints")


@pytest.fixture
def english_after(qapp: QApplication) -> Iterator[QApplication]:
    """Whatever language a test shows, the next test starts in English, left to right."""
    yield qapp
    use_language(qapp, "en", folder=LOCALE)
    QLocale.setDefault(QLocale.system())
    # The windows hear of the change (LanguageChange) here, not in the next test.
    QApplication.sendPostedEvents()
    QApplication.processEvents()


@pytest.fixture
def german(english_after: QApplication) -> QApplication:
    assert use_language(english_after, "de", folder=LOCALE) == "de"
    return english_after


def _menus(window: MainWindow) -> list[QMenu]:
    menus = [action.menu() for action in window.menuBar().actions()]
    return [menu for menu in menus if isinstance(menu, QMenu)]


def _accelerator(text: str) -> str:
    """The letter after a single ``&`` (``&&`` is a literal ampersand), or ""."""
    index = text.replace("&&", "__").find("&")
    return text[index + 1].lower() if 0 <= index < len(text) - 1 else ""


def test_system_language_german_finds_the_shipped_catalog(english_after: QApplication) -> None:
    environ = {"LANGUAGE": "de_AT:fr", "LANG": "C"}
    assert use_language(english_after, None, environ, LOCALE) == "de"
    assert i18n.tr("Study") == "Lernen"
    assert use_language(english_after, "system", {"LANG": "fr_FR.UTF-8"}, LOCALE) == "en"
    assert i18n.tr("Study") == "Study"


def test_main_window_menus_are_german(german: QApplication, make_window: WindowFactory) -> None:
    window = make_window()
    titles = [menu.title() for menu in _menus(window)]
    assert titles == ["&Datei", "&Bearbeiten", "&Lernen", "&Stapel", "E&xtras", "&Hilfe"]
    keys = [_accelerator(title) for title in titles]
    assert len(set(keys)) == len(keys), titles
    file_menu = _menus(window)[0]
    texts = [action.text() for action in file_menu.actions() if not action.isSeparator()]
    assert "Stapel &importieren …" in texts
    assert "&Beenden" in texts
    for menu in _menus(window):
        entries = [a.text() for a in menu.actions() if isinstance(a, QAction) and a.text()]
        letters = [_accelerator(text) for text in entries if _accelerator(text)]
        # The entries of this branch's menus; Edit and Study also hold Preferences' and the
        # deck options' entries, whose own wording is checked where they are marked.
        if menu.title() in ("&Datei", "&Stapel", "E&xtras", "&Hilfe"):
            assert len(set(letters)) == len(letters), entries
    assert window.deck_list.study_button.text() == "Lernen"
    header = window.deck_list.model.horizontalHeaderItem(2)
    assert header is not None
    assert header.text() == "Fällig"


def test_review_screen_buttons_are_german(
    qtbot: QtBot, german: QApplication, make_window: WindowFactory
) -> None:
    window = make_window()
    review = start_studying(qtbot, window)
    hint = review.findChild(QLabel, "keyHint")
    assert hint is not None
    assert hint.text().endswith(": wählen")
    qtbot.keyClick(review, DIGITS[right_position(review) + 1])
    texts = {rating: button.text() for rating, button in review.rating_buttons.items()}
    assert texts[Rating.AGAIN].startswith("1 Nochmal")
    assert texts[Rating.HARD].startswith("2 Schwer")
    assert texts[Rating.GOOD].startswith("3 Gut")
    assert texts[Rating.EASY].startswith("4 Einfach")
    # The interval under each rating is German too ("10 Min.", "3 T.").
    assert any(unit in texts[Rating.EASY] for unit in ("T.", "Mon.", "J."))


def test_qt_standard_buttons_are_german(german: QApplication) -> None:
    buttons = QDialogButtonBox(
        QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel
    )
    save = buttons.button(QDialogButtonBox.StandardButton.Save)
    cancel = buttons.button(QDialogButtonBox.StandardButton.Cancel)
    assert save is not None
    assert cancel is not None
    assert save.text().replace("&", "") == "Speichern"
    assert cancel.text().replace("&", "") == "Abbrechen"


def test_english_removes_qt_translation(english_after: QApplication) -> None:
    use_language(english_after, "de", folder=LOCALE)
    use_language(english_after, "en", folder=LOCALE)
    buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel)
    cancel = buttons.button(QDialogButtonBox.StandardButton.Cancel)
    assert cancel is not None
    assert cancel.text().replace("&", "") == "Cancel"


def test_right_to_left_language_mirrors_the_layout(
    english_after: QApplication, tmp_path: Path
) -> None:
    (tmp_path / "he.po").write_text(
        'msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=UTF-8\\n"\n'
        '"Plural-Forms: nplurals=2; plural=(n != 1);\\n"\n\n'
        'msgid "Study"\nmsgstr "ללמוד"\n',
        encoding="utf-8",
    )
    assert use_language(english_after, None, {"LANGUAGE": "he"}, tmp_path) == "he"
    assert english_after.layoutDirection() == Qt.LayoutDirection.RightToLeft
    assert i18n.tr("Study") == "ללמוד"
    assert use_language(english_after, "en", folder=tmp_path) == "en"
    assert english_after.layoutDirection() == Qt.LayoutDirection.LeftToRight


def test_preferences_offer_the_language_for_the_next_start(
    qtbot: QtBot, english_after: QApplication, bundled: Database, prompts: FakePrompts
) -> None:
    dialog = PreferencesDialog(bundled, prompts)
    qtbot.addWidget(dialog)
    combo = dialog.form.editors["language"]
    assert isinstance(combo, QComboBox)
    names = [combo.itemText(index) for index in range(combo.count())]
    assert names == ["As the system says", "English", "Deutsch"]
    assert "next time Recall starts" in dialog.language_note.text()
    combo.setCurrentIndex(combo.findData("de"))
    save = dialog.buttons.button(QDialogButtonBox.StandardButton.Save)
    assert save is not None
    save.click()
    assert deck_options.preferences(bundled).language == "de"


def test_stored_language_applies_when_the_window_opens(
    qtbot: QtBot,
    english_after: QApplication,
    bundled: Database,
    prompts: FakePrompts,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with bundled.transaction() as transaction:
        transaction.options.set_preferences(Preferences(language="de"))
    monkeypatch.setattr(
        application,
        "use_language",
        lambda app, preference: use_language(app, preference, {}, LOCALE),
    )
    window = application.show_window(bundled, tmp_path, prompts)
    qtbot.addWidget(window)
    assert next(menu.title() for menu in _menus(window)) == "&Datei"
    window.tasks.wait()
