"""A note type's CSS applied as inline styles: the cascade Recall reads, and what it leaves out."""

from __future__ import annotations

from recall.content.card_html import sanitize
from recall.importers._anki_styles import apply, parse
from recall.importers._hidden_html import hidden_classes

CSS = """
/* a comment { color: red } */
@import url("https://example.com/font.css");
@media (max-width: 600px) { .q { color: green; } .deep { @supports (x) { y: z } } }
@font-face { font-family: X; src: url(x.woff); }
.card { font-family: "Noto Serif", serif; font-size: 30px; color: black; text-align: center;
        line-height: 1.5 }
b { color: #900 }
.q { color: #36c; margin: 4px; }
span.big { font-size: 24px !important; position: absolute; }
.card .hint { font-style: italic }
.nightMode .q, .night_mode .q { color: white }
#main, .q:hover, a[href], .a > .b { color: pink }
.secret { display: none }
"""


def test_rules_cascade_by_specificity_and_order_and_inline_wins() -> None:
    sheet = parse(CSS)
    shown = apply('<div class="q">Q <b>bold</b> <span class="big q">big</span></div>', sheet)
    assert shown == (
        "<div style=\"font-family: 'Noto Serif', serif; text-align: center\">"
        '<div class="q" style="color: #36c">Q <b style="color: #900">bold</b> '
        '<span class="big q" style="color: #36c; font-size: 24px">big</span></div></div>'
    )
    own = apply('<span class="q" style="color: red">x</span>', sheet)
    assert own.endswith('<span class="q" style="color: #36c; color: red">x</span></div>')
    assert 'style="font-style: italic"' in apply('<i class="hint">h</i>', sheet)


def test_what_is_not_read_is_named_and_the_theirs_of_card_is_kept_out() -> None:
    sheet = parse(CSS)
    assert sheet.left_out == {
        "line-height",
        "margin",
        "position",
        "selector #main",
        "selector .q:hover",
        "selector a[href]",
        "selector .a > .b",
    }
    assert dict(sheet.card) == {"font-family": "'Noto Serif', serif", "text-align": "center"}
    assert all("white" not in value for rule in sheet.rules for _, value in rule.declarations)


def test_the_sanitizer_keeps_safe_styles_and_directions_only() -> None:
    assert (
        sanitize(
            '<div dir="RTL" style="color: red; position: fixed; font-size: 900px; '
            'background-color: url(x); font-weight: bold">שלום</div>'
        )
        == '<div dir="rtl" style="color:red;font-weight:bold">שלום</div>'
    )
    assert sanitize('<p dir="sideways" style="font-size: 5em">x</p>') == (
        '<p style="font-size:5em">x</p>'
    )
    assert sanitize('<span style="color: expression(alert(1))">y</span>') == "<span>y</span>"


def test_no_css_changes_nothing() -> None:
    assert apply('<div class="q">x</div>', parse("")) == '<div class="q">x</div>'


def test_hostile_style_sheets_are_read_in_one_pass() -> None:
    """Sheets that a pattern would read once per character (minutes at this size) give
    what they hold: no rule, or the one rule after them."""
    for sheet in ("a" * 200_000, "@" * 200_000 + "{", "@;" * 100_000, "}" * 200_000):
        assert parse(sheet).empty
        assert hidden_classes(sheet) == frozenset()
    assert [rule.classes for rule in parse("x" * 150_000 + "} .q { color: red }").rules] == [
        frozenset({"q"})
    ]
