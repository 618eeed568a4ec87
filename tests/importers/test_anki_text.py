"""Anki text exports: each header line, quoting, separators, clozes, ids, and bad files."""

from __future__ import annotations

import contextlib
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from recall.content.deck_format import BasicCard, Deck
from recall.core.errors import DeckError, ImportCancelledError, RecallError
from recall.importers import ImportedPackage, anki_text
from recall.importers.anki_text import deck_id_for, read_anki_text
from tests.conftest import DATA

ANKI = DATA / "anki"
BAD = ANKI / "bad"

# Each bad fixture file and the problem it must produce (after "FILE: ").
EXPECTED_ERRORS = {
    "bad-column": "line 2: '#deck column:' must be a column number from 1 (found '0')",
    "bad-html": "line 2: '#html:' must be true or false (found 'yes')",
    "bad-separator": (
        "line 1: '#separator:' must be Comma, Semicolon, Tab, Space, Pipe, Colon or one "
        "character (found 'Semicolons')"
    ),
    "no-backs": (
        "no cards to import: every row was skipped, the first being line 1 (the back is blank)"
    ),
    "no-rows": "no cards to import: the file has no rows",
    "not-utf8": "line 3: not UTF-8 text (byte 0xe9, the 4th byte of the line); save it as UTF-8",
    "same-column": "line 3: '#tags column:' names column 3, which is already the deck column",
    "text-after-quote": 'line 3: text follows a closing quote (inside quotes, write a quote as "")',
    "unclosed-quote": "line 3: a quoted field starting on this line never closes",
}


def faces(deck: Deck) -> list[tuple[str, str, str, list[str]]]:
    """Each card as (id, front, back, tags)."""
    result = []
    for card in deck.cards:
        assert isinstance(card, BasicCard)
        assert card.markup == "html"
        result.append((card.id, card.front, card.back, card.tags))
    return result


def read_text(tmp_path: Path, text: str, name: str = "cards.txt") -> ImportedPackage:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return read_anki_text(path)


def test_every_bad_fixture_has_an_expected_error() -> None:
    assert {path.stem for path in BAD.iterdir()} == set(EXPECTED_ERRORS)


@pytest.mark.parametrize("name", sorted(EXPECTED_ERRORS))
def test_bad_text_names_file_line_and_problem(name: str) -> None:
    (path,) = BAD.glob(f"{name}.*")
    with pytest.raises(DeckError) as caught:
        read_anki_text(path)
    assert str(caught.value).startswith(f"{path}: ")
    assert caught.value.problems[0] == EXPECTED_ERRORS[name]


def test_anki_notes_in_plain_text_with_every_column_header() -> None:
    result = read_anki_text(ANKI / "notes-in-plain-text.txt")
    french, maths = result.decks
    assert (french.id, french.name) == ("anki-languages.french", "Languages::French")
    chat, chien = faces(french)
    assert chat[0].startswith("g-")
    assert chat[1:] == ("le <b>chat</b>", "the cat", ["animals", "french"])
    assert chien[1:] == ("le chien", "the dog", ["animals"])
    assert (maths.id, maths.name) == ("anki-maths", "Maths")
    (first_id, *first), (second_id, *second) = faces(maths)
    assert first_id.endswith("-c1")
    assert second_id == first_id.replace("-c1", "-c2")
    assert first == ["[...] + 2 = 4", "<b>2</b> + 2 = 4<br>basic sums", []]
    assert second == ["2 + [number] = 4", "2 + <b>2</b> = 4<br>basic sums", []]
    assert result.notes == ["1 image left out (a text file carries no images)"]
    assert result.reviews == {}
    assert result.media == []


def test_plain_text_semicolons_quotes_deck_tags_columns_and_comments() -> None:
    result = read_anki_text(ANKI / "capitals.csv")
    (deck,) = result.decks
    assert (deck.id, deck.name) == ("anki-capitals-of-europe", "Capitals of Europe")
    assert [card[1:] for card in faces(deck)] == [
        ("France", "Paris", ["geo", "europe"]),
        ("Bosnia; and Herzegovina", "Sarajevo<br>since &quot;1992&quot;", ["geo", "europe"]),
        ("Where is<br>the Eiffel tower?", "in &lt;Paris&gt;", ["geo", "europe"]),
        ("Germany", "Berlin", ["geo", "europe"]),
    ]
    assert result.notes == []


