"""Formulas: found in MathJax's and Anki's notations, typeset once, named as Anki names them."""

from __future__ import annotations

from pathlib import Path

import pytest

from recall.content import math
from recall.content.math import Formula, split, typeset

BLACK = "#000000"


def formulas(text: str) -> list[Formula]:
    return [piece for piece in split(text) if isinstance(piece, Formula)]


def test_every_notation_is_found_with_its_kind() -> None:
    text = (
        r"a \(x^2\) b \[\frac{1}{2}\] c [$]y_1[/$] d [$$]\sum_i i[/$$] e "
        r"[latex]Area $\pi r^2$[/latex] f"
    )
    found = formulas(text)
    assert [(f.source, f.display, f.text) for f in found] == [
        ("x^2", False, False),
        (r"\frac{1}{2}", True, False),
        ("y_1", False, False),
        (r"\sum_i i", True, False),
        (r"Area $\pi r^2$", False, True),
    ]
    assert "".join(p if isinstance(p, str) else p.written for p in split(text)) == text


def test_a_formula_written_in_html_is_read_as_its_latex() -> None:
    (found,) = formulas(r"\(a &lt; b<br>&amp;&nbsp;<b>c</b>\)")
    assert found.source == "a < b & c"


def test_a_formula_is_typeset_to_svg_at_the_size_and_colour_asked() -> None:
    small = typeset(Formula("x^2 + 1", False, False, ""), 16, BLACK)
    large = typeset(Formula("x^2 + 1", False, False, ""), 32, "#ff0000")
    assert small is not None
    assert large is not None
    assert small.svg.startswith(b"<svg")
    assert b"#ff0000" in large.svg
    assert 1.8 < large.width / small.width < 2.2
    assert large.height > small.height > 0


def test_display_math_is_taller_than_inline_math() -> None:
    inline = typeset(Formula(r"\sum_{i=1}^n i", False, False, ""), 20, BLACK)
    display = typeset(Formula(r"\sum_{i=1}^n i", True, False, ""), 20, BLACK)
    assert inline is not None
    assert display is not None
    assert display.height > inline.height


def test_a_latex_fragment_typesets_its_text_and_its_math() -> None:
    drawn = typeset(Formula(r"Area $\pi r^2$", False, True, ""), 20, BLACK)
    plain = typeset(Formula("Area", False, True, ""), 20, BLACK)
    assert drawn is not None
    assert plain is not None
    assert drawn.width > plain.width


@pytest.mark.parametrize(
    "source",
    [
        r"\unknowncommand{x}",  # the typesetter would spell the command out
        r"\frac{a",  # unbalanced
        "}{",
        r"Text with $\nosuchthing$ inside",
        "x" * (math.MAX_FORMULA_CHARS + 1),
        "{" * (math.MAX_BRACE_DEPTH + 1) + "x" + "}" * (math.MAX_BRACE_DEPTH + 1),
        "   ",
    ],
)
def test_what_cannot_be_typeset_gives_none(source: str) -> None:
    text = source.startswith("Text")
    assert typeset(Formula(source, False, text, ""), 20, BLACK) is None


def test_a_formula_is_typeset_once_per_size_and_colour() -> None:
    formula = Formula(r"\alpha + \beta", False, False, "")
    first = typeset(formula, 20, BLACK)
    assert typeset(formula, 20, BLACK) is first
    assert typeset(formula, 21, BLACK) is not first


def test_markdown_tokens_keep_formulas_whole() -> None:
    protected, written = math.protect(r"*Solve* \(x_1 * x_2\) and \[a\_b\]")
    assert "\\" not in protected
    assert written == [r"\(x_1 * x_2\)", r"\[a\_b\]"]
    assert math.restore(protected, written) == r"*Solve* \(x_1 * x_2\) and \[a\_b\]"
    assert math.restore("<p>x RECALLFORMULA7Z</p>", written) == "<p>x </p>"


ANKI_FORMS = [
    "a[latex]one<br>and<div>two[/latex]b",
    "[$]<b>hello</b>&nbsp; world[/$]",
    r"[$$]\int_0^1 x\,dx = \frac{1}{2}[/$$]",
    r"[$]a &lt; b &amp; c[/$]",
    "[latex]\\begin{tabular}{c}x\\end{tabular}[/latex]",
]


def test_anki_image_names_are_the_names_anki_gives(tmp_path: Path) -> None:
    from anki.collection import Collection

    collection = Collection(str(tmp_path / "collection.anki2"))
    try:
        for text in ANKI_FORMS:
            for svg in (False, True):
                extracted = collection._backend.extract_latex(
                    text=text, svg=svg, expand_clozes=False
                )
                ours = [
                    math.anki_image_name(found.group(0), svg)
                    for found in math._ANKI_LATEX.finditer(text)
                ]
                assert ours == [latex.filename for latex in extracted.latex], text
    finally:
        collection.close()


def test_anki_images_replace_their_forms_only_when_the_package_holds_them() -> None:
    png = math.anki_image_name("[$]x^2[/$]")
    svg = math.anki_image_name("[$$]y[/$$]", svg=True)
    assert png is not None
    assert svg is not None
    text = "A [$]x^2[/$], B [$$]y[/$$], C [$]z[/$]"
    shown = math.with_anki_images(text, {png, svg}.__contains__)
    assert shown == (
        f'A <img class="latex" alt="$x^2$" src="{png}">, '
        f'B <img class="latex" alt="\\begin{{displaymath}}y\\end{{displaymath}}" src="{svg}">, '
        "C [$]z[/$]"
    )
    assert math.with_anki_images("no forms", lambda name: True) == "no forms"


def test_many_unclosed_delimiters_are_read_in_one_pass() -> None:
    """A field of 30,000 opening delimiters and nothing to close them (read once, not once
    per delimiter: that took minutes) holds no formula; what closes after is found."""
    hostile = "\\(" * 30_000 + "[$]" * 30_000
    assert split(hostile) == [hostile]
    assert not math.has_formula(hostile)
    assert math.with_anki_images(hostile, lambda name: True) == hostile
    (found,) = formulas("\\(x" * 30_000 + "\\)")
    assert found.source.startswith("x\\(x")
