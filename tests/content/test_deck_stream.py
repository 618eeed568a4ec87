"""Reading a deck card by card gives what reading it whole gives: the same cards, or the
same problems in the same order, however the file is cut into pieces."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from recall.content import json_stream
from recall.content.deck_format import Deck, load_deck
from recall.content.deck_stream import stream_deck
from recall.core.errors import DeckError
from tests.conftest import DATA

FIXTURES = sorted((DATA / "decks").rglob("*.json"))
SEEDS = [path.read_bytes() for path in FIXTURES]

# What a mutation inserts: JSON's punctuation, escapes of half a character and of a
# whole one, bytes that are not UTF-8, a byte order mark, keys, a long number.
PIECES = [
    b",", b"}", b"{", b"]", b"[", b'"', b":", b" ", b"\n", b"\\ud800", b"\\ud83d\\ude00",
    b"\xe9", b"\xc3", b'"id"', b'"cards"', b'"name"', b"1", b"true", b"null", b'"x"', b"\t",
    b"\xef\xbb\xbf", b"-", b"e", b"1" * 30, b'"cards": []', b'"type": "basic"',
]  # fmt: skip

Outcome = tuple[str, list[str], Deck | None]


def _whole(path: Path) -> Outcome:
    try:
        deck = load_deck(path)
    except DeckError as error:
        return "refused", error.problems, None
    cards = [card.model_dump_json(exclude_defaults=True) for card in deck.cards]
    return "read", cards, deck.model_copy(update={"cards": []})


def _streamed(path: Path) -> Outcome:
    cards: list[str] = []
    try:
        deck, count = stream_deck(
            path, lambda _i, card: cards.append(card.model_dump_json(exclude_defaults=True))
        )
    except DeckError as error:
        return "refused", error.problems, None
    assert count == len(cards)
    return "read", cards, deck


@pytest.mark.parametrize("piece", [1, 7, 1 << 20])
@pytest.mark.parametrize("path", FIXTURES, ids=[path.stem for path in FIXTURES])
def test_every_fixture_reads_the_same_streamed(
    path: Path, piece: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(json_stream, "PIECE_CHARS", piece)
    assert _streamed(path) == _whole(path)


_EDIT = st.tuples(
    st.sampled_from(["insert", "delete", "copy"]),
    st.floats(0, 1),
    st.floats(0, 1),
    st.sampled_from(PIECES),
)


@settings(max_examples=400, deadline=None)
@given(
    st.sampled_from(SEEDS),
    st.lists(_EDIT, min_size=1, max_size=3),
    st.sampled_from([1, 3, 16, 100, 1 << 20]),
)
def test_a_damaged_deck_reads_the_same_streamed(
    seed: bytes, edits: list[tuple[str, float, float, bytes]], piece: int
) -> None:
    data = bytearray(seed)
    for kind, where, other, piece_bytes in edits:
        at = int(where * len(data))
        if kind == "insert":
            data[at:at] = piece_bytes
        elif kind == "delete":
            del data[at : at + 1 + int(other * 4)]
        else:
            start, end = sorted((at, int(other * len(data))))
            data[at:at] = data[start:end][:50]
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "deck.json"
        path.write_bytes(bytes(data))
        previous = json_stream.PIECE_CHARS
        json_stream.PIECE_CHARS = piece
        try:
            streamed = _streamed(path)
        finally:
            json_stream.PIECE_CHARS = previous
        assert streamed == _whole(path)


def test_cards_are_taken_only_while_the_file_shows_no_problem(tmp_path: Path) -> None:
    text = (DATA / "decks" / "tiny.json").read_text()
    path = tmp_path / "deck.json"
    path.write_text(text.replace('"Two plus two?"', "3", 1))
    taken: list[int] = []
    with pytest.raises(DeckError, match=r"cards\[0\] \(id 'q1'\): question: must be text"):
        stream_deck(path, lambda index, _card: taken.append(index))
    assert taken == []


def test_a_deck_larger_than_a_whole_read_allows_is_streamed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Files past ``MAX_DECK_BYTES`` (read whole) are read card by card up to 1 GiB."""
    path = DATA / "decks" / "tiny.json"
    monkeypatch.setattr("recall.content.deck_format.MAX_DECK_BYTES", 10)
    with pytest.raises(DeckError, match="decks are limited to 64 MB"):
        load_deck(path)
    deck, count = stream_deck(path, lambda _index, _card: None)
    assert (deck.id, count) == ("tiny", 2)


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("question", "- " * 17 + "deep"),
        ("question", "  " + "> " * 17 + "deep"),
        ("explanation", "1. " * 17 + "deep"),
        ("question", "x" * 65_537),
        ("explanation", "line\\n" + "* " * 17 + "deep"),
        ("tags", ["t" * 501]),
        ("markup", "html"),
    ],
)
def test_a_card_past_the_bounds_is_refused_streamed_as_whole(
    tmp_path: Path, field: str, value: object
) -> None:
    text = (DATA / "decks" / "tiny.json").read_text()
    raw = json.loads(text)
    card = raw["cards"][0] if field != "markup" else raw["cards"][1]
    if field == "markup":
        card.update(markup="html", front="<b>" * 101 + "deep")
    else:
        card[field] = value.replace("\\n", "\n") if isinstance(value, str) else value
    path = tmp_path / "deck.json"
    path.write_text(json.dumps(raw))
    whole, streamed = _whole(path), _streamed(path)
    assert whole[0] == "refused"
    assert streamed == whole


def test_a_file_past_the_streamed_bound_is_refused_unread(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("recall.content.deck_stream.MAX_STREAMED_DECK_BYTES", 10)
    with pytest.raises(
        DeckError, match=r"tiny\.json: the file is \d+ bytes; decks are limited to 1 GiB"
    ):
        stream_deck(DATA / "decks" / "tiny.json", lambda _index, _card: None)


def test_a_card_many_pieces_long_reads_the_same_streamed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(json_stream, "PIECE_CHARS", 97)
    raw = json.loads((DATA / "decks" / "tiny.json").read_text())
    raw["cards"][0]["explanation"] = "long " * 13_000
    raw["cards"][1]["front"] = "unterminated"
    path = tmp_path / "deck.json"
    path.write_text(json.dumps(raw))
    assert _streamed(path) == _whole(path)
    path.write_text(json.dumps(raw).replace('"unterminated"', '"unterminated'))
    assert _streamed(path)[0] == "refused"
    assert _streamed(path) == _whole(path)
