"""A collection made with Anki's library holding notes of every stock note type (but image
occlusion) and of custom types with static text, sections, {{FrontSide}}, hints, furigana,
styling and sounds; exported in both package formats, with Anki's own rendering of every
card as plain text to compare an import against.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass
from pathlib import Path

from anki.collection import Collection, DeckIdLimit, ExportAnkiPackageOptions

# isort: split
from anki.decks import DeckId
from anki.models import NotetypeDict

SOUND = b"ID3\x03\x00\x00\x00\x00\x00\x00" + bytes(64)
PNG = b"\x89PNG\r\n\x1a\n" + bytes(range(64))
STYLE = ".q { color: #36c; } .card { font-family: serif; }"

# name: (fields, [(template name, question, answer)], css)
CUSTOM_TYPES: dict[str, tuple[list[str], list[tuple[str, str, str]], str]] = {
    "Capitals": (
        ["Country", "Capital", "Notes"],
        [
            (
                "Capital",
                "What is the capital of {{Country}}?",
                "{{FrontSide}}<hr id=answer>{{Capital}}{{#Notes}}<br><i>{{Notes}}</i>{{/Notes}}",
            ),
            (
                "Country",
                "{{Capital}} is the capital of which country?{{^Notes}} (no notes){{/Notes}}",
                "{{FrontSide}}<hr id=answer>{{Country}}",
            ),
        ],
        "",
    ),
    "Vocabulary": (
        ["Word", "Meaning", "Audio", "Reading"],
        [
            ("Recognition", "{{Word}}", "{{FrontSide}}<hr id=answer>{{Meaning}}<br>{{Audio}}"),
            ("Production", "{{Meaning}}", "{{FrontSide}}<hr id=answer>{{Word}}"),
            ("Listening", "{{Audio}}", "{{FrontSide}}<hr id=answer>{{Word}}: {{Meaning}}"),
            (
                "Reading",
                "{{#Reading}}{{kanji:Reading}}{{/Reading}}",
                "{{FrontSide}}<hr id=answer>{{furigana:Reading}} ({{kana:Reading}})",
            ),
        ],
        "",
    ),
    "Styled reverse": (
        ["Front", "Back"],
        [
            ("Card 1", "<div class=q>{{Front}}</div>", "{{FrontSide}}<hr id=answer>{{Back}}"),
            ("Card 2", "<div class=q>{{Back}}</div>", "{{FrontSide}}<hr id=answer>{{Front}}"),
        ],
        STYLE,
    ),
    "Hinted": (
        ["Question", "Hint", "Answer", "Extra"],
        [
            (
                "Card 1",
                "{{Question}}<br>{{hint:Hint}}",
                "{{FrontSide}}<hr id=answer>{{text:Answer}}<br>{{hint:Extra}}",
            ),
        ],
        "",
    ),
    "Special fields": (
        ["Front", "Back"],
        [
            (
                "Only card",
                "{{Front}} <small>{{Deck}} / {{Subdeck}} / {{Card}} / {{Type}}</small>",
                "{{FrontSide}}<hr id=answer>{{Back}} [{{Tags}}]<!-- a comment -->",
            ),
        ],
        "",
    ),
    "Hidden answer": (
        ["Front", "Back"],
        [
            (
                "Card 1",
                '{{Front}}<div style="display: none">{{Back}}</div><span class=secret>'
                "{{Back}}</span><img hidden src=dot.png><script>var shown = 1;</script>",
                "{{FrontSide}}<hr id=answer>{{Back}}",
            ),
        ],
        ".secret { display: none; }",
    ),
    "Answer alone": (
        ["Front", "Back"],
        [("Card 1", "{{Front}}", "{{Back}}")],
        "",
    ),
}

# (note type, fields, tags); fields missing at the end are empty.
NOTES: list[tuple[str, list[str], list[str]]] = [
    ("Basic", ["What is 2 + 2?", "4"], ["maths"]),
    ("Basic", ["A sound, nothing behind it [sound:bell.mp3]", ""], []),
    ("Basic", ["Only a picture on the back", '<img src="dot.png">'], []),
    ("Basic (and reversed card)", ["chien", "dog"], []),
    ("Basic (optional reversed card)", ["chat", "cat", "y"], []),
    ("Basic (optional reversed card)", ["oiseau", "bird", ""], []),
    ("Basic (type in the answer)", ["Capital of Italy?", "Rome"], []),
    ("Cloze", ["The {{c1::ulna}} is {{c2::medial::side}}", "arm bones"], []),
    ("Cloze", ["{{c1::Nested {{c2::deletions}} work}}", ""], []),
    ("Capitals", ["France", "Paris", "on the Seine"], []),
    ("Capitals", ["Peru", "Lima", ""], []),
    ("Vocabulary", ["犬", "dog", "[sound:bell.mp3]", "犬[いぬ]が 好[す]き"], []),
    ("Vocabulary", ["猫", "cat", "", ""], []),
    ("Styled reverse", ["front text", "back text"], []),
    ("Hinted", ["6 x 7?", "a famous number", "<b>42</b>", "Douglas Adams"], []),
    ("Hinted", ["7 x 8?", "", "56", ""], []),
    ("Special fields", ["Bonjour", "Hello"], ["french", "greeting"]),
    ("Answer alone", ["question side", "answer side"], []),
    ("Hidden answer", ["shown question", "kept for later"], []),
    ("Cloze typed", ["{{c1::Canberra}} is the capital of {{c2::Australia}}", ""], []),
]
DECK = "Languages::French"

_STYLE = re.compile(r"<style>.*?</style>|<script>.*?</script>", re.DOTALL)
_HINT_LINK = re.compile(r"<a class=hint\b.*?</a>", re.DOTALL)
_HIDDEN_HINT = re.compile(
    r'<div id="hint\w+" class=hint style="display: none">(.*?)</div>', re.DOTALL
)
# What a browser does not show of the "Hidden answer" type's question.
_HIDDEN_BY_STYLE = re.compile(
    r'<div style="display: none">.*?</div>|<span class=secret>.*?</span>', re.DOTALL
)
_MARKERS = re.compile(r"\[\[type:[^\]]*\]\]|\[anki:play:[^\]]*\]|\[sound:[^\]]*\]")
_TAG = re.compile(r"<[^>]*>", re.DOTALL)
_COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)


def plain(fragment: str) -> str:
    """HTML as the words it shows: tags, comments, styles and sound markers gone."""
    shown = _HIDDEN_BY_STYLE.sub("", fragment)
    text = _MARKERS.sub(" ", _COMMENT.sub("", _STYLE.sub("", shown)))
    return " ".join(html.unescape(_TAG.sub(" ", text)).split())


@dataclass(frozen=True)
class AnkiCardText:
    """One card as Anki renders it: question and answer as plain text, hints, typed field."""

    question: str
    answer: str
    hints: tuple[str, ...]
    type_answer: str
    answer_alone: bool = False  # the answer template does not begin with the question
    empty: bool = False  # Anki shows that the card's front is blank


def _split_hints(question_html: str) -> tuple[str, tuple[str, ...]]:
    """The question without its hint links and hidden hints, and the hints' plain text."""
    hints = tuple(plain(found) for found in _HIDDEN_HINT.findall(question_html))
    return _HIDDEN_HINT.sub("", _HINT_LINK.sub("", question_html)), hints


