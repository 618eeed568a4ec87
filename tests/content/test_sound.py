"""Sounds in card text: references, which side plays them, keeping them at import and export."""

from __future__ import annotations

import hashlib
import json
import zipfile
from pathlib import Path

import genanki
import pytest
from anki.collection import Collection, DeckIdLimit, ExportAnkiPackageOptions
from anki.decks import DeckId

from recall.collection import exporting, importing
from recall.content.deck_format import BasicCard, ChoiceCard
from recall.content.sound import (
    CardSounds,
    MediaKind,
    card_sounds,
    kind_of,
    media_elements_as_tags,
    references,
    replace_references,
    without_references,
)
from recall.core.errors import DeckErrors
from recall.host import paths
from recall.importers.apkg import read_apkg
from recall.scheduling import Schedulers
from recall.storage import Database
from tests.conftest import Clock
from tests.helpers.anki_packages import build_package, card_ids, rewrite
from tests.helpers.sound_files import tone_wav

TONE = tone_wav(0.2)
TONE_NAME = hashlib.sha256(TONE).hexdigest() + ".wav"
VIDEO = b"\x00\x00\x00\x18ftypmp42 not really a film"
VIDEO_NAME = hashlib.sha256(VIDEO).hexdigest() + ".mp4"


def test_references_are_found_in_order_and_removed_for_display() -> None:
    text = "Hear [sound:a.mp3] and [sound:b&amp;c.ogg]!"
    assert references(text) == ["a.mp3", "b&c.ogg"]
    assert without_references(text) == "Hear  and !"
    assert replace_references(text, lambda name: "x.wav" if name == "a.mp3" else None) == (
        "Hear [sound:x.wav] and !"
    )


def test_audio_and_video_elements_become_sound_tags() -> None:
    fragment = (
        '<audio controls src="one.mp3"></audio>'
        "<video><source src='two.webm'><source src=three.mp4></video>"
        '<audio src="four.ogg"/>'
    )
    assert media_elements_as_tags(fragment) == (
        "[sound:one.mp3][sound:two.webm][sound:three.mp4][sound:four.ogg]"
    )


def test_kinds_by_suffix() -> None:
    assert kind_of("x.MP3") is MediaKind.SOUND
    assert kind_of("x.mp4") is MediaKind.EXTERNAL
    assert kind_of("x.exe") is None


def test_question_sounds_play_first_and_answer_sounds_on_reveal() -> None:
    q = "a" * 64 + ".mp3"
    a = "b" * 64 + ".ogg"
    film = "c" * 64 + ".mp4"
    card = BasicCard(
        id="b",
        type="basic",
        front=f"Listen [sound:{q}] [sound:../escape.mp3]",
        back=f"It was [sound:{a}]",
        explanation=f"[sound:{film}]",
    )
    sounds = card_sounds(card)
    assert sounds == CardSounds(question=(q,), answer=(a, film))
    assert sounds.external == (film,)
    assert sounds.to_play(answered=False, replay=False, skip_question=False) == (q,)
    assert sounds.to_play(answered=True, replay=False, skip_question=False) == (a,)
    assert sounds.to_play(answered=True, replay=True, skip_question=False) == (q, a)
    assert sounds.to_play(answered=True, replay=True, skip_question=True) == (a,)
    choice = ChoiceCard.model_validate(
        {
            "id": "c",
            "type": "choice",
            "question": f"Which? [sound:{q}]",
            "choices": [{"text": "x", "correct": True}, {"text": "y"}],
            "explanation": f"Because [sound:{a}]",
        }
    )
    assert card_sounds(choice) == CardSounds(question=(q,), answer=(a,))


def sound_package(folder: Path) -> tuple[Path, int]:
    note = genanki.Note(
        model=genanki.BASIC_MODEL,
        fields=[
            'bonjour [sound:hello.wav] <audio src="hello.wav"></audio>',
            "hello [sound:film.mp4] [sound:gone.mp3] [sound:https://x.org/a.mp3]",
        ],
    )
    path = build_package(folder, {"Deck": [note]})
    media = {"0": "hello.wav", "1": "film.mp4"}
    rewrite(path, {"media": json.dumps(media).encode()}, add={"0": TONE, "1": VIDEO})
    note_id = card_ids(path)[(note.fields[0], 0)] - 1
    return path, note_id


def test_an_anki_package_keeps_its_sounds_and_notes_the_missing_ones(tmp_path: Path) -> None:
    path, note_id = sound_package(tmp_path)
    staging = tmp_path / "staging"
    staging.mkdir()
    result = read_apkg(path, staging)
    (card,) = result.decks[0].cards
    assert isinstance(card, BasicCard)
    assert card.front == f"bonjour [sound:{TONE_NAME}] [sound:{TONE_NAME}]"
    assert card.back == f"hello [sound:{VIDEO_NAME}]"
    assert sorted(item.name for item in result.media) == sorted([TONE_NAME, VIDEO_NAME])
    assert (staging / TONE_NAME).read_bytes() == TONE
    assert result.notes == [
        f"2 sounds or videos left out: 'gone.mp3' in note {note_id} (missing from the "
        f"package); 'https://x.org/a.mp3' in note {note_id} (not in the package: Recall plays "
        "only packaged files)"
    ]


def test_importing_moves_sounds_into_the_media_folder_and_reports_them(
    tmp_path: Path, database: Database, clock: Clock
) -> None:
    path, _ = sound_package(tmp_path)
    (report,) = importing.import_files(database, Schedulers(), [path], clock())
    assert (report.sounds, report.videos, report.media) == (1, 1, 0)
    assert "1 sound, 1 video" in report.lines(with_source=False)
    media = paths.media_dir(database.path.parent)
    assert (media / TONE_NAME).read_bytes() == TONE
    assert (media / VIDEO_NAME).read_bytes() == VIDEO