def test_a_literal_separator_and_a_tags_column_named_in_columns() -> None:
    (deck,) = read_anki_text(ANKI / "pipe-with-tags.txt").decks
    assert deck.name == "pipe-with-tags"
    assert [card[1:] for card in faces(deck)] == [
        ("Sun", "a star", ["space", "astronomy"]),
        ("Moon", "a satellite", ["space"]),
    ]


@pytest.mark.parametrize(
    ("header", "line"),
    [
        ("Comma", "front,back"),
        ("semicolon", "front;back"),
        ("Tab", "front\tback"),
        ("Space", "front back"),
        ("PIPE", "front|back"),
        ("Colon", "front:back"),
        ("~", "front~back"),
        (" ", "front back"),
    ],
)
def test_every_separator_header(tmp_path: Path, header: str, line: str) -> None:
    (deck,) = read_text(tmp_path, f"#separator:{header}\n{line}\n").decks
    assert [card[1:3] for card in faces(deck)] == [("front", "back")]


@pytest.mark.parametrize(
    ("line", "name", "back"),
    [
        ("q\ta, b; c", "tab", "a, b; c"),
        ("q;a, b", "semicolon", "a, b"),
        ("q,a", "comma", "a"),
        ("q|a", "pipe", "a"),
        ("q:a", "colon", "a"),
        ("q;a;b,c,d,e", "comma", "c<br>d<br>e"),  # more fields split on commas
        ('"q;x",a', "comma", "a"),  # quoted separators do not count
    ],
)
def test_the_separator_is_guessed_from_the_first_row(
    tmp_path: Path, line: str, name: str, back: str
) -> None:
    result = read_text(tmp_path, f"# exported by hand\n\n{line}\n")
    ((_, _, card_back, _),) = faces(result.decks[0])
    assert card_back == back
    assert result.notes == [f"no '#separator:' line: the separator {name} was guessed from line 3"]


def test_further_columns_join_the_back_and_blank_rows_are_skipped(tmp_path: Path) -> None:
    result = read_text(
        tmp_path,
        "#separator:tab\n#if matches:update current\nq1\ta\tb\t\tc\nq2\t \t\n\t\t\nq3\t\tonly\n",
    )
    assert [card[1:3] for card in faces(result.decks[0])] == [("q1", "a<br>b<br>c"), ("q3", "only")]
    assert result.notes == ["1 row skipped: line 4 (the back is blank)"]


def test_html_is_cleaned_and_plain_text_escaped(tmp_path: Path) -> None:
    html = read_text(tmp_path, '#separator:tab\n#html:true\n<i>q</i><a href="x">l</a>\t<p>a</p>\n')
    assert [card[1:3] for card in faces(html.decks[0])] == [("<i>q</i>l", "<p>a</p>")]
    plain = read_text(tmp_path, "#separator:tab\n#html:false\n<i>q</i>\ta & b\n")
    assert [card[1:3] for card in faces(plain.decks[0])] == [("&lt;i&gt;q&lt;/i&gt;", "a &amp; b")]


def test_clozes_by_notetype_or_by_text(tmp_path: Path) -> None:
    result = read_text(
        tmp_path,
        "#separator:tab\n#notetype column:1\n"
        "Basic\t{{c1::Paris}} is in {{c2::France}}\t\n"
        "Cloze\tno deletion here\textra\n"
        "Basic\tplain\tcard\n",
    )
    cards = faces(result.decks[0])
    assert [card[1:3] for card in cards] == [
        ("[...] is in France", "<b>Paris</b> is in France"),
        ("Paris is in [...]", "Paris is in <b>France</b>"),
        ("plain", "card"),
    ]
    assert [card[0][-3:] for card in cards[:2]] == ["-c1", "-c2"]
    assert result.notes == ["1 row skipped: line 4 (a cloze row without a cloze deletion)"]


