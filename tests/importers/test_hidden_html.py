"""What an Anki card hides with styles is taken out before the sanitizer drops the styles."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from recall.importers._hidden_html import hidden_classes, without_hidden


@pytest.mark.parametrize(
    ("fragment", "shown"),
    [
        ('a<div style="display: none">answer<div>x</div>more</div>b', "ab"),
        ("a<div style='DISPLAY:none'>x</div>b", "ab"),
        ('a<span style="visibility: hidden">x</span>b', "ab"),
        ("a<span hidden>x</span>b<p hidden=''>y</p>c", "abc"),
        ('<img src=dot.png style="display:none">z<br hidden/>', "z"),
        ('a<div style="display:none">left open', "a"),  # hidden to the end, never shown
        ('a<div style="color: red">shown</div>', 'a<div style="color: red">shown</div>'),
        ('<div data-hidden="no">kept</div>', '<div data-hidden="no">kept</div>'),
        ("plain text", "plain text"),
    ],
)
def test_hidden_elements_go_with_their_content(fragment: str, shown: str) -> None:
    assert without_hidden(fragment) == shown


def test_classes_the_css_hides_go_too() -> None:
    classes = hidden_classes(".card { color: black } .answer, .later { display : none; }")
    assert classes == {"answer", "later"}
    assert without_hidden('q<div class="card answer">a</div><b class=x>b</b>', classes) == (
        "q<b class=x>b</b>"
    )


def test_deep_nesting_is_one_pass() -> None:
    depth = 50_000
    fragment = '<div style="display:none">' + "<div>" * depth + "x" + "</div>" * depth + "</div>!"
    assert without_hidden(fragment) == "!"


_PIECES = st.one_of(
    st.sampled_from(
        [
            "<div>", "</div>", "<span>", "</span>", "<b>", "</b>", "<br>", "<img src=x>",
            "<div ", "<span ", ">", "/>", "hidden", "HIDDEN", "hid", "den", "style", "STYLE",
            "st", "yle", "class", "cla", "ss", "=", '"', "'", " ", "display", "DISPLAY",
            ":", "none", "visibility", "data-", "secret", "\u017f", "\u0130", "K",
        ]
    ),
    st.text(max_size=4),
)  # fmt: skip


@given(st.lists(_PIECES, max_size=40).map("".join))
def test_a_fragment_without_style_class_or_hidden_skips_the_scan_only_where_it_finds_nothing(
    fragment: str,
) -> None:
    # A hidden class no fragment here holds makes the full scan run, with the same rules.
    assert without_hidden(fragment) == without_hidden(fragment, frozenset({"never-here"}))


@pytest.mark.parametrize(
    "fragment",
    ['a<b hidclass="x"den>joined</b>b', "a<b STYLE='display:none'>x</b>b", "a<i HiDdEn>x</i>b"],
)
def test_attributes_that_join_into_a_hiding_one_still_hide(fragment: str) -> None:
    assert without_hidden(fragment) == "ab"
