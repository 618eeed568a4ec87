"""The learner's language: which catalog applies, and the calls that translate through it.

Every user-facing string is marked where it is written: ``tr("Study Now")`` for a message,
``trn("{count} card", "{count} cards", count)`` for one with plural forms, ``trp(context,
message)`` where one English word needs two translations, and ``mark("…")`` for a string
defined at import time (an option's label) that is translated where it is shown. The window,
the command line and the core share these calls and one catalog per language, so the core
stays free of Qt and a translator works on one file.

Catalogs are gettext ``.po`` files in ``recall/resources/locale/``, read when the language is
installed: no compile step, no generated binary in the source tree. English is the source
language: a message without a translation shows in English.
"""

from __future__ import annotations

import gettext
import os
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from importlib.resources import files
from importlib.resources.abc import Traversable

SOURCE_LANGUAGE = "en"
# Languages written right to left: the window mirrors its layout for them.
_RIGHT_TO_LEFT = frozenset({"ar", "dv", "fa", "he", "ks", "ps", "sd", "ug", "ur", "yi"})
# Languages that write 1.234,5 for English's 1,234.5.
_COMMA_DECIMALS = frozenset({"da", "de", "es", "id", "it", "nl", "pt"})
# gettext's order: LANGUAGE (a colon-separated list) first, then the locale categories.
_ENVIRONMENT = ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG")
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", '"': '"', "\\": "\\"}
_ESCAPE = re.compile(r"\\(.)")
_PLURAL_FORMS = re.compile(r"nplurals\s*=\s*(\d+)\s*;\s*plural\s*=\s*([^;]+);?")


class CatalogError(ValueError):
    """A catalog file is not a well-formed ``.po`` file; the message names the line."""


@dataclass(frozen=True)
class Catalog:
    """One language's translations.

    Attributes:
        language: The language code the catalog is for (``de``, ``pt_BR``).
        messages: Each (context, message) with its translated forms: one for a message,
            as many as the language has plural forms for a message with a plural.
        plural: The language's plural rule: the index of the form for a count.
        plural_count: How many plural forms the language has.
    """

    language: str
    messages: Mapping[tuple[str | None, str], tuple[str, ...]] = field(default_factory=dict)
    plural: Callable[[int], int] = field(default=lambda count: int(count != 1))
    plural_count: int = 2

    def translate(self, context: str | None, message: str) -> str:
        """The translation of ``message``, or ``message`` itself when it has none."""
        forms = self.messages.get((context, message))
        return forms[0] if forms and forms[0] else message

    def translate_plural(self, singular: str, plural: str, count: int) -> str:
        """The form of a message with plural forms that ``count`` takes."""
        forms = self.messages.get((None, singular))
        if forms:
            index = self.plural(count)
            if 0 <= index < len(forms) and forms[index]:
                return forms[index]
        return singular if count == 1 else plural


ENGLISH = Catalog(SOURCE_LANGUAGE)
_active: Catalog = ENGLISH


def tr(message: str) -> str:
    """``message`` in the learner's language."""
    return _active.translate(None, message)


def trp(context: str, message: str) -> str:
    """``message`` in the learner's language, where ``context`` tells two meanings apart."""
    return _active.translate(context, message)


def trn(singular: str, plural: str, count: int) -> str:
    """The form of a message for ``count`` in the learner's language (not yet formatted:
    the caller fills in ``{count}`` and the rest with ``str.format``)."""
    return _active.translate_plural(singular, plural, count)


def number(value: int) -> str:
    """A whole number with the thousands separator of the learner's language: 1,204 in
    English, 1.204 in German."""
    return _marks(f"{value:,}")


def decimal(value: float, digits: int = 1) -> str:
    """A number with ``digits`` decimals in the learner's marks: 1,234.5 or 1.234,5."""
    return _marks(f"{value:,.{digits}f}")


def _marks(english: str) -> str:
    """An English-formatted number with the learner's thousands separator and decimal mark."""
    if _base(_active.language) not in _COMMA_DECIMALS:
        return english
    return english.translate({ord(","): ".", ord("."): ","})


def mark(message: str) -> str:
    """Mark a string defined at import time for translation; ``tr`` translates it where it
    is shown (the language is installed after modules are imported)."""
    return message


def active() -> Catalog:
    """The catalog in use."""
    return _active


