"""Taking out what an Anki card hides with styles, before the sanitizer drops the styles.

Templates hide text the card does not show yet (an answer kept for a script, an image
occlusion's shapes) with ``style="display: none"``, a ``hidden`` attribute, or a class
the note type's CSS hides. The sanitizer removes styles and classes, which would bring
that text onto the card, the answer onto its front even; so hidden elements go first,
with their content. One pass over the tags with a stack of names: time in proportion to
the HTML, whatever its nesting. An element left open stays hidden to the end.
"""

from __future__ import annotations

import re

from recall.content.card_limits import VOID_ELEMENTS

_TAG = re.compile(r"<(/?)([a-zA-Z][^\t\n\f\r />]*)([^>]*)>")
_HIDING_STYLE = re.compile(r"display\s*:\s*none|visibility\s*:\s*hidden", re.IGNORECASE)
_HIDDEN_ATTRIBUTE = re.compile(r"(?:^|\s)hidden(?:\s|=|/|$)", re.IGNORECASE)
_STYLE_ATTRIBUTE = re.compile(r"""style\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))""", re.I)
_CLASS_ATTRIBUTE = re.compile(r"""class\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))""", re.I)
_CLASS_SELECTOR = re.compile(r"^\.([\w-]+)$")
# What a tag holds if it may hide anything without a hidden class (``without_hidden``).
_MAY_HIDE = re.compile(r"style|class|hidden", re.IGNORECASE)


def css_rules(css: str) -> list[tuple[str, str]]:
    """A style sheet's rules without nested blocks, as (selectors, declarations), in order.

    One pass over the text (a regular expression over a sheet without braces would try
    every position against the rest: minutes for a few hundred kilobytes). A rule whose
    selectors hold a brace of their own, or that is left open, is not a rule.
    """
    rules: list[tuple[str, str]] = []
    for chunk in css.split("}"):
        selectors, brace, body = chunk.rpartition("{")
        if brace and selectors.strip() and "{" not in selectors:
            rules.append((selectors, body))
    return rules


def hidden_classes(css: str) -> frozenset[str]:
    """The classes a note type's CSS hides outright (rules like ``.answer { display: none }``)."""
    hidden: set[str] = set()
    for selectors, body in css_rules(css):
        if not _HIDING_STYLE.search(body):
            continue
        for selector in selectors.split(","):
            match = _CLASS_SELECTOR.match(selector.strip())
            if match:
                hidden.add(match.group(1))
    return frozenset(hidden)


def _value(pattern: re.Pattern[str], attributes: str) -> str:
    match = pattern.search(attributes)
    if match is None:
        return ""
    return next((group for group in match.groups() if group is not None), "")


def _hides(attributes: str, classes: frozenset[str]) -> bool:
    if _HIDING_STYLE.search(_value(_STYLE_ATTRIBUTE, attributes)):
        return True
    if classes and classes.intersection(_value(_CLASS_ATTRIBUTE, attributes).split()):
        return True
    without_values = _STYLE_ATTRIBUTE.sub("", _CLASS_ATTRIBUTE.sub("", attributes))
    return _HIDDEN_ATTRIBUTE.search(without_values) is not None


def without_hidden(fragment: str, classes: frozenset[str] = frozenset()) -> str:
    """``fragment`` without the elements it hides (and everything inside them).

    Without a tag, or without hidden classes and without the words "style", "class" and
    "hidden" in any case, nothing is hidden and the fragment comes back with no pass over
    its tags: every match of ``_STYLE_ATTRIBUTE`` holds "style" and of
    ``_CLASS_ATTRIBUTE`` "class" (read with the same case rules as ``_MAY_HIDE``), so no
    tag has a style to test and taking those attributes out changes nothing, and
    ``_HIDDEN_ATTRIBUTE`` then needs "hidden" in the tag itself.
    """
    if "<" not in fragment:
        return fragment
    if not classes and _MAY_HIDE.search(fragment) is None:
        return fragment
    pieces: list[str] = []
    position = 0
    hidden_name: str | None = None
    depth = 0  # elements of ``hidden_name`` open inside the hidden one
    for match in _TAG.finditer(fragment):
        closing, name, attributes = match.group(1), match.group(2).lower(), match.group(3)
        if hidden_name is not None:
            if name == hidden_name and name not in VOID_ELEMENTS:
                depth += -1 if closing else 1
                if depth == 0:
                    hidden_name = None
                    position = match.end()
            continue
        if closing or not _hides(attributes, classes):
            continue
        pieces.append(fragment[position : match.start()])
        position = match.end()
        if name not in VOID_ELEMENTS and not attributes.rstrip().endswith("/"):
            hidden_name, depth = name, 1  # an element with content: up to its end tag
    if hidden_name is None:
        pieces.append(fragment[position:])
    return "".join(pieces)
