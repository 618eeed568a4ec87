"""Anki's card template language: parse a template once, render it for a note's card.

Templates hold ``{{Field}}`` replacements with filters (``{{text:hint:Field}}``, applied
from the field outwards), ``{{#Field}}...{{/Field}}`` and ``{{^Field}}...{{/Field}}``
sections, ``{{FrontSide}}`` on the answer, and HTML comments that are kept as written. A
template that does not parse renders as Anki's error message does, naming the problem. A
standard card whose question template names no non-empty field is no card at all
(``renders_with_fields``), as in Anki.

Rendering is pure: no media is looked up, nothing is sanitized here. Hints and type-in
answers are not HTML Recall can show as Anki does (a script link, a text box), so a render
hands them back beside the HTML: the importer turns them into a hint button and a typing
box. ``{{tts ...:Field}}`` renders as Anki's speech marker (``content.speech``), which the
review reads aloud; its text is handed back too.
Sections may nest without bound: parsing and rendering use explicit stacks.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field

from recall.content import speech

ClozeRenderer = Callable[[str, int, bool], str]
"""(field text, cloze number, question side) -> the field as that side of the card shows it."""

SPECIAL_FIELDS = ("FrontSide", "Tags", "Type", "Deck", "Subdeck", "Card", "CardFlag", "CardID")
_EMPTY_FIELD = re.compile(r"^(?:\s|</?(?:br|div) ?/?>)*$", re.IGNORECASE | re.DOTALL)
_HANDLEBAR = re.compile(r"\{\{(.*?)\}\}|<!--(.*?)-->", re.DOTALL)
_ALT_HANDLEBAR = re.compile(r"<%(.*?)%>|<!--(.*?)-->", re.DOTALL)
_ALT_DIRECTIVE = "{{=<% %>=}}"
_CLOZE_CONDITIONAL = re.compile(r"^c\d+$")
_FURIGANA = re.compile(r" ?([^ >]+?)\[(.+?)\]")
_TAGS = re.compile(r"<[^>]*>", re.DOTALL)
_DROPPED_WITH_CONTENT = re.compile(
    r"<(style|script)\b[^>]*>.*?</\1\s*>|<!--.*?-->", re.IGNORECASE | re.DOTALL
)


@dataclass(frozen=True)
class Text:
    """Template text outside any handlebars, kept as written."""

    text: str


@dataclass(frozen=True)
class Replacement:
    """``{{filter2:filter1:Field}}``: the field and its filters, innermost first."""

    key: str
    filters: tuple[str, ...]


@dataclass
class Section:
    """``{{#Field}}`` (or ``{{^Field}}`` when negated) with what it holds up to ``{{/Field}}``."""

    key: str
    negated: bool
    children: list[Node] = field(default_factory=list)


Node = Text | Replacement | Section


@dataclass(frozen=True)
class Template:
    """A parsed template: its nodes, or the error Anki would show instead of the card."""

    nodes: tuple[Node, ...]
    error: str | None = None


@dataclass(frozen=True)
class Hint:
    """A ``{{hint:Field}}``: the link's label (the field's name) and the hidden text (HTML)."""

    label: str
    text: str


@dataclass(frozen=True)
class RenderedSide:
    """One side of a card as rendered.

    Attributes:
        html: The side's HTML (unsanitized), without hints and type-in boxes.
        hints: The hints the side offers behind a link, in order.
        type_field: The field a ``{{type:Field}}`` asks the learner to type, if any.
        type_cloze: Whether the box asks for the card's cloze deletion (``type:cloze:``).
        speech: The texts ``{{tts}}`` reads aloud (also in ``html`` as speech markers).
        problem: Why the template could not be rendered (the HTML then says so), or None.
    """

    html: str
    hints: tuple[Hint, ...] = ()
    type_field: str | None = None
    type_cloze: bool = False
    speech: tuple[str, ...] = ()
    problem: str | None = None


@dataclass(frozen=True)
class RenderedCard:
    """A card's question and answer, or ``empty`` when Anki would make no such card."""

    question: RenderedSide
    answer: RenderedSide
    empty: bool


def parse(template: str) -> Template:
    """Parse a template; a syntax error is kept as the message the card then shows."""
    pattern = _HANDLEBAR
    if template.lstrip().startswith(_ALT_DIRECTIVE):
        template = template.lstrip()[len(_ALT_DIRECTIVE) :]
        pattern = _ALT_HANDLEBAR
    root: list[Node] = []
    open_sections: list[Section] = []

    def target() -> list[Node]:
        return open_sections[-1].children if open_sections else root

    position = 0
    for match in pattern.finditer(template):
        if match.start() > position:
            target().append(Text(template[position : match.start()]))
        position = match.end()
        if match.group(2) is not None:  # a comment, kept as it is
            target().append(Text(match.group(0)))
            continue
        inner = match.group(1).lstrip("{").strip()
        sign = inner[:1] if len(inner) >= 2 else ""
        if sign in ("#", "^"):
            section = Section(inner[1:].strip(), sign == "^")
            target().append(section)
            open_sections.append(section)
        elif sign == "/":
            key = inner[1:].strip()
            if not open_sections:
                return Template((), f"Found '{{{{/{key}}}}}', but it was not opened.")
            if open_sections[-1].key != key:
                current = open_sections[-1].key
                return Template((), f"Found '{{{{/{key}}}}}', but expected '{{{{/{current}}}}}'.")
            open_sections.pop()
        else:
            *filters, key = inner.split(":")
            target().append(Replacement(key, tuple(reversed(filters))))
    if position < len(template):
        target().append(Text(template[position:]))
    if open_sections:
        return Template((), f"Missing '{{{{/{open_sections[-1].key}}}}}'.")
    return Template(tuple(root))


def field_is_empty(text: str) -> bool:
    """Whether a field counts as empty: only whitespace, ``<br>`` and ``<div>`` tags."""
    if "<" not in text:
        return not text.strip()
    return _EMPTY_FIELD.match(text) is not None


def nonempty_fields(fields: Mapping[str, str]) -> set[str]:
    """The names of the fields that are not empty (``field_is_empty``)."""
    return {name for name, text in fields.items() if not field_is_empty(text)}


def strip_html(text: str) -> str:
    """The ``text:`` filter: tags, styles and scripts gone, entities decoded."""
    return html.unescape(_TAGS.sub("", _DROPPED_WITH_CONTENT.sub("", text)))


def renders_with_fields(template: Template, nonempty: set[str]) -> bool:
    """Whether a question template shows any of the non-empty fields (Anki's card rule)."""
    pending: list[tuple[Node, ...] | list[Node]] = [template.nodes]
    while pending:
        for node in pending.pop():
            if isinstance(node, Replacement) and node.key in nonempty:
                return True
            if isinstance(node, Section) and (node.key in nonempty) != node.negated:
                pending.append(node.children)
    return False


def _furigana(text: str, part: int | None) -> str:
    def replace(match: re.Match[str]) -> str:
        if match.group(2).startswith("sound:"):
            return match.group(0)
        if part is not None:
            return match.group(part)
        return f"<ruby><rb>{match.group(1)}</rb><rt>{match.group(2)}</rt></ruby>"

    return _FURIGANA.sub(replace, text.replace("&nbsp;", " "))


class _Renderer:
    """One side being rendered, gathering its hints, type-in field and speech."""

    def __init__(
        self,
        fields: Mapping[str, str],
        card_ord: int,
        front_side: str | None,
        cloze: ClozeRenderer | None,
        nonempty: set[str] | None = None,
    ) -> None:
        self.fields = fields
        self.nonempty = nonempty_fields(fields) if nonempty is None else nonempty
        self.card_ord = card_ord
        self.front_side = front_side
        self.cloze = cloze
        self.hints: list[Hint] = []
        self.type_field: str | None = None
        self.type_cloze = False
        self.speech: list[str] = []

    def side(self, template: Template) -> RenderedSide:
        if template.error is not None:
            side = "front" if self.front_side is None else "back"
            message = f"The {side} of this card's template has a problem: {template.error}"
            return RenderedSide(html.escape(message), problem=template.error)
        parts: list[str] = []
        stack: list[Iterator[Node]] = [iter(template.nodes)]
        while stack:
            node = next(stack[-1], None)
            if node is None:
                stack.pop()
            elif isinstance(node, Text):
                parts.append(node.text)
            elif isinstance(node, Section):
                known = node.key in self.fields or _CLOZE_CONDITIONAL.match(node.key)
                if node.key not in self.nonempty and not known:
                    sign = "^" if node.negated else "#"
                    return self._missing(f"{{{{{sign}{node.key}}}}}", node.key)
                if (node.key in self.nonempty) != node.negated:
                    stack.append(iter(node.children))
            else:
                rendered = self._replacement(node)
                if rendered is None:
                    written = ":".join((*reversed(node.filters), node.key))
                    return self._missing(f"{{{{{written}}}}}", node.key)
                parts.append(rendered)
        return RenderedSide(
            "".join(parts),
            tuple(self.hints),
            self.type_field,
            self.type_cloze,
            tuple(self.speech),
        )

    def _missing(self, written: str, key: str) -> RenderedSide:
        message = f"Found '{written}', but there is no field called '{key}'"
        return RenderedSide(html.escape(message), problem=message)

    def _replacement(self, node: Replacement) -> str | None:
        if node.key == "FrontSide":
            return self.front_side or ""
        if not node.key:
            return ""  # {{tts ...:}} and other filters with no field
        text = self.fields.get(node.key)
        if text is None:
            return None
        filters = node.filters
        if filters[-1:] == ("type",):
            self.type_field = node.key
            self.type_cloze = filters[:-1] == ("cloze",)
            return ""
        for name in filters:
            text = self._filter(name, text, node.key)
        return text

    def _filter(self, name: str, text: str, key: str) -> str:
        if name == "text":
            return strip_html(text)
        if name == "furigana":
            return _furigana(text, None)
        if name == "kanji":
            return _furigana(text, 1)
        if name == "kana":
            return _furigana(text, 2)
        if name == "hint":
            if self.front_side is not None:
                return text  # the answer is shown: its hints are open
            if text.strip():
                self.hints.append(Hint(key, text))
            return ""
        if name == "cloze":
            return (
                self.cloze(text, self.card_ord + 1, self.front_side is None) if self.cloze else text
            )
        if name.startswith("tts "):
            self.speech.append(text)
            return speech.marker(text, name[4:])
        return text  # an empty or unknown filter leaves the text as it is, as in Anki


def render_card(
    question: Template,
    answer: Template,
    fields: Mapping[str, str],
    card_ord: int,
    *,
    is_cloze: bool = False,
    cloze: ClozeRenderer | None = None,
) -> RenderedCard:
    """Render one card of a note, as Anki's ``render_card`` does.

    Args:
        question: The card template's parsed question format.
        answer: Its parsed answer format.
        fields: The note's fields by name (HTML), with any special fields (``Tags``,
            ``Deck``, ``Card`` ...) the caller knows; ``c<ord+1>`` is set to ``1``.
        card_ord: The card's template number (for cloze notes, its cloze number less one).
        is_cloze: Whether the note type is a cloze type; then the front-empty rule is the
            caller's (a cloze card exists while its deletion does).
        cloze: How ``{{cloze:Field}}`` renders a field for a card.

    Returns:
        Both sides, and whether the card is empty (its question shows no non-empty field).
    """
    all_fields = {f"c{card_ord + 1}": "1", **fields}
    front = _Renderer(all_fields, card_ord, None, cloze)
    rendered_question = front.side(question)
    empty = (
        not is_cloze
        and question.error is None
        and not renders_with_fields(question, front.nonempty)
    )
    back = _Renderer(all_fields, card_ord, rendered_question.html, cloze)
    return RenderedCard(rendered_question, back.side(answer), empty)


def render_side(
    template: Template,
    fields: Mapping[str, str],
    card_ord: int,
    front_side: str | None = None,
    cloze: ClozeRenderer | None = None,
    nonempty: set[str] | None = None,
) -> RenderedSide:
    """Render one side: the question when ``front_side`` is None, else the answer.

    Args:
        template: The parsed format of that side.
        fields: As for ``render_card``, with ``c<ord+1>`` set when the caller wants it.
        card_ord: As for ``render_card``.
        front_side: What ``{{FrontSide}}`` stands for on the answer.
        cloze: As for ``render_card``.
        nonempty: ``nonempty_fields(fields)``, when the caller has it already.
    """
    return _Renderer(fields, card_ord, front_side, cloze, nonempty).side(template)
