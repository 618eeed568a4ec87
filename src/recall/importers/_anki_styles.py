"""A note type's CSS, applied to its cards as inline styles Qt's rich text can show.

Anki lays a card out in a web view with its note type's style sheet; Recall's card view is
Qt's rich text, which reads inline ``style`` attributes but no style sheet a card brings.
So when a card is rendered (at import, and again from its stored note when it is shown,
``anki_notes``) each element gets the declarations of the rules that select it, in the
cascade's order (element rules, then class rules, later ones over earlier, the element's
own ``style`` last), and the sanitizer keeps what it may (``card_html.STYLE_PROPERTIES``):
colours, fonts, sizes, alignment. Selectors read: an element, classes (``.hint``,
``span.hint``, ``.a.b``) and those inside ``.card``; ids, attributes, pseudo-classes and
other combinators are not read, nor are at-rules (``@media``, ``@font-face``, ``@import``)
or night-mode rules (Recall keeps its own light and dark look).

The ``.card`` rule styles the whole side, without its colours and font size: those are
the learner's theme and text size in Recall, as night mode and zoom override them in Anki.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from recall.content.card_html import STYLE_PROPERTIES
from recall.importers._hidden_html import css_rules

_COMMENT = re.compile(r"/\*.*?\*/", re.DOTALL)
_COMPOUND = re.compile(r"^([a-zA-Z][\w-]*)?((?:\.[\w-]+)*)$")
_TAG = re.compile(r"<([a-zA-Z][^\t\n\f\r />]*)([^>]*)>")
_CLASS_ATTRIBUTE = re.compile(r"""\sclass\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))""", re.I)
_STYLE_ATTRIBUTE = re.compile(r"""\sstyle\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))""", re.I)
_HIDING = re.compile(r"display:none|visibility:hidden", re.IGNORECASE)
_NIGHT = re.compile(r"night[_-]?mode", re.IGNORECASE)
# The .card rule's declarations that are the learner's in Recall (theme and text size).
_THEIRS = frozenset({"color", "background-color", "font-size"})
# Read this far into a style sheet; the rest is left out (a note type's CSS is small).
MAX_CSS_CHARS = 200_000


@dataclass(frozen=True)
class Rule:
    """One selector of a rule, with what it declares.

    Attributes:
        tag: The element it selects, or None for any.
        classes: The classes an element must have.
        order: Its place in the style sheet (later wins at equal specificity).
        declarations: The declarations Recall can show, as (property, value).
    """

    tag: str | None
    classes: frozenset[str]
    order: int
    declarations: tuple[tuple[str, str], ...]

    @property
    def specificity(self) -> tuple[int, int, int]:
        return (len(self.classes), int(self.tag is not None), self.order)


@dataclass(frozen=True)
class StyleSheet:
    """What of a note type's CSS Recall applies, and what it leaves out.

    Attributes:
        rules: The element and class rules, in the order they cascade.
        card: The ``.card`` rule's declarations (for the whole side).
        left_out: The properties of rules Recall reads that it does not show (layout,
            borders, positions), and the selectors it does not read, for the report.
    """

    rules: tuple[Rule, ...] = ()
    card: tuple[tuple[str, str], ...] = ()
    left_out: frozenset[str] = frozenset()

    @property
    def empty(self) -> bool:
        return not self.rules and not self.card


def parse(css: str) -> StyleSheet:
    """The rules of a note type's CSS that Recall applies."""
    text = _without_at_rules(_COMMENT.sub("", css[:MAX_CSS_CHARS]))
    rules: list[Rule] = []
    card: dict[str, str] = {}
    left_out: set[str] = set()
    for order, (selectors, body) in enumerate(css_rules(text)):
        shown, dropped = _declarations(body)
        for selector in selectors.split(","):
            selector = " ".join(selector.split())
            if not selector or _NIGHT.search(selector):
                continue
            parts = selector.split(" ")
            if any(part != ".card" for part in parts[:-1]) or not _COMPOUND.match(parts[-1]):
                left_out.add(f"selector {selector}")
                continue
            found = _COMPOUND.match(parts[-1])
            assert found is not None
            tag = found.group(1).lower() if found.group(1) else None
            classes = frozenset(name for name in found.group(2).split(".") if name)
            if tag is None and classes == {"card"} and len(parts) == 1:
                card.update((name, value) for name, value in shown if name not in _THEIRS)
                left_out.update(dropped - _THEIRS)
                continue
            left_out.update(dropped)
            if shown:
                rules.append(Rule(tag, classes, order, shown))
    rules.sort(key=lambda rule: rule.specificity)
    return StyleSheet(tuple(rules), tuple(card.items()), frozenset(left_out))