def install(catalog: Catalog) -> None:
    """Use ``catalog`` for every message from now on (once, at start: text already shown
    stays as it was)."""
    global _active
    _active = catalog


def right_to_left(language: str) -> bool:
    """Whether ``language`` is written right to left."""
    return _base(language) in _RIGHT_TO_LEFT


def shipped(folder: Traversable | None = None) -> dict[str, Traversable]:
    """The catalogs Recall ships, by language code."""
    folder = folder or files("recall.resources") / "locale"
    if not folder.is_dir():
        return {}
    return {
        entry.name.removesuffix(".po"): entry
        for entry in folder.iterdir()
        if entry.name.endswith(".po") and entry.is_file()
    }


def requested(environ: Mapping[str, str] | None = None) -> list[str]:
    """The languages the environment asks for, most wanted first, as gettext reads them.

    ``LANGUAGE`` may list several (``de:fr``); the first of ``LC_ALL``, ``LC_MESSAGES`` and
    ``LANG`` that is set names one more. ``C`` and ``POSIX`` mean English.
    """
    environ = os.environ if environ is None else environ
    wanted: list[str] = []
    for name in _ENVIRONMENT:
        value = environ.get(name, "")
        if not value:
            continue
        for item in value.split(":") if name == "LANGUAGE" else [value]:
            code = _normalise(item)
            if code and code not in wanted:
                wanted.append(code)
        if name != "LANGUAGE":
            break  # only the first locale category that is set counts
    return wanted


def choose(
    preference: str | None, available: Iterable[str], environ: Mapping[str, str] | None = None
) -> str:
    """The language to show: the learner's preference if Recall ships it, else the first
    language the environment asks for that Recall ships (``de_AT`` finds ``de``), else English.

    Args:
        preference: The language chosen in Preferences; None or empty means "as the
            system says".
        available: The languages with a shipped catalog.
        environ: The environment to read (the process's by default).
    """
    shipped_codes = set(available)
    candidates = [_normalise(preference)] if preference else []
    candidates += requested(environ)
    for code in candidates:
        if code == SOURCE_LANGUAGE or _base(code) == SOURCE_LANGUAGE:
            return SOURCE_LANGUAGE
        for form in (code, _base(code)):
            if form in shipped_codes:
                return form
    return SOURCE_LANGUAGE


def load(language: str, folder: Traversable | None = None) -> Catalog:
    """The catalog of ``language`` (English, which needs none, when it is not shipped).

    Raises:
        CatalogError: The shipped file is malformed (a build that ships it is broken).
    """
    if language == SOURCE_LANGUAGE:
        return ENGLISH
    entry = shipped(folder).get(language)
    if entry is None:
        return ENGLISH
    return parse(language, entry.read_text(encoding="utf-8"), entry.name)


def start(
    preference: str | None = None,
    environ: Mapping[str, str] | None = None,
    folder: Traversable | None = None,
) -> str:
    """Choose the language (``choose``), install its catalog and return its code.

    Args:
        preference: The language chosen in Preferences, or None for the system's.
        environ: The environment to read (the process's by default).
        folder: Where the catalogs are (the package's ``resources/locale`` by default).
    """
    catalogs = shipped(folder)
    language = choose(preference, catalogs, environ)
    install(load(language, folder))
    return language


@dataclass
class _Entry:
    context: str | None = None
    message: str | None = None
    plural: str | None = None
    forms: dict[int, str] = field(default_factory=dict)
    fuzzy: bool = False
    line: int = 0


