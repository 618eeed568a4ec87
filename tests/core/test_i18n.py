"""The learner's language: catalogs read from .po text, plural rules, the language chosen."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from recall.core import i18n
from recall.core.i18n import CatalogError, choose, parse, requested, right_to_left

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))
import translations

GERMAN = r"""# A translator's comment
msgid ""
msgstr ""
"Content-Type: text/plain; charset=UTF-8\n"
"Plural-Forms: nplurals=2; plural=(n != 1);\n"

#: recall/ui/main_window.py:10
msgid "Study Now"
msgstr "Jetzt lernen"

msgctxt "menu"
msgid "Open"
msgstr "Öffnen"

msgid "{count} card"
msgid_plural "{count} cards"
msgstr[0] "{count} Karte"
msgstr[1] "{count} Karten"

#, fuzzy
msgid "Quit"
msgstr "Verlassen"

msgid ""
"A long message "
"on two lines\n"
msgstr ""
"Eine lange Nachricht "
"auf zwei Zeilen\n"

msgid "Untranslated"
msgstr ""
"""

POLISH_RULE = (
    "nplurals=3; plural=(n==1 ? 0 : n%10>=2 && n%10<=4 && (n%100<10 || n%100>=20) ? 1 : 2);"
)


@pytest.fixture
def german() -> Iterator[i18n.Catalog]:
    catalog = parse("de", GERMAN, "de.po")
    i18n.install(catalog)
    yield catalog
    i18n.install(i18n.ENGLISH)


def test_messages_contexts_plurals_and_continued_lines_translate(german: i18n.Catalog) -> None:
    assert i18n.tr("Study Now") == "Jetzt lernen"
    assert i18n.trp("menu", "Open") == "Öffnen"
    assert i18n.tr("Open") == "Open"  # the context tells the two apart
    assert i18n.trn("{count} card", "{count} cards", 1).format(count=1) == "1 Karte"
    assert i18n.trn("{count} card", "{count} cards", 0).format(count=0) == "0 Karten"
    assert i18n.tr("A long message on two lines\n") == "Eine lange Nachricht auf zwei Zeilen\n"


def test_fuzzy_and_empty_translations_fall_back_to_english(german: i18n.Catalog) -> None:
    assert i18n.tr("Quit") == "Quit"
    assert i18n.tr("Untranslated") == "Untranslated"
    assert i18n.trn("{count} deck", "{count} decks", 3) == "{count} decks"


def test_the_plural_rule_comes_from_the_header() -> None:
    po = (
        f'msgid ""\nmsgstr "Plural-Forms: {POLISH_RULE}\\n"\n\n'
        'msgid "{count} card"\nmsgid_plural "{count} cards"\n'
        'msgstr[0] "{count} karta"\nmsgstr[1] "{count} karty"\nmsgstr[2] "{count} kart"\n'
    )
    catalog = parse("pl", po)
    forms = [catalog.translate_plural("{count} card", "{count} cards", n) for n in (1, 3, 5, 22)]
    assert forms == ["{count} karta", "{count} karty", "{count} kart", "{count} karty"]
    assert catalog.plural_count == 3


@pytest.mark.parametrize(
    ("text", "line", "what"),
    [
        ('msgid "a"\nmsgstr "b"\n"stray"\nbogus "x"\n', 4, "unknown keyword"),
        ('msgid "a\\q"\nmsgstr "b"\n', 1, "unknown escape"),
        ('msgid "a"\nmsgstr b\n', 2, "expected a quoted string"),
        ('"orphan"\n', 1, "a string continues no field"),
    ],
)
def test_a_malformed_catalog_names_its_line(text: str, line: int, what: str) -> None:
    with pytest.raises(CatalogError, match=rf"x.po, line {line}: {what}"):
        parse("xx", text, "x.po")


def test_a_plural_with_the_wrong_number_of_forms_is_refused() -> None:
    po = f'msgid ""\nmsgstr "Plural-Forms: {POLISH_RULE}\\n"\n\n'
    po += 'msgid "one"\nmsgid_plural "many"\nmsgstr[0] "a"\nmsgstr[1] "b"\n'
    with pytest.raises(CatalogError, match="has 2 plural forms, the language has 3"):
        parse("pl", po, "pl.po")


def test_the_environment_is_read_as_gettext_reads_it() -> None:
    assert requested({"LANGUAGE": "de_AT:fr", "LANG": "es_ES.UTF-8"}) == ["de_AT", "fr", "es_ES"]
    assert requested({"LC_ALL": "pt_BR.UTF-8@euro", "LANG": "es_ES"}) == ["pt_BR"]
    assert requested({"LANG": "C"}) == ["en"]
    assert requested({}) == []


def test_the_language_is_the_preference_then_the_environment_then_english() -> None:
    shipped = ["de", "ar"]
    assert choose(None, shipped, {"LANGUAGE": "fr:de_CH"}) == "de"
    assert choose("ar", shipped, {"LANGUAGE": "de"}) == "ar"
    assert choose("fr", shipped, {"LANG": "de_DE.UTF-8"}) == "de"  # not shipped: the next one
    assert choose(None, shipped, {"LANGUAGE": "en_GB:de"}) == "en"  # English asked first
    assert choose(None, shipped, {}) == "en"


def test_right_to_left_languages_are_known() -> None:
    assert right_to_left("ar")
    assert right_to_left("he_IL")
    assert not right_to_left("de")


def test_extraction_finds_every_marking_call_and_refuses_a_computed_message(
    tmp_path: Path,
) -> None:
    package = tmp_path / "recall"
    package.mkdir()
    (package / "a.py").write_text(
        "from recall.core.i18n import mark, tr, trn, trp\n"
        "LABEL = mark('Name')\n"
        "def show(n):\n"
        "    return tr('Study Now'), trp('menu', 'Open'), trn('{n} card', '{n} cards', n)\n"
    )
    found = translations.extract(package)
    assert [(m.context, m.message, m.plural) for m in found.values()] == [
        (None, "Name", None),
        (None, "Study Now", None),
        ("menu", "Open", None),
        (None, "{n} card", "{n} cards"),
    ]
    assert found[None, "Name"].places == ["recall/a.py:2"]
    (package / "b.py").write_text("def bad(name):\n    return tr(f'Hello {name}')\n")
    with pytest.raises(translations.MarkingError, match=r"recall/b.py:2: the message of"):
        translations.extract(package)


def test_a_catalog_is_checked_for_missing_translations_and_placeholders(tmp_path: Path) -> None:
    package = tmp_path / "recall"
    package.mkdir()
    (package / "a.py").write_text(
        "tr('Delete {name}?')\ntr('Study Now')\ntrn('{count} card', '{count} cards', 2)\n"
    )
    messages = translations.extract(package)
    template = translations.template(messages.values())
    assert translations.problems(messages, template, "de") == [
        "de: 'Delete {name}?' (recall/a.py:1) has no translation",
        "de: 'Study Now' (recall/a.py:2) has no translation",
        "de: '{count} card' (recall/a.py:3) has no translation",
    ]
    po = (
        template.replace(
            'msgid "Delete {name}?"\nmsgstr ""', 'msgid "Delete {name}?"\nmsgstr "{deck} löschen?"'
        )
        .replace('msgid "Study Now"\nmsgstr ""', 'msgid "Study Now"\nmsgstr "Jetzt lernen"')
        .replace(
            'msgstr[0] ""\nmsgstr[1] ""', 'msgstr[0] "{count} Karte"\nmsgstr[1] "{count} Karten"'
        )
    )
    found = translations.problems(messages, po, "de")
    assert len(found) == 1
    assert "placeholders ['deck'], the message ['name']" in found[0]


def test_an_update_keeps_translations_adds_new_messages_and_keeps_dropped_ones(
    tmp_path: Path,
) -> None:
    package = tmp_path / "recall"
    package.mkdir()
    (package / "a.py").write_text("tr('Study Now')\ntr('Quit')\n")
    old = (
        'msgid ""\nmsgstr ""\n\n'
        'msgid "Study Now"\nmsgstr "Jetzt lernen"\n\n'
        'msgid "Gone"\nmsgstr "Weg"\n'
    )
    updated = translations.update(translations.extract(package), old, 2)
    catalog = parse("de", updated)
    assert catalog.translate(None, "Study Now") == "Jetzt lernen"
    assert (None, "Quit") in catalog.messages
    assert '#~ msgid "Gone"' in updated
    assert (None, "Gone") not in catalog.messages