def recall_deck(folder: Path, question: str, explanation: str = "") -> Path:
    deck = {
        "format": "recall-deck",
        "version": 1,
        "id": "sounds",
        "name": "Sounds",
        "cards": [
            {
                "id": "c1",
                "type": "choice",
                "question": question,
                "choices": [{"text": "yes", "correct": True}, {"text": "no"}],
                "explanation": explanation,
            }
        ],
    }
    path = folder / "deck.json"
    path.write_text(json.dumps(deck))
    return path


def test_a_recall_deck_takes_its_sounds_from_beside_it(
    tmp_path: Path, database: Database, clock: Clock
) -> None:
    (tmp_path / "media").mkdir()
    (tmp_path / "media" / "hello.wav").write_bytes(TONE)
    path = recall_deck(tmp_path, "Hear it? [sound:hello.wav]", "[sound:missing.mp3] ok")
    (report,) = importing.import_files(database, Schedulers(), [path], clock())
    assert report.sounds == 1
    assert report.notes == [
        "1 sound not found next to the deck and left out: 'missing.mp3' (card 'c1', explanation)"
    ]
    assert (paths.media_dir(database.path.parent) / TONE_NAME).read_bytes() == TONE
    deck = exporting.load_stored_deck(database, "sounds")
    (card,) = deck.cards
    assert isinstance(card, ChoiceCard)
    assert card.question == f"Hear it? [sound:{TONE_NAME}]"
    assert card.explanation == " ok"

    exported = tmp_path / "out.apkg"
    exporting.export_deck(database, "sounds", exported)
    with zipfile.ZipFile(exported) as archive:
        listing = json.loads(archive.read("media"))
        assert list(listing.values()) == [TONE_NAME]
        assert archive.read(next(iter(listing))) == TONE

    # The JSON export names stored sounds; importing it again keeps them.
    again = tmp_path / "again"
    again.mkdir()
    exporting.export_deck(database, "sounds", again / "deck.json")
    assert f"[sound:{TONE_NAME}]" in (again / "deck.json").read_text()
    importing.import_files(database, Schedulers(), [again / "deck.json"], clock())
    card = exporting.load_stored_deck(database, "sounds").cards[0]
    assert isinstance(card, ChoiceCard)
    assert card.question == f"Hear it? [sound:{TONE_NAME}]"


@pytest.mark.parametrize(
    ("name", "problem"),
    [
        ("../secret.mp3", "must be a plain file name"),
        ("/etc/hosts.mp3", "must be a plain file name"),
        (".hidden.mp3", "must be a plain file name"),
        ("run.exe", "is not a sound or video Recall knows"),
    ],
)
def test_a_recall_deck_with_a_bad_sound_name_is_refused(
    tmp_path: Path, database: Database, clock: Clock, name: str, problem: str
) -> None:
    path = recall_deck(tmp_path, f"Hear it? [sound:{name}]")
    with pytest.raises(DeckErrors) as raised:
        importing.import_files(database, Schedulers(), [path], clock())
    assert problem in str(raised.value)
    assert "card 'c1', question" in str(raised.value)
    assert not paths.media_dir(database.path.parent).exists()


def test_a_recall_deck_never_follows_a_link_to_a_sound(
    tmp_path: Path, database: Database, clock: Clock
) -> None:
    outside = tmp_path / "outside.wav"
    outside.write_bytes(TONE)
    (tmp_path / "linked.wav").symlink_to(outside)
    path = recall_deck(tmp_path, "Hear it? [sound:linked.wav]")
    (report,) = importing.import_files(database, Schedulers(), [path], clock())
    assert report.sounds == 0
    assert "'linked.wav'" in report.notes[0]


def test_a_question_that_was_only_a_missing_sound_is_an_error(
    tmp_path: Path, database: Database, clock: Clock
) -> None:
    path = recall_deck(tmp_path, "[sound:missing.mp3]")
    with pytest.raises(DeckErrors) as raised:
        importing.import_files(database, Schedulers(), [path], clock())
    assert "card 'c1':" in str(raised.value)
    assert "once its sounds are left out" in str(raised.value)


@pytest.mark.parametrize("kind", ["latest", "legacy", "colpkg"])
def test_every_anki_format_keeps_its_sounds(tmp_path: Path, kind: str) -> None:
    home = tmp_path / "anki-profile"
    home.mkdir()
    collection = Collection(str(home / "collection.anki2"))
    try:
        (Path(collection.media.dir()) / "hello.wav").write_bytes(TONE)
        deck_id = collection.decks.id("Listening")
        assert deck_id is not None
        basic = collection.models.by_name("Basic")
        assert basic is not None
        note = collection.new_note(basic)
        note.fields[:] = ["[sound:hello.wav] Which word?", "bonjour"]
        collection.add_note(note, DeckId(deck_id))
        path = tmp_path / ("out.colpkg" if kind == "colpkg" else "out.apkg")
        if kind == "colpkg":
            collection.export_collection_package(str(path), True, False)
        else:
            options = ExportAnkiPackageOptions(
                with_scheduling=False,
                with_deck_configs=False,
                with_media=True,
                legacy=kind == "legacy",
            )
            collection.export_anki_package(
                out_path=str(path), options=options, limit=DeckIdLimit(DeckId(deck_id))
            )
    finally:
        collection.close()
    staging = tmp_path / "staging"
    staging.mkdir()
    result = read_apkg(path, staging)
    fronts = [card.front for deck in result.decks for card in deck.cards if card.type == "basic"]
    assert f"[sound:{TONE_NAME}] Which word?" in fronts
    assert [item.name for item in result.media] == [TONE_NAME]
    assert (staging / TONE_NAME).read_bytes() == TONE