def parse(language: str, text: str, name: str = "catalog") -> Catalog:
    """A catalog from the text of a ``.po`` file.

    Fuzzy entries (translations a translator has not confirmed) are left out, as gettext's
    ``msgfmt`` leaves them out. The header's ``Plural-Forms`` gives the plural rule.

    Raises:
        CatalogError: The text is not a well-formed ``.po`` file, with the line that is not.
    """
    entries: list[_Entry] = []
    entry = _Entry()
    target: tuple[str, int] | None = None  # the field continued strings append to
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line:
            continue
        if line.startswith("#"):
            if target is not None:
                entries.append(entry)
                entry, target = _Entry(), None
            if line.startswith("#,") and "fuzzy" in {flag.strip() for flag in line[2:].split(",")}:
                entry.fuzzy = True
            continue
        if line.startswith('"'):
            if target is None:
                raise CatalogError(f"{name}, line {number}: a string continues no field")
            _append(entry, target, _string(line, name, number))
            continue
        keyword, _, rest = line.partition(" ")
        value = _string(rest.strip(), name, number)
        if keyword in ("msgctxt", "msgid") and target is not None and target[0] != "msgctxt":
            entries.append(entry)
            entry = _Entry()
        if keyword == "msgctxt":
            entry.context, entry.line, target = value, number, ("msgctxt", 0)
        elif keyword == "msgid":
            entry.message, target = value, ("msgid", 0)
            entry.line = entry.line or number
        elif keyword == "msgid_plural":
            entry.plural, target = value, ("msgid_plural", 0)
        elif keyword == "msgstr":
            entry.forms[0], target = value, ("msgstr", 0)
        elif keyword.startswith("msgstr[") and keyword.endswith("]") and keyword[7:-1].isdigit():
            index = int(keyword[7:-1])
            entry.forms[index], target = value, ("msgstr", index)
        else:
            raise CatalogError(f"{name}, line {number}: unknown keyword {keyword!r}")
    if target is not None:
        entries.append(entry)
    return _catalog(language, entries, name)


def _catalog(language: str, entries: list[_Entry], name: str) -> Catalog:
    messages: dict[tuple[str | None, str], tuple[str, ...]] = {}
    plural: Callable[[int], int] = ENGLISH.plural
    plural_count = 2
    for entry in entries:
        if entry.message is None:
            raise CatalogError(f"{name}, line {entry.line}: an entry without its msgid")
        if not entry.forms:
            raise CatalogError(f"{name}, line {entry.line}: {entry.message!r} has no msgstr")
        if entry.message == "" and entry.context is None:
            plural, plural_count = _plural_rule(entry.forms.get(0, ""), name, entry.line)
            continue
        if entry.fuzzy:
            continue
        count = max(entry.forms) + 1
        forms = tuple(entry.forms.get(index, "") for index in range(count))
        messages[entry.context, entry.message] = forms
    for (_, message), forms in messages.items():
        if len(forms) > 1 and len(forms) != plural_count:
            raise CatalogError(
                f"{name}: {message!r} has {len(forms)} plural forms, the language has "
                f"{plural_count}"
            )
    return Catalog(language, messages, plural, plural_count)


def _plural_rule(header: str, name: str, line: int) -> tuple[Callable[[int], int], int]:
    for header_line in header.splitlines():
        key, _, value = header_line.partition(":")
        if key.strip().lower() != "plural-forms":
            continue
        found = _PLURAL_FORMS.search(value)
        if found is None:
            raise CatalogError(f"{name}, line {line}: Plural-Forms is not understood: {value!r}")
        try:
            rule = gettext.c2py(found.group(2).strip())
        except ValueError as error:
            raise CatalogError(f"{name}, line {line}: Plural-Forms: {error}") from None
        return rule, int(found.group(1))
    return ENGLISH.plural, 2


def _append(entry: _Entry, target: tuple[str, int], value: str) -> None:
    what, index = target
    if what == "msgctxt":
        entry.context = (entry.context or "") + value
    elif what == "msgid":
        entry.message = (entry.message or "") + value
    elif what == "msgid_plural":
        entry.plural = (entry.plural or "") + value
    else:
        entry.forms[index] = entry.forms.get(index, "") + value


def _string(token: str, name: str, number: int) -> str:
    if len(token) < 2 or not token.startswith('"') or not token.endswith('"'):
        raise CatalogError(f"{name}, line {number}: expected a quoted string, got {token!r}")
    body = token[1:-1]

    def unescape(found: re.Match[str]) -> str:
        escaped = _ESCAPES.get(found.group(1))
        if escaped is None:
            raise CatalogError(f"{name}, line {number}: unknown escape \\{found.group(1)}")
        return escaped

    return _ESCAPE.sub(unescape, body)


def _normalise(code: str | None) -> str:
    """``de_DE.UTF-8@euro`` as ``de_DE``; ``C`` and ``POSIX`` as English."""
    if not code:
        return ""
    code = code.split(".", 1)[0].split("@", 1)[0].replace("-", "_").strip()
    if code in ("C", "POSIX"):
        return SOURCE_LANGUAGE
    language, _, region = code.partition("_")
    return f"{language.lower()}_{region.upper()}" if region else language.lower()


def _base(code: str) -> str:
    return code.partition("_")[0]
