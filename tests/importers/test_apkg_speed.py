"""The shortcuts that make package import fast give exactly what the long way gives."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

import nh3
from hypothesis import given
from hypothesis import strategies as st

from recall.content import card_html, card_limits
from recall.importers.apkg import read_apkg
from tests.helpers.anki_packages import build_package, edit_collection

MARKUP = "<b></b>"


@given(st.text())
def test_plain_text_skips_the_cleaner_only_when_the_cleaner_would_not_change_it(
    text: str,
) -> None:
    # Behind an empty element the text always goes through nh3; the element comes back as is.
    through_cleaner = card_html.sanitize(MARKUP + text)
    assert through_cleaner.startswith(MARKUP)
    if not text.startswith("\ufeff"):
        assert card_html.sanitize(text) == through_cleaner[len(MARKUP) :]


_PIECES = st.one_of(
    st.sampled_from(
        [
            *(f"<{tag}>" for tag in ("b", "i", "u", "em", "strong", "sub", "span", "code")),
            *(f"</{tag}>" for tag in ("b", "i", "u", "em", "strong", "sub", "span", "code")),
            "<br>", "<br/>", "<B>", "&amp;", "&lt;", "&gt;", "&nbsp;", "&quot;", "&", "<", ">",
            "<p>", "</p>", "<div>", "</div>", "<b class=x>", "\r", "\xa0", "\ufeff", "\x00",
        ]
    ),
    st.text(st.characters(codec="utf-8"), max_size=6),
)  # fmt: skip


_SIMPLE_TEXT = st.one_of(
    st.sampled_from(["<br>", "&amp;", "&lt;", "&gt;", "&nbsp;"]),
    st.text(
        st.characters(blacklist_characters="<>&\x00\r\xa0\ufeff", codec="utf-8"),
        max_size=5,
    ),
)
_SIMPLE = st.recursive(
    _SIMPLE_TEXT,
    lambda inner: st.tuples(
        st.sampled_from(["b", "i", "u", "em", "strong", "sub", "sup", "span", "code"]),
        st.lists(inner, max_size=4).map("".join),
    ).map(lambda made: f"<{made[0]}>{made[1]}</{made[0]}>"),
    max_leaves=30,
)
# Simple formatting, with now and then a piece that takes it out of the subset.
_FRAGMENTS = st.lists(st.one_of(_SIMPLE, _SIMPLE, _SIMPLE, _PIECES), max_size=6).map("".join)


@given(_SIMPLE)
def test_simple_formatting_is_in_the_subset(fragment: str) -> None:
    assert card_html.in_safe_subset(fragment) == (fragment.count("<") <= 100)


@given(_FRAGMENTS)
def test_simple_formatting_skips_the_cleaner_only_when_the_cleaner_would_not_change_it(
    fragment: str,
) -> None:
    # Behind an image without a source the fragment always goes through nh3; the image is
    # taken out after cleaning, which leaves nh3's result for the fragment.
    through_cleaner = card_html.sanitize("<img>" + fragment)
    if card_html.in_safe_subset(fragment):
        assert through_cleaner == fragment
    if not fragment.startswith("\ufeff"):  # nh3 drops a byte order mark at the start only
        assert card_html.sanitize(fragment) == through_cleaner


_SOUP = st.lists(
    st.sampled_from(["<b>", "</b>", "<table>", "<TABLE >", "</table>", "<p>", "<br>", "x", "<"]),
    max_size=220,
).map("".join)


@given(_SOUP)
def test_the_nesting_check_skips_its_scan_only_where_the_scan_finds_nothing(text: str) -> None:
    assert card_limits.html_nesting_problem(text) == card_limits.html_nesting(text).problem()


def test_the_shared_cleaner_gives_what_nh3_clean_gives() -> None:
    fragment = '<p onclick="x()">a <img src="cat.png"> <script>y()</script><i>b</i></p>'
    expected = nh3.clean(
        fragment,
        tags=set(card_html.ALLOWED_TAGS),
        clean_content_tags=set(card_html.DROPPED_WITH_CONTENT),
        attributes={tag: set(names) for tag, names in card_html.ALLOWED_ATTRIBUTES.items()},
        attribute_filter=lambda tag, attribute, value: (
            "c" * 64 + ".png" if (tag, attribute) == ("img", "src") else value
        ),
        url_schemes=set(),
        strip_comments=True,
        link_rel=None,
    )
    assert card_html.sanitize(fragment, lambda _: "c" * 64 + ".png") == expected
    assert card_html.sanitize(fragment) == expected.replace(f' src="{"c" * 64}.png"', "").replace(
        "<img>", ""
    )


def test_each_thread_cleans_with_its_own_resolver() -> None:
    results: dict[str, str] = {}

    def clean(name: str) -> None:
        stored = name * 64 + ".png"

        def resolve(_source: str) -> str:
            return stored

        for _ in range(200):
            results[name] = card_html.sanitize('<img src="x.png">', resolve)
            assert results[name] == f'<img src="{stored}">'

    threads = [threading.Thread(target=clean, args=(name,)) for name in "abcd"]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert results == {name: f'<img src="{name * 64}.png">' for name in "abcd"}


def test_rows_of_odd_types_are_read_value_by_value_to_the_same_cards(tmp_path: Path) -> None:
    for name in ("plain", "odd"):
        (tmp_path / name).mkdir()
    plain = build_package(tmp_path / "plain")
    odd = build_package(tmp_path / "odd")

    def blobs(connection: sqlite3.Connection) -> None:
        connection.execute("UPDATE notes SET flds = CAST(flds AS BLOB), tags = CAST(tags AS BLOB)")
        assert connection.execute("SELECT DISTINCT typeof(flds) FROM notes").fetchall() == [
            ("blob",)
        ]

    edit_collection(odd, blobs)
    staging = tmp_path / "staging"
    staging.mkdir()
    assert read_apkg(plain, staging).decks == read_apkg(odd, staging).decks
