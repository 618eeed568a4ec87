"""One QTI 2.1 ``assessmentItem`` as a question bank ``Question``, or the reason it gives none.

A ``choiceInteraction`` is a multiple choice question (one correct value, or several when
the response's cardinality is multiple); a ``textEntryInteraction`` a typed short answer.
The question is the item body written out as HTML, the interaction standing in by its
prompt (or a blank for text entry); feedback shown for one choice (``feedbackInline``,
``feedbackBlock`` or ``modalFeedback`` carrying the choice's identifier) is that choice's
note, and every other feedback the general one. Items with templates, several
interactions or another kind of interaction are left out, with the reason.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable
from dataclasses import dataclass

from recall.core.i18n import tr
from recall.importers._question_bank import NO_TEXT, Answer, Question, Rich
from recall.importers._xml_tree import XmlNode

_SUPPORTED = frozenset({"choiceInteraction", "textEntryInteraction"})
_FEEDBACK = frozenset({"feedbackInline", "feedbackBlock", "modalFeedback"})
_TEMPLATES = frozenset(
    {"templateDeclaration", "printedVariable", "templateBlock", "templateInline"}
)
# QTI elements that show nothing to a learner answering the item.
_HIDDEN = _FEEDBACK | {"rubricBlock", "stylesheet", "infoControl"}
_VOID = frozenset({"img", "br", "hr", "col"})
_BLANK = "______"
_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])")


@dataclass(frozen=True)
class Skipped:
    """An item that gives no question: where it starts and why."""

    line: int
    what: str


ImageLine = Callable[[str, int], None]


def item_question(root: XmlNode, file: str, image_seen: ImageLine) -> Question | Skipped:
    """The item's question, or why it has none.

    Args:
        root: The ``assessmentItem`` element.
        file: The item's name inside its package ("" for a lone file), for messages.
        image_seen: Told each image source the question shows and its line, so that a
            problem with the image can name where it is.
    """
    identifier = root.attributes.get("identifier", "")[:60]
    if identifier:
        label = tr("item {identifier}").format(identifier=repr(identifier))
    else:
        label = tr("an item without an identifier")

    def skipped(why: str, line: int = root.line) -> Skipped:
        return Skipped(line, tr("{item}: {reason}").format(item=label, reason=why))

    nodes = root.walk()
    template = next((node for node in nodes if node.local in _TEMPLATES), None)
    if template is not None:
        return skipped(
            tr("uses templates (<{template}>), whose values Recall cannot fill in").format(
                template=template.local
            ),
            template.line,
        )
    body = root.child("itemBody")
    if body is None:
        return skipped(tr("it has no <itemBody>"))
    interactions = [node for node in body.walk() if node.local.endswith("Interaction")]
    if not interactions:
        return skipped(tr("it asks nothing (no interaction)"))
    if len(interactions) > 1:
        kinds = ", ".join(sorted({_name(node) for node in interactions}))
        return skipped(
            tr("it has {count} interactions ({kinds}); a card asks one").format(
                count=len(interactions), kinds=kinds
            )
        )
    interaction = interactions[0]
    if interaction.local not in _SUPPORTED:
        name = _name(interaction)
        if name[:1] in ("a", "e", "i", "o", "u"):
            unasked = tr("an {kind} interaction, which Recall cannot ask")
        else:
            unasked = tr("a {kind} interaction, which Recall cannot ask")
        return skipped(unasked.format(kind=name))
    response = interaction.attributes.get("responseIdentifier", "")
    declaration = next(
        (
            node
            for node in root.all("responseDeclaration")
            if node.attributes.get("identifier") == response
        ),
        None,
    )
    if declaration is None:
        return skipped(
            tr("no <responseDeclaration> for its response {response}").format(
                response=repr(response[:40])
            )
        )
    correct = _correct_values(declaration)
    writer = _Writer(image_seen)
    if interaction.local == "textEntryInteraction":
        return _text_entry(root, body, declaration, correct, writer, file)
    return _choice(root, body, interaction, declaration, correct, writer, file)


def _name(interaction: XmlNode) -> str:
    """``hotspotInteraction`` as ``hotspot``, ``extendedTextInteraction`` as ``extended text``."""
    base = interaction.local.removesuffix("Interaction")
    return _CAMEL.sub(" ", base).lower()[:40]


def _correct_values(declaration: XmlNode) -> list[str]:
    values = declaration.child("correctResponse")
    if values is None:
        return []
    return [value.text.strip() for value in values.all("value") if value.text.strip()]


def _mapped(declaration: XmlNode) -> dict[str, float]:
    """The points the response's mapping gives each value (``mapEntry``)."""
    mapping = declaration.child("mapping")
    points: dict[str, float] = {}
    for entry in mapping.all("mapEntry") if mapping is not None else []:
        try:
            points[entry.attributes.get("mapKey", "").strip()] = float(
                entry.attributes.get("mappedValue", "0")
            )
        except ValueError:
            continue
    return points


