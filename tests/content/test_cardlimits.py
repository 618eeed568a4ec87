"""Card bounds: the sanitizer stays linear and bounded however deep HTML nests."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from recall.content.card_html import clean, sanitize
from recall.content.card_limits import (
    MAX_MARKDOWN_NESTING,
    MAX_NAME_CHARS,
    MAX_NESTING,
    MAX_TABLE_NESTING,
    flatten_html,
    html_nesting,
    html_nesting_problem,
    markdown_nesting,
    markdown_problem,
    may_nest_markdown_deeply,
)
from recall.content.deck_format import BasicCard, card_limit_problems

DEEP = 200_000

# Each shape once made the HTML parser quadratic (or worse) in its depth.
SHAPES = {
    "div": ("<div>", "</div>"),
    "formatting": ("<b>", "</b>"),
    "misnested": ("<b><div></b>", ""),  # the parser keeps every div open
    "list": ("<ul><li>", "</li></ul>"),
    "table": ("<table><tr><td>", "</td></tr></table>"),
    "blockquote": ("<blockquote>", ""),
    "unknown": ("<x-y>", ""),
    "attributes": ('<b class="{i}">', "</b>"),
}


@pytest.mark.slow
@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_deep_nesting_is_cleaned_to_the_bounds_with_its_text(shape: str) -> None:
    opening, closing = SHAPES[shape]
    fragment = opening * DEEP + "the text" + closing * DEEP
    cleaned = clean(fragment)
    nesting = html_nesting(cleaned.html)
    assert nesting.depth <= 2 * MAX_NESTING + 2
    assert nesting.tables <= MAX_TABLE_NESTING
    assert "the text" in cleaned.html
    assert cleaned.too_deep is not None
    assert cleaned.too_deep.depth >= DEEP
    assert len(cleaned.html) < len(fragment)


def test_ordinary_html_is_left_as_it_is() -> None:
    fragment = (
        "<p>a<p>b<ul><li>one<li>two</ul><table><tr><td>1<td>2<tr><td>3</table>"
        "<div><b>bold <i>both</i></b></div>" + "<div>" * (MAX_NESTING - 1) + "x"
    )
    flattened = flatten_html(fragment)
    assert flattened.dropped == 0
    assert flattened.html == fragment
    assert clean(fragment).too_deep is None


def test_a_dropped_tag_never_lets_its_neighbours_join_into_a_new_tag() -> None:
    fragment = "<b>" * MAX_NESTING + "<<b>div>" * 1_000 + "end"
    cleaned = sanitize(fragment)
    assert "<div>" not in cleaned
    assert html_nesting(cleaned).depth <= MAX_NESTING
    assert cleaned.count("&lt;div&gt;") == 1_000


TAGS = ["b", "i", "u", "font", "a", "p", "div", "span", "li", "ul", "ol", "table", "tr", "td",
        "th", "tbody", "dd", "dt", "dl", "h1", "h2", "blockquote", "select", "option", "svg",
        "math", "template", "textarea", "script", "br", "img", "x-z"]  # fmt: skip
start_tags = st.sampled_from(TAGS).map(lambda tag: f"<{tag}>")
soup_tokens = st.one_of(
    start_tags,
    start_tags,
    start_tags,
    st.sampled_from(TAGS).map(lambda tag: f"</{tag}>"),
    st.sampled_from(TAGS).map(lambda tag: f'<{tag} id="{tag}>x">'),
    st.sampled_from(["x", "<", ">", "<!--", "-->", '"', "<<", "<!x>", "</>", "&amp;"]),
)


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(st.lists(soup_tokens, min_size=50, max_size=600).map("".join))
def test_tag_soup_never_nests_past_a_small_multiple_of_the_bound(fragment: str) -> None:
    # With a bound of 6, the parser's own nesting of whatever comes through stays close to it.
    cleaned = clean(fragment, max_nesting=6, max_tables=2)
    nesting = html_nesting(cleaned.html)
    assert nesting.depth <= 3 * 6 + 4
    assert nesting.tables <= 2


@pytest.mark.parametrize(
    ("markdown", "depth"),
    [
        ("plain text", 0),
        ("- item", 1),
        ("- " * 16 + "x", 16),
        ("  " * 15 + "- x", 16),
        ("> > > quoted", 3),
        (">>>x", 3),
        ("1. a\n   1. b", 2),
        ("-----", 0),
        (" " * 40 + "indented code", 1),
        ("\t\t\tindented", 1),
        ("***bold***", 0),
        ("- " * 3_000 + "x", 3_000),
    ],
)
def test_markdown_nesting_counts_at_least_what_a_line_opens(markdown: str, depth: int) -> None:
    assert markdown_nesting(markdown) == depth


_PREFIX_PIECES = st.sampled_from([" ", "\t", ">", "-", "*", "+", "1.", "12)", "x", "\n", "a b"])


@settings(max_examples=400, deadline=None)
@given(st.lists(_PREFIX_PIECES, max_size=60).map("".join))
def test_the_quick_markdown_check_finds_every_text_nested_too_deep(text: str) -> None:
    """A text the one-search check passes is never nested past the bound."""
    if markdown_nesting(text) > MAX_MARKDOWN_NESTING:
        assert may_nest_markdown_deeply(text)


@pytest.mark.parametrize(
    "text", ["\t\t\t\t\t\t\t\t- x", "> " * 17 + "x", "- " * 17 + "x", "  " * 17 + "- x"]
)
def test_deep_markdown_is_found_by_the_quick_check(text: str) -> None:
    assert markdown_nesting(text) > MAX_MARKDOWN_NESTING
    assert may_nest_markdown_deeply(text)
    assert may_nest_markdown_deeply("shallow\n" + text)


_HTML_SIDES = st.builds(
    lambda bold, tables, tail: "<b>" * bold + "<table><tr><td>" * tables + tail,
    st.integers(0, 2 * MAX_NESTING),
    st.integers(0, MAX_TABLE_NESTING + 2),
    st.sampled_from(["x", "<br>" * 30, "<TABLE>" * 4, "</b>" * 50 + "y"]),
)
_MARKDOWN = st.sampled_from(["", "typed", "- " * (MAX_MARKDOWN_NESTING + 1) + "deep", "> > x"])


@settings(max_examples=200, deadline=None)
@given(
    front=_HTML_SIDES,
    back=_HTML_SIDES,
    hints=st.lists(_HTML_SIDES, max_size=2),
    typed=_MARKDOWN,
    explanation=_MARKDOWN,
    tag_length=st.sampled_from([1, MAX_NAME_CHARS, MAX_NAME_CHARS + 1]),
)
def test_an_html_card_passes_at_once_only_where_each_field_passes(
    front: str, back: str, hints: list[str], typed: str, explanation: str, tag_length: int
) -> None:
    card = BasicCard(
        id="c",
        type="basic",
        markup="html",
        front=front + "f",
        back=back + "b",
        hints=[hint + "h" for hint in hints],
        type_answer=typed,
        explanation=explanation,
        tags=["t" * tag_length],
    )
    each_field_passes = (
        all(html_nesting_problem(side) is None for side in (card.front, card.back, *card.hints))
        and all(markdown_problem(text) is None for text in (typed, explanation))
        and tag_length <= MAX_NAME_CHARS
    )
    assert (card_limit_problems(card) == []) == each_field_passes
