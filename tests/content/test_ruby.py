"""Ruby in card text: each base with its reading, whichever way the element is written."""

from __future__ import annotations

import pytest

from recall.content.ruby import MAX_PAIRS, Ruby, has_ruby, split


def rubies(text: str) -> list[Ruby]:
    return [piece for piece in split(text) if isinstance(piece, Ruby)]


@pytest.mark.parametrize(
    ("written", "pairs"),
    [
        ("<ruby><rb>日本語</rb><rt>にほんご</rt></ruby>", (("日本語", "にほんご"),)),
        ("<ruby>漢<rt>かん</rt>字<rt>じ</rt></ruby>", (("漢", "かん"), ("字", "じ"))),
        ("<ruby>東京<rp>(</rp><rt>とうきょう</rt><rp>)</rp></ruby>", (("東京", "とうきょう"),)),
        ("<RUBY><b>明</b><RT>あ</RT>日</RUBY>", (("明", "あ"), ("日", ""))),
        ("<ruby>&lt;x&gt;<rt>a&amp;b</rt></ruby>", (("<x>", "a&b"),)),
    ],
)
def test_each_base_is_found_with_its_reading(
    written: str, pairs: tuple[tuple[str, str], ...]
) -> None:
    (found,) = rubies(f"before {written} after")
    assert found.pairs == pairs
    assert found.written == written
    assert split(f"before {written} after")[0] == "before "


def test_the_spoken_form_puts_each_reading_after_its_base() -> None:
    (found,) = rubies("<ruby>漢<rt>かん</rt>字<rt>じ</rt></ruby>")
    assert found.spoken == "漢(かん)字(じ)"


def test_text_without_ruby_or_with_too_much_stays_text() -> None:
    assert not has_ruby("no ruby here <b>at all</b>")
    many = "<ruby>" + "字<rt>じ</rt>" * (MAX_PAIRS + 1) + "</ruby>"
    assert rubies(many) == []
    assert "".join(p for p in split(many) if isinstance(p, str)) == many
    assert rubies("<ruby></ruby>") == []


def test_many_unclosed_ruby_tags_are_read_in_one_pass() -> None:
    hostile = "<ruby>" * 30_000 + "<rt>" * 30_000
    assert rubies(hostile) == []
    assert not has_ruby(hostile)
    # Up to the first closing tag it is one element, too long to be ruby; the next is read.
    (found,) = rubies(hostile + "</ruby> and <ruby>字<rt>じ</rt></ruby>")
    assert found.pairs == (("字", "じ"),)
