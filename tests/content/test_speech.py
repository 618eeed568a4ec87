"""Speech in card text: Anki's tts marker written, read back bounded, kept by import."""

from __future__ import annotations

from pathlib import Path

import genanki
import pytest

from recall.content import card_html, speech
from recall.content.deck_format import BasicCard
from recall.content.sound import CardSounds, card_sounds, played, without_references
from recall.content.speech import Speech
from recall.importers.apkg import read_apkg
from tests.helpers.anki_packages import build_package

SOUND = "a" * 64 + ".mp3"

SPOKEN_MODEL = genanki.Model(
    1_607_392_400,
    "Spoken",
    fields=[{"name": "Front"}, {"name": "Back"}],
    templates=[
        {
            "name": "Card 1",
            "qfmt": "{{Front}}{{tts en_US:Front}}",
            "afmt": "{{FrontSide}}<hr id=answer>{{Back}}{{tts de_DE speed=1.5:Back}}",
        }
    ],
)


def test_a_tts_template_comes_in_as_markers_the_review_reads_and_the_report_counts(
    tmp_path: Path,
) -> None:
    notes = {
        "Spoken": [
            genanki.Note(model=SPOKEN_MODEL, fields=["<b>cat</b> &amp; dog", "-Katze"]),
            genanki.Note(
                model=genanki.BASIC_MODEL,
                fields=['<tts service="android" voice="x" lang="fr_FR">chat</tts> ?', "cat"],
            ),
        ]
    }
    staging = tmp_path / "staging"
    staging.mkdir()
    result = read_apkg(build_package(tmp_path, notes), staging)
    spoken, element = (card for card in result.decks[0].cards if isinstance(card, BasicCard))
    assert spoken.front == "<b>cat</b> &amp; dog[anki:tts lang=en_US]cat &amp; dog[/anki:tts]"
    assert spoken.back == "-Katze[anki:tts lang=de_DE speed=1.5]-Katze[/anki:tts]"
    assert card_sounds(spoken) == CardSounds(
        question=(Speech("cat & dog", "en_US"),), answer=(Speech("-Katze", "de_DE", 1.5),)
    )
    assert without_references(spoken.front) == "<b>cat</b> &amp; dog"
    assert element.front == "[anki:tts lang=fr_FR]chat[/anki:tts] ?"
    assert card_sounds(element).question == (Speech("chat", "fr_FR"),)
    report = "\n".join(result.notes)
    assert "3 text-to-speech fields ({{tts}}) read aloud" in report
    assert "not read aloud" not in report


def test_the_marker_survives_the_sanitizer_and_reads_back_the_same() -> None:
    written = speech.write(Speech("<b> & 'x' \"y\"", "pt-BR", 0.75))
    kept = card_html.sanitize(f"<p>one {written} two</p>")
    assert kept == f"<p>one {written} two</p>"
    assert speech.speeches(kept) == [Speech("<b> & 'x' \"y\"", "pt-BR", 0.75)]


def test_sounds_and_speech_play_in_the_order_written() -> None:
    text = f"[anki:tts lang=de]eins[/anki:tts] [sound:{SOUND}] [anki:tts]zwei[/anki:tts]"
    assert played(text) == (Speech("eins", "de"), SOUND, Speech("zwei"))
    sounds = CardSounds(question=played(text), answer=(Speech("drei"),))
    assert sounds.to_play(answered=True, replay=True, skip_question=False) == (
        Speech("eins", "de"),
        SOUND,
        Speech("zwei"),
        Speech("drei"),
    )
    assert sounds.external == ()


@pytest.mark.parametrize(
    ("marker", "expected"),
    [
        ("[anki:tts lang=$(rm${IFS}-rf)]x[/anki:tts]", Speech("x")),
        ("[anki:tts lang=-v]x[/anki:tts]", Speech("x")),
        (f"[anki:tts lang={'a' * 36}]x[/anki:tts]", Speech("x")),
        (f"[anki:tts lang={'a' * 35}]x[/anki:tts]", Speech("x", "a" * 35)),
        ("[anki:tts lang=en_US speed=99]x[/anki:tts]", Speech("x", "en_US", speech.MAX_SPEED)),
        ("[anki:tts speed=0]x[/anki:tts]", Speech("x", "", speech.MIN_SPEED)),
        ("[anki:tts speed=nan]x[/anki:tts]", Speech("x")),
        ("[anki:tts speed=fast]x[/anki:tts]", Speech("x")),
        ("[anki:tts lang=en]<script>alert(1)</script>hi <i>there</i>[/anki:tts]", None),
    ],
)
def test_hostile_languages_and_speeds_are_bounded(marker: str, expected: Speech | None) -> None:
    (found,) = speech.speeches(marker)
    assert found == (expected or Speech("hi there", "en"))


def test_hostile_texts_are_bounded_in_length_and_number() -> None:
    long = speech.speeches(f"[anki:tts]{'word ' * 1000}[/anki:tts]")[0]
    assert len(long.text) == speech.MAX_TEXT_CHARS
    many = "".join(f"[anki:tts]{number}[/anki:tts]" for number in range(50))
    assert played(many) == tuple(Speech(str(number)) for number in range(20))
    assert speech.speeches("[anki:tts]   [/anki:tts][anki:tts]<br>[/anki:tts]") == []
    written = speech.marker("a [/anki:tts] [sound:x.mp3] b", "en")
    assert speech.speeches(written) == [Speech("a (/anki:tts) (sound:x.mp3) b", "en")]
    assert played(written) == (Speech("a (/anki:tts) (sound:x.mp3) b", "en"),)
    assert speech.marker("<br> ", "en_US") == ""
