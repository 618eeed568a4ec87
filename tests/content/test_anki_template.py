"""Anki's template language: replacements, sections, filters, errors and the empty-front rule."""

from __future__ import annotations

import pytest

from recall.content.anki_template import (
    Hint,
    field_is_empty,
    parse,
    render_card,
    render_side,
    renders_with_fields,
)

FIELDS = {"Front": "chien", "Back": "dog", "Empty": "<br><div> </div>", "Reading": "犬[いぬ]"}


def question(template: str, fields: dict[str, str] = FIELDS) -> str:
    return render_side(parse(template), {"c1": "1", **fields}, 0).html


@pytest.mark.parametrize(
    ("template", "shown"),
    [
        ("What is {{Front}}?", "What is chien?"),
        ("{{ Front }}", "chien"),  # names are trimmed
        ("{{#Back}}[{{Back}}]{{/Back}}{{#Empty}}no{{/Empty}}", "[dog]"),
        ("{{^Empty}}empty{{/Empty}}{{^Back}}no{{/Back}}", "empty"),
        ("{{#Back}}{{#Front}}{{^Empty}}deep{{/Empty}}{{/Front}}{{/Back}}", "deep"),
        ("{{#c1}}first card{{/c1}}{{#c2}}second{{/c2}}", "first card"),
        ("a <!-- {{Back}} --> b", "a <!-- {{Back}} --> b"),  # comments are kept as written
        ("{{text:Front}}", "chien"),
        ("{{:Front}}", "chien"),  # an empty filter is ignored
        ("{{unknown:Front}}", "chien"),  # as is an unknown one
        ("{{furigana:Reading}}", "<ruby><rb>犬</rb><rt>いぬ</rt></ruby>"),
        ("{{kanji:Reading}}|{{kana:Reading}}", "犬|いぬ"),
        ("{{kana:furigana:Reading}}", "<ruby><rb>犬</rb><rt>いぬ</rt></ruby>"),
        ("{{tts en_US:Front}}x", "[anki:tts lang=en_US]chien[/anki:tts]x"),
        ("{{Front}} {{", "chien {{"),  # an unclosed handlebar is text
        ("{{=<% %>=}}<%Front%>", "chien"),  # Anki's legacy alternative syntax
        ("{{FrontSide}}", ""),  # nothing on the question
    ],
)
def test_the_question_renders_as_anki_renders_it(template: str, shown: str) -> None:
    assert question(template) == shown


def test_text_strips_tags_and_chained_filters_apply_from_the_field_outwards() -> None:
    fields = {"F": "<b>bold</b> &amp; <style>p{}</style>x"}
    assert question("{{text:F}}", fields) == "bold & x"
    assert question("{{furigana:text:F}}", {"F": "<i>漢</i>[かん]"}) == (
        "<ruby><rb>漢</rb><rt>かん</rt></ruby>"
    )


@pytest.mark.parametrize(
    ("template", "problem"),
    [
        ("{{Missing}}", "Found '{{Missing}}', but there is no field called 'Missing'"),
        ("{{text:Missing}}", "Found '{{text:Missing}}', but there is no field called 'Missing'"),
        ("{{#Missing}}x{{/Missing}}", "Found '{{#Missing}}', but there is no field called"),
        ("{{#Front}}x", "Missing '{{/Front}}'"),
        ("{{/Front}}", "Found '{{/Front}}', but it was not opened"),
        ("{{#Front}}{{#Back}}{{/Front}}{{/Back}}", "expected '{{/Back}}'"),
    ],
)
def test_a_broken_template_shows_what_is_wrong(template: str, problem: str) -> None:
    assert problem.replace("'", "&#x27;") in question(template)


def test_the_answer_shows_the_front_side_and_open_hints() -> None:
    card = render_card(
        parse("{{Front}}{{hint:Back}}{{type:Back}}"),
        parse("{{FrontSide}}<hr id=answer>{{hint:Back}}"),
        FIELDS,
        0,
    )
    assert card.question.html == "chien"
    assert card.question.hints == (Hint("Back", "dog"),)
    assert card.question.type_field == "Back"
    assert card.answer.html == "chien<hr id=answer>dog"
    assert not card.empty


@pytest.mark.parametrize(
    ("template", "empty"),
    [
        ("static text only", True),
        ("Capital of {{Empty}}?", True),
        ("Capital of {{Front}}?", False),
        ("{{#Empty}}{{Front}}{{/Empty}}", True),
        ("{{^Empty}}{{Front}}{{/Empty}}", False),
        ("{{^Front}}{{Back}}{{/Front}}", True),  # a negated section of a full field is skipped
        ("{{hint:Front}}", False),
    ],
)
def test_a_front_naming_only_empty_fields_makes_no_card(template: str, empty: bool) -> None:
    card = render_card(parse(template), parse("{{Back}}"), FIELDS, 0)
    assert card.empty is empty


def test_a_cloze_card_is_never_empty_by_the_field_rule() -> None:
    card = render_card(parse("{{Empty}}"), parse(""), FIELDS, 0, is_cloze=True)
    assert not card.empty


def test_the_cloze_filter_asks_the_renderer_for_each_side() -> None:
    def cloze(text: str, number: int, asked: bool) -> str:
        return f"{text}/c{number}/{'question' if asked else 'answer'}"

    card = render_card(parse("{{cloze:Front}}"), parse("{{cloze:Front}}"), FIELDS, 2, cloze=cloze)
    assert (card.question.html, card.answer.html) == ("chien/c3/question", "chien/c3/answer")


def test_sections_nest_past_any_recursion_limit() -> None:
    depth = 20_000
    template = "{{#Front}}" * depth + "{{Back}}" + "{{/Front}}" * depth
    parsed = parse(template)
    assert render_side(parsed, FIELDS, 0).html == "dog"
    assert renders_with_fields(parsed, {"Front", "Back"})


def test_empty_fields_are_anki_s_empty_fields() -> None:
    assert field_is_empty("  <br/> <div></div>\n")
    assert not field_is_empty("<span></span>")
    assert not field_is_empty("&nbsp;")
