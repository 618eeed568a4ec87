"""What an Anki card hides with styles is taken out before the sanitizer drops the styles."""

from __future__ import annotations

import pytest

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