def _choice(
    root: XmlNode,
    body: XmlNode,
    interaction: XmlNode,
    declaration: XmlNode,
    correct: list[str],
    writer: _Writer,
    file: str,
) -> Question:
    if not correct:
        # Without a correct response, the values the mapping gives points to are right.
        correct = [key for key, points in _mapped(declaration).items() if points > 0]
    choices = interaction.all("simpleChoice")
    ids = {choice.attributes.get("identifier", "") for choice in choices}
    notes: dict[str, list[str]] = {}
    general: list[str] = []
    for node in [*body.walk(), *root.all("modalFeedback")]:
        if node.local not in _FEEDBACK:
            continue
        text = writer.inner(node)
        shown_for = node.attributes.get("identifier", "")
        if shown_for in ids and node.attributes.get("showHide", "show") == "show":
            notes.setdefault(shown_for, []).append(text)
        else:
            general.append(text)
    answers = tuple(
        Answer(
            Rich(writer.inner(choice), "html"),
            100.0 if choice.attributes.get("identifier", "") in correct else 0.0,
            _joined(notes.get(choice.attributes.get("identifier", ""), [])),
        )
        for choice in choices
    )
    return Question(
        kind="multichoice",
        name=_title(root),
        text=Rich(writer.inner(body), "html"),
        line=root.line,
        answers=answers,
        general_feedback=_joined(general),
        single=declaration.attributes.get("cardinality", "single") == "single",
        file=file,
    )


def _text_entry(
    root: XmlNode,
    body: XmlNode,
    declaration: XmlNode,
    correct: list[str],
    writer: _Writer,
    file: str,
) -> Question:
    points = _mapped(declaration)
    best = max([*points.values(), 0.0])
    answers = [Answer(Rich(value, "plain"), 100.0) for value in correct]
    answers += [
        Answer(Rich(value, "plain"), 100.0 * mapped / best)
        for value, mapped in points.items()
        if mapped > 0 and value and value not in correct
    ]
    general = [writer.inner(node) for node in root.all("modalFeedback")]
    return Question(
        kind="shortanswer",
        name=_title(root),
        text=Rich(writer.inner(body), "html"),
        line=root.line,
        answers=tuple(answers),
        general_feedback=_joined(general),
        file=file,
        type_in=True,
    )


def _title(root: XmlNode) -> str:
    return (root.attributes.get("title", "") or root.attributes.get("identifier", "")).strip()


def _joined(parts: list[str]) -> Rich:
    shown = [part for part in parts if part.strip()]
    if not shown:
        return NO_TEXT
    return Rich("".join(f"<p>{part}</p>" for part in shown), "html")


class _Writer:
    """Writes QTI content out as HTML: feedback and rubrics left out, interactions by their
    prompt or a blank, images (``img`` or an image ``object``) reported with their line."""

    def __init__(self, image_seen: ImageLine) -> None:
        self._image_seen = image_seen

    def inner(self, node: XmlNode) -> str:
        """The element's content, without the element itself."""
        parts: list[str] = []
        self._content(node, parts)
        return "".join(parts).strip()

    def _content(self, node: XmlNode, parts: list[str]) -> None:
        for item in node.content:
            if isinstance(item, str):
                parts.append(html.escape(item, quote=False))
            else:
                self._element(item, parts)

    def _element(self, node: XmlNode, parts: list[str]) -> None:
        tag = node.local
        if tag in _HIDDEN or tag == "simpleChoice":
            return
        if tag == "choiceInteraction":
            prompt = node.child("prompt")
            if prompt is not None:
                parts.append("<p>")
                self._content(prompt, parts)
                parts.append("</p>")
            return
        if tag.endswith("Interaction"):
            parts.append(_BLANK)
            return
        if tag == "object" and node.attributes.get("type", "").startswith("image/"):
            source = node.attributes.get("data", "")
            self._image_seen(source, node.line)
            parts.append(f'<img src="{html.escape(source)}">')
            return
        if tag == "img":
            self._image_seen(node.attributes.get("src", ""), node.line)
        attributes = "".join(
            f' {name}="{html.escape(value)}"'
            for name, value in node.attributes.items()
            if ":" not in name and name != "xmlns"
        )
        parts.append(f"<{tag}{attributes}>")
        if tag in _VOID:
            return
        self._content(node, parts)
        parts.append(f"</{tag}>")