def test_a_repeated_card_is_merged_and_the_later_row_wins(tmp_path: Path) -> None:
    result = read_text(
        tmp_path,
        "#separator:tab\n#deck column:3\n#guid column:4\n"
        "q\told\tA\t\n"
        "q\tnew\tA\t\n"
        "q\tother deck\tB\t\n"
        "q\tby guid\tA\tabc\n"
        "changed front\tby guid again\tA\tabc\n",
    )
    first, second = result.decks
    assert [card[1:3] for card in faces(first)] == [
        ("q", "new"),
        ("changed front", "by guid again"),
    ]
    assert [card[1:3] for card in faces(second)] == [("q", "other deck")]
    assert result.notes == [
        "2 rows gave the same card as an earlier row (same guid, or the same front without "
        "one) in the same deck, so the later row was kept: line 5 repeats line 4; line 8 "
        "repeats line 7"
    ]


def test_ids_are_stable_and_come_from_guid_or_front(tmp_path: Path) -> None:
    one = read_text(tmp_path, "#separator:tab\n#deck:French\nq\ta\n", "one.txt").decks[0]
    two = read_text(tmp_path, "#separator:tab\n#deck:french\nq  \tchanged\n", "two.txt").decks[0]
    assert one.id == two.id == "anki-french"
    assert one.cards[0].id == two.cards[0].id
    path = ANKI / "notes-in-plain-text.txt"
    assert read_anki_text(path) == read_anki_text(path)


@pytest.mark.parametrize(
    ("name", "deck_id"),
    [
        ("Languages::French words", "anki-languages.french-words"),
        ("Default", "anki-default"),
        ("Français", "anki-francais-"),
        ("Deck 1", "anki-deck-1-"),  # never the id of an Anki package's deck
        ("日本語", "anki-"),
        ("a-b", "anki-a-b-"),
    ],
)
def test_deck_ids_from_names(name: str, deck_id: str) -> None:
    made = deck_id_for(name)
    if deck_id.endswith("-"):
        assert made.startswith(deck_id)
        assert len(made) == len(deck_id) + 8
    else:
        assert made == deck_id
    assert deck_id_for(name.upper()) == made


def test_a_long_deck_name_still_gives_a_valid_id() -> None:
    made = deck_id_for("word " * 40)
    assert len(made) <= 100
    assert made.startswith("anki-word-word")


def test_progress_and_cancel(tmp_path: Path) -> None:
    path = tmp_path / "many.txt"
    path.write_text("#separator:tab\n" + "".join(f"q{i}\ta{i}\n" for i in range(1200)))
    calls: list[tuple[int, int]] = []
    read_anki_text(path, progress=lambda done, total: calls.append((done, total)))
    assert calls == [(500, 1200), (1000, 1200), (1200, 1200)]
    with pytest.raises(ImportCancelledError):
        read_anki_text(path, cancelled=lambda: True)


def test_a_file_above_the_size_limit_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(anki_text, "MAX_TEXT_BYTES", 1024)
    path = tmp_path / "big.txt"
    path.write_text("q\ta\n" * 300)
    with pytest.raises(DeckError) as caught:
        read_anki_text(path)
    assert caught.value.problems == ["the file is 1,200 bytes; text imports are limited to 1 KiB"]


def test_a_missing_file_is_a_deck_error(tmp_path: Path) -> None:
    with pytest.raises(DeckError, match="cannot be read"):
        read_anki_text(tmp_path / "nowhere.txt")


@settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.binary(max_size=300))
def test_any_bytes_raise_only_recall_errors(tmp_path: Path, data: bytes) -> None:
    path = tmp_path / "fuzz.txt"
    path.write_bytes(data)
    with contextlib.suppress(RecallError):
        read_anki_text(path)


text_pieces = st.sampled_from(
    ["#separator:", "#html:true", "#deck column:", "#tags:", "#columns:", "\n", "\t", ";", ",",
     '"', '""', "#", "{{c1::", "::", "}}", "<img src=a.png>", "<b>", " ", "x", "2", "Cloze"]
)  # fmt: skip


@settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.lists(text_pieces, max_size=40).map("".join))
def test_any_text_raises_only_recall_errors(tmp_path: Path, text: str) -> None:
    path = tmp_path / "fuzz.txt"
    path.write_text(text, encoding="utf-8")
    try:
        result = read_anki_text(path)
    except RecallError as error:
        message = str(error)
    else:
        assert all(deck.cards for deck in result.decks)
        return
    assert message.startswith(f"{path}: ")
