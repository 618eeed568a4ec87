"""Whether an SVG image from a package is safe to show: self-contained, small and shallow.

An SVG is a document, not pixels: it can point at other files, declare entities, or nest
without end. Recall keeps only SVGs that reference nothing outside themselves (every
``href`` is a ``#fragment``, every ``url()`` too, no ``@import``), declare no DTD or
entities, hold no scripts or foreign content, stay under 1 MiB and nest at most 64 deep.
"""

from __future__ import annotations

import re

from recall.core.i18n import tr

MAX_SVG_BYTES = 1024**2
MAX_DEPTH = 64
_FORBIDDEN = re.compile(r"<!DOCTYPE|<!ENTITY|<script\b|<foreignObject\b|@import", re.IGNORECASE)
_REFERENCE = re.compile(r"""\bhref\s*=\s*(["'])(.*?)\1""", re.IGNORECASE | re.DOTALL)
_URL = re.compile(r"\burl\s*\(\s*['\"]?\s*([^)'\"\s]*)", re.IGNORECASE)
_TAG = re.compile(r"<(/?)([A-Za-z][^\s/>]*)[^>]*?(/?)>")


def svg_problem(data: bytes) -> str | None:
    """Why an SVG will not be shown, or None when it is safe to show."""
    if len(data) > MAX_SVG_BYTES:
        return tr("an SVG of {count} bytes (at most 1 MiB)").format(count=f"{len(data):,}")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return "an SVG that is not UTF-8 text"
    if "<svg" not in text:
        return tr("not an SVG image")
    if _FORBIDDEN.search(text):
        return "an SVG with a DTD, entities, scripts or imports"
    references = [match.group(2).strip() for match in _REFERENCE.finditer(text)]
    references += [match.group(1) for match in _URL.finditer(text)]
    if any(not reference.startswith("#") for reference in references):
        return "an SVG that refers to other files"
    depth = 0
    for closing, _name, self_closing in _TAG.findall(text):
        if closing:
            depth -= 1
        elif not self_closing:
            depth += 1
            if depth > MAX_DEPTH:
                return tr("an SVG nested more than {most} deep").format(most=MAX_DEPTH)
    return None
