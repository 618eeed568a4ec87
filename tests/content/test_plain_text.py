"""Card text as one plain line: only what the card's markup makes markup goes."""

from __future__ import annotations

import pytest

from recall.content.plain_text import plain_text

# (Markdown as written, the words the review screen shows)
CASES = [
    ("What does C# compile to?", "What does C# compile to?"),
    ("F# and C## ## too", "F# and C## ## too"),
    ("#hashtag", "#hashtag"),
    ("# A heading ##", "A heading"),
    ("> a quote", "a quote"),
    ("Is 3 < 5 > 2?", "Is 3 < 5 > 2?"),
    ("a * b * c", "a * b * c"),
    ("snake_case_name", "snake_case_name"),
    ("**bold**, *italic* and _also_", "bold, italic and also"),
    ("~~not struck~~", "~~not struck~~"),
    ("`x#y` and `**kept**`", "x#y and **kept**"),
    ("[a link](https://example.org) ![an image](a.png)", "a link [an image]"),
    ("1 \\* 2 \\# 3", "1 * 2 # 3"),
    ("two\nlines", "two lines"),
]


@pytest.mark.parametrize(("markdown", "shown"), CASES)
def test_markdown_loses_only_its_markup(markdown: str, shown: str) -> None:
    assert plain_text(markdown) == shown


def test_html_loses_its_tags_and_entities_only() -> None:
    assert plain_text("<b>C#</b> &amp; <i>F#</i>", "html") == "C# & F#"
    assert plain_text("# not a heading in HTML", "html") == "# not a heading in HTML"
