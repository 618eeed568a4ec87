"""The cards each kind of note makes, and media kept by hash within the import bounds."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from recall.changes import card_kinds, card_media
from recall.changes.editing import CardError, check_card


def test_a_cloze_hint_shows_on_the_front_and_siblings_share_a_note() -> None:
    text = "{{c2::Lima::city}} is in {{c1::Peru}}"
    data = {"type": "basic", "text": text, "tags": ["geo"]}
    cards = card_kinds.note_cards("cloze", data)
    assert [(card["front"], card["back"]) for card in cards] == [
        ("Lima is in [...]", "Lima is in **Peru**"),
        ("[city] is in Peru", "**Lima** is in Peru"),
    ]
    assert {card["note"] for card in cards} == {card_kinds.note_key("cloze", text)}
    assert all(check_card(card).tags == ["geo"] for card in cards)


def test_a_cloze_note_without_a_deletion_says_how_to_make_one() -> None:
    with pytest.raises(CardError) as raised:
        card_kinds.note_cards("cloze", {"type": "basic", "text": "no deletion {{c0::here}}"})
    assert raised.value.problems == [card_kinds.NO_DELETION]


def test_the_next_cloze_number_follows_the_highest() -> None:
    assert card_kinds.next_cloze_number("plain") == 1
    assert card_kinds.next_cloze_number("{{c1::a}} {{c4::b {{c2::c}}}}") == 5


def test_media_is_stored_once_under_its_hash(tmp_path: Path) -> None:
    media = tmp_path / "media"
    data = b"\x89PNG not quite"
    first = card_media.store_media(media, data, "A.PNG")
    second = card_media.store_media(media, data, "copy.png")
    assert first == second == hashlib.sha256(data).hexdigest() + ".png"
    assert [path.name for path in media.iterdir()] == [first]


def test_media_over_the_import_bound_or_of_another_kind_is_refused(tmp_path: Path) -> None:
    big = tmp_path / "big.wav"
    with big.open("wb") as stream:
        stream.truncate(card_media.MAX_MEDIA_BYTES + 1)
    with pytest.raises(card_media.MediaError, match=r"big\.wav: larger than 64 MiB"):
        card_media.store_media_file(tmp_path / "media", big)
    with pytest.raises(card_media.MediaError, match=r"page\.svg: not an image or sound"):
        card_media.store_media(tmp_path / "media", b"<svg/>", "page.svg")
    assert not (tmp_path / "media").exists()
