"""An Anki card's two sides, rendered from its note's fields by its note type's template.

The template language is ``content.anki_template``; this module gives it what a package
holds (fields by name, the special fields Anki adds, cloze deletions as ``cloze.py``
renders them) and turns the result into what a Recall card holds: the question, the
answer without the question Anki repeats at its top (``{{FrontSide}}``), the hints and the
text a type-in box expects. What the card hides with styles is taken out
(``_hidden_html``): the sanitizer drops styles, which would show it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from recall.content import anki_template
from recall.content.anki_template import Template
from recall.importers import _anki_styles
from recall.importers._collection import AnkiCard, AnkiNote, NoteType
from recall.importers._hidden_html import hidden_classes, without_hidden
from recall.importers._plain_templates import FRONT_SIDE, PlainTemplates, compile_plain
from recall.importers.cloze import cloze_answers, cloze_faces, cloze_numbers

# Where the question starts inside the answer: a marker no field or template can hold.
_FRONT_MARK = "\x00front\x00"
_ANSWER_RULE = re.compile(r"^\s*(?:<hr\b[^>]*>\s*)?", re.IGNORECASE)
_SOUND = re.compile(r"\[sound:[^\]]*\]")
_SCRIPT = re.compile(r"<script\b", re.IGNORECASE)


@dataclass(frozen=True)
class CardSides:
    """A rendered Anki card as Recall keeps it (HTML not yet sanitized).

    Attributes:
        front: The question.
        back: The answer below the question (after Anki's ``<hr id=answer>``); the whole
            answer when it does not begin with the question.
        hints: Hints offered behind a button.
        type_answer: The text a type-in box expects ("" when the card has no box).
        speech: Texts read aloud by ``{{tts}}`` (in ``front`` and ``back`` as speech markers).
        problem: Why a side's template could not be rendered (the card says so), or None.
        scripted: Whether the card runs a script in Anki (Recall runs none).
    """

    front: str
    back: str
    hints: tuple[str, ...]
    type_answer: str
    speech: tuple[str, ...]
    problem: str | None = None
    scripted: bool = False


def _cloze(text: str, number: int, question: bool) -> str:
    """``{{cloze:Field}}`` for one card: nothing when the field lacks its deletion, as in Anki."""
    if number not in cloze_numbers(text):
        return ""
    front, back = cloze_faces(text, number)
    return front if question else back


class CardRenderer:
    """Renders the cards of a package's notes, parsing each template once."""

    def __init__(self, deck_names: dict[int, str], plain_templates: bool = True) -> None:
        """
        Args:
            deck_names: Anki's deck names by deck id (``{{Deck}}``); read at each card.
            plain_templates: Fill the templates that only name fields as compiled
                patterns (``_plain_templates``, the same sides); False renders every card
                through the template language.
        """
        self._deck_names = deck_names
        self._plain_templates = plain_templates
        self._parsed: dict[tuple[int, int], tuple[Template, Template]] = {}
        self._plain: dict[tuple[int, int], PlainTemplates | None] = {}
        self._note: tuple[AnkiNote, dict[str, str], set[str]] | None = None
        self._hidden: dict[int, frozenset[str]] = {}
        self._styles: dict[int, _anki_styles.StyleSheet] = {}

    def _templates(self, type_id: int, note_type: NoteType, ord_: int) -> tuple[Template, Template]:
        key = (type_id, ord_)
        if key not in self._parsed:
            self._parsed[key] = (
                anki_template.parse(note_type.question_formats.get(ord_, "")),
                anki_template.parse(note_type.answer_formats.get(ord_, "")),
            )
        return self._parsed[key]

    def fields(
        self, card: AnkiCard, note: AnkiNote, note_type: NoteType
    ) -> tuple[dict[str, str], set[str]]:
        """The fields a template may name (the note's, the special ones Anki adds, and
        ``c<ord+1>``), and which of them are not empty; the note's part kept for its next
        card."""
        if self._note is None or self._note[0] is not note:
            named = {
                name: note.fields[index] if index < len(note.fields) else ""
                for index, name in enumerate(note_type.field_names)
            }
            self._note = (note, named, anki_template.nonempty_fields(named))
        named, nonempty = self._note[1], self._note[2]
        template_ord = 0 if note_type.is_cloze else card.ord
        deck = self._deck_names.get(card.deck_id, "(Deck)")
        special = {
            f"c{card.ord + 1}": "1",
            "Tags": " ".join(note.tags),
            "Type": note_type.name,
            "Deck": deck,
            "Subdeck": deck.rsplit("::", 1)[-1],
            "CardFlag": "flag0",
            "Card": note_type.template_names.get(template_ord, ""),
            "CardID": str(card.id),
        }
        special = {name: text for name, text in special.items() if name not in named}
        return {**special, **named}, nonempty | anki_template.nonempty_fields(special)

    def sides(self, card: AnkiCard, note: AnkiNote, note_type: NoteType) -> CardSides | None:
        """The card as Recall keeps it, or None when Anki makes no such card (front empty)."""
        template_ord = 0 if note_type.is_cloze else card.ord
        plain = self._plain_pattern(note.type_id, note_type, template_ord)
        if plain is not None:
            values = plain.fields(note)
            if not plain.makes_card(values):
                return None
            question_html = plain.question.format(*values)
            answer_html = plain.answer.format(*values, **{FRONT_SIDE: _FRONT_MARK})
            return self._finished(note, note_type, question_html, answer_html)
        question, answer_template = self._templates(note.type_id, note_type, template_ord)
        fields, nonempty = self.fields(card, note, note_type)
        checked = not note_type.is_cloze and question.error is None
        if checked and not anki_template.renders_with_fields(question, nonempty):
            return None
        side = anki_template.render_side(question, fields, card.ord, None, _cloze, nonempty)
        marked = anki_template.render_side(
            answer_template, fields, card.ord, _FRONT_MARK, _cloze, nonempty
        )
        typed = ""
        if side.type_field is not None:
            text = fields.get(side.type_field, "")
            if side.type_cloze:
                typed = ", ".join(cloze_answers(text, card.ord + 1))
            else:
                typed = _SOUND.sub("", anki_template.strip_html(text))
        return self._finished(
            note,
            note_type,
            side.html,
            marked.html,
            tuple(hint.text for hint in side.hints),
            typed,
            side.speech,
            side.problem or marked.problem,
        )

    def _finished(
        self,
        note: AnkiNote,
        note_type: NoteType,
        front: str,
        marked_answer: str,
        hints: tuple[str, ...] = (),
        typed: str = "",
        speech: tuple[str, ...] = (),
        problem: str | None = None,
    ) -> CardSides:
        """The sides from the rendered question and answer (``{{FrontSide}}`` marked)."""
        answer = marked_answer.lstrip()
        repeated = front.strip()
        # The answer Anki shows is the question again, a rule, then the answer; Recall
        # keeps the question on screen, so the back is what comes after the rule.
        if answer.startswith(_FRONT_MARK):
            back = _ANSWER_RULE.sub("", answer[len(_FRONT_MARK) :], count=1)
        elif repeated and answer.startswith(repeated):  # {{Front}} written out again
            back = _ANSWER_RULE.sub("", answer[len(repeated) :], count=1)
        else:
            back = answer
        back = back.replace(_FRONT_MARK, front)
        hidden = self._hidden_classes(note.type_id, note_type)
        sheet = self.styles(note.type_id, note_type)

        def shown(fragment: str) -> str:
            return _anki_styles.apply(without_hidden(fragment, hidden), sheet)

        return CardSides(
            shown(front),
            shown(back),
            tuple(shown(hint) for hint in hints),
            typed.strip(),
            speech,
            problem,
            _SCRIPT.search(front) is not None or _SCRIPT.search(back) is not None,
        )

    def plain_pattern(self, type_id: int, note_type: NoteType, ord_: int) -> bool:
        """Whether the cards of this template are filled from compiled patterns."""
        return self._plain_pattern(type_id, note_type, ord_) is not None

    def _plain_pattern(self, type_id: int, note_type: NoteType, ord_: int) -> PlainTemplates | None:
        if not self._plain_templates:
            return None
        key = (type_id, ord_)
        if key not in self._plain:
            question, answer = self._templates(type_id, note_type, ord_)
            self._plain[key] = compile_plain(note_type, question, answer)
        return self._plain[key]

    def styles(self, type_id: int, note_type: NoteType) -> _anki_styles.StyleSheet:
        """The note type's CSS as Recall applies it, read once per note type."""
        if type_id not in self._styles:
            # Anki's default look (Arial, centred, black on white) is no author's choice:
            # such cards take Recall's own look, in its light and dark themes.
            own = own_styling(note_type.css)
            self._styles[type_id] = _anki_styles.parse(note_type.css if own else "")
        return self._styles[type_id]

    def _hidden_classes(self, type_id: int, note_type: NoteType) -> frozenset[str]:
        if type_id not in self._hidden:
            self._hidden[type_id] = hidden_classes(note_type.css)
        return self._hidden[type_id]


# Anki's and genanki's default note type styles, whitespace taken out: nothing of the
# note type's own look is lost when its CSS is one of these.
_CARD_RULE = (
    ".card{{font-family:arial;font-size:20px;{}text-align:center;color:black;"
    "background-color:white;}}"
)
_CLOZE_RULE = ".cloze{font-weight:bold;color:blue;}"
_CLOZE_RULES = ("", _CLOZE_RULE, _CLOZE_RULE + ".nightMode.cloze{color:lightblue;}")
_DEFAULT_STYLES = frozenset(
    {
        "",
        *(
            _CARD_RULE.format(height) + cloze
            for height in ("", "line-height:1.5;")
            for cloze in _CLOZE_RULES
        ),
    }
)


def own_styling(css: str) -> bool:
    """Whether a note type's CSS is its own, not Anki's default (which Recall does not apply)."""
    return "".join(css.split()) not in _DEFAULT_STYLES