def apply(fragment: str, sheet: StyleSheet) -> str:
    """``fragment`` with each element's styles from ``sheet`` inline, and the ``.card``
    rule's on a ``div`` around it all."""
    if sheet.empty or not fragment:
        return fragment
    styled = _TAG.sub(lambda found: _styled_tag(found, sheet.rules), fragment)
    if sheet.card:
        return f'<div style="{_style(sheet.card)}">{styled}</div>'
    return styled


def _styled_tag(found: re.Match[str], rules: tuple[Rule, ...]) -> str:
    name, attributes = found.group(1).lower(), found.group(2)
    classes = frozenset(_value(_CLASS_ATTRIBUTE, attributes).split())
    declarations: dict[str, str] = {}
    for rule in rules:
        if (rule.tag is None or rule.tag == name) and rule.classes <= classes:
            declarations.update(rule.declarations)
    if not declarations:
        return found.group(0)
    own = _value(_STYLE_ATTRIBUTE, attributes)
    style = "; ".join(filter(None, (_style(tuple(declarations.items())), own.strip())))
    rest = _STYLE_ATTRIBUTE.sub("", attributes)
    closing = "/" if rest.rstrip().endswith("/") else ""
    rest = rest.rstrip().removesuffix("/")
    return f'<{found.group(1)}{rest} style="{style}"{closing}>'


def _declarations(body: str) -> tuple[tuple[tuple[str, str], ...], set[str]]:
    shown: list[tuple[str, str]] = []
    dropped: set[str] = set()
    for declaration in body.split(";"):
        name, colon, value = declaration.partition(":")
        name = name.strip().lower()
        value = re.sub(r"\s*!important\s*$", "", value.strip(), flags=re.IGNORECASE)
        if not colon or not name or not value:
            continue
        if _HIDING.fullmatch(f"{name}:{value.replace(' ', '')}"):
            continue  # what the CSS hides is taken out before (``_hidden_html``)
        if name in STYLE_PROPERTIES and "<" not in value:
            shown.append((name, value.replace('"', "'")))  # inside a double-quoted attribute
        else:
            dropped.add(name)
    return tuple(shown), dropped


def _style(declarations: tuple[tuple[str, str], ...]) -> str:
    return "; ".join(f"{name}: {value}" for name, value in declarations)


def _value(pattern: re.Pattern[str], attributes: str) -> str:
    found = pattern.search(attributes)
    if found is None:
        return ""
    return next((group for group in found.groups() if group is not None), "")


def _without_at_rules(css: str) -> str:
    """``css`` without its at-rules: ``@import …;`` and ``@media … { … }`` blocks, nested
    braces and all."""
    out: list[str] = []
    position = 0
    # The next "{" and ";" at or after an at-rule's start, each looked for again only once
    # passed, so the text is read once however many at-signs it holds.
    brace = semicolon = -1
    while (start := css.find("@", position)) != -1:
        out.append(css[position:start])
        if brace < start:
            brace = css.find("{", start)
        if brace == -1:
            return "".join(out)  # no block after it: nothing from here on can be a rule
        if semicolon < start:
            semicolon = css.find(";", start)
        if semicolon != -1 and semicolon < brace:
            position = semicolon + 1  # ``@import …;``: up to its semicolon
            continue
        depth, index = 0, brace
        while index < len(css):
            if css[index] == "{":
                depth += 1
            elif css[index] == "}":
                depth -= 1
                if depth == 0:
                    break
            index += 1
        position = index + 1
    out.append(css[position:])
    return "".join(out)
