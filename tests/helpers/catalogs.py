"""A language installed for one test: a catalog of a few messages, English again after."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager

from recall.core import i18n

Translations = Mapping[str | tuple[str, str], str | tuple[str, ...]]


@contextmanager
def installed(translations: Translations, language: str = "de") -> Iterator[i18n.Catalog]:
    """Show ``translations`` (message, or (context, message), to its forms) while inside."""
    messages: dict[tuple[str | None, str], tuple[str, ...]] = {}
    for key, forms in translations.items():
        context, message = key if isinstance(key, tuple) else (None, key)
        messages[context, message] = (forms,) if isinstance(forms, str) else tuple(forms)
    catalog = i18n.Catalog(language, messages)
    i18n.install(catalog)
    try:
        yield catalog
    finally:
        i18n.install(i18n.ENGLISH)