def _add_type(collection: Collection, name: str) -> NotetypeDict:
    fields, templates, css = CUSTOM_TYPES[name]
    models = collection.models
    model = models.new(name)
    for field in fields:
        models.add_field(model, models.new_field(field))
    for template_name, question, answer in templates:
        template = models.new_template(template_name)
        template["qfmt"], template["afmt"] = question, answer
        models.add_template(model, template)
    model["css"] = css
    models.add(model)
    added = models.by_name(name)
    assert added is not None
    return added


def make_template_packages(folder: Path) -> tuple[dict[int, AnkiCardText], dict[str, Path]]:
    """The collection, exported as ``latest`` and ``legacy`` .apkg, and Anki's text of each
    card by card id."""
    home = folder / "anki-profile"
    home.mkdir()
    collection = Collection(str(home / "collection.anki2"))
    try:
        media = Path(collection.media.dir())
        (media / "bell.mp3").write_bytes(SOUND)
        (media / "dot.png").write_bytes(PNG)
        deck_id = collection.decks.id(DECK)
        assert deck_id is not None
        for name in CUSTOM_TYPES:
            _add_type(collection, name)
        cloze = collection.models.by_name("Cloze")
        assert cloze is not None
        typed_cloze = collection.models.copy(cloze, add=False)
        typed_cloze["name"] = "Cloze typed"
        typed_cloze["tmpls"][0]["qfmt"] = "{{cloze:Text}}<br>{{type:cloze:Text}}"
        typed_cloze["tmpls"][0]["afmt"] = "{{cloze:Text}}<br>{{type:cloze:Text}}<br>{{Back Extra}}"
        collection.models.add(typed_cloze)
        texts: dict[int, AnkiCardText] = {}
        for type_name, values, tags in NOTES:
            model = collection.models.by_name(type_name)
            assert model is not None
            note = collection.new_note(model)
            for index, value in enumerate(values):
                note.fields[index] = value
            note.tags = tags
            collection.add_note(note, DeckId(deck_id))
            if type_name == "Vocabulary" and not values[2]:
                # A card whose field was emptied after it was made: Anki keeps the card but
                # shows "the front of this card is blank"; it is no card to study.
                note["Audio"] = "[sound:bell.mp3]"
                collection.update_note(note)
                collection.after_note_updates([note.id], mark_modified=False, generate_cards=True)
                note["Audio"] = ""
                collection.update_note(note)
            for card in note.cards():
                if "front of this card is blank" in card.question():
                    texts[int(card.id)] = AnkiCardText("", "", (), "", empty=True)
                    continue
                question, hints = _split_hints(card.question())
                answer = _HINT_LINK.sub("", card.answer())
                template = card.template()
                typed = re.search(r"\{\{type:(cloze:)?([^}]+)\}\}", str(template["qfmt"]))
                expected = plain(note[typed.group(2)]) if typed else ""
                if typed and typed.group(1):  # what Anki's reviewer expects: the deletion
                    expected = collection.extract_cloze_for_typing(
                        note[typed.group(2)], card.ord + 1
                    )
                alone = (
                    not str(template["afmt"]).lstrip().startswith(("{{FrontSide}}", "{{Front}}"))
                )
                texts[int(card.id)] = AnkiCardText(
                    plain(question), plain(answer), hints, expected, alone
                )
        paths = {"latest": folder / "latest.apkg", "legacy": folder / "legacy.apkg"}
        for name, legacy in (("latest", False), ("legacy", True)):
            options = ExportAnkiPackageOptions(
                with_scheduling=False, with_deck_configs=False, with_media=True, legacy=legacy
            )
            collection.export_anki_package(
                out_path=str(paths[name]), options=options, limit=DeckIdLimit(DeckId(deck_id))
            )
    finally:
        collection.close()
    return texts, paths
