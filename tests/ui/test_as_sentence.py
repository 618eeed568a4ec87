"""Error messages are written to go inside other words; alone in a dialog or a label they
read as sentences, without turning a file name or a quoted term into another word."""

from __future__ import annotations

import pytest

from recall.ui.prompts import as_sentence


@pytest.mark.parametrize(
    ("message", "sentence"),
    [
        ("cram needs a search", "Cram needs a search."),
        ("cannot read notes.txt: no such file", "Cannot read notes.txt: no such file."),
        ("unknown deck, pick another", "Unknown deck, pick another."),
        (
            "the backup is damaged; nothing was changed.",
            "The backup is damaged; nothing was changed.",
        ),
        ("notes.txt line 4: a field is empty", "notes.txt line 4: a field is empty."),
        ("'-' needs a search after it", "'-' needs a search after it."),
        ("deck:French is empty!", "deck:French is empty!"),
        ("ok?", "ok?"),
        ("  spaced out  ", "Spaced out."),
        ("", ""),
    ],
)
def test_a_message_reads_as_a_sentence(message: str, sentence: str) -> None:
    assert as_sentence(message) == sentence
