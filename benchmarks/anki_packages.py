"""Packages exported by Anki itself, with a full review history, in both package formats.

A collection of Basic notes (the same texts as the genanki package) gets three reviews per
card in its revlog (or a given number in all, for the long-history package) and the cards'
review state, then Anki exports its deck twice: with its default options
(``collection.anki21b``, zstd, protobuf media list) and with "Support older Anki versions"
(``collection.anki21``). Both files are kept in the cache.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from anki.collection import (
    AddNoteRequest,
    Collection,
    DeckIdLimit,
    ExportAnkiPackageOptions,
)

_DAY_MS = 86_400_000
_FIRST_REVIEW_MS = 1_700_000_000_000
_EASES = (3, 3, 4)


def packages(notes: int, folder: Path, reviews: int | None = None) -> dict[str, Path]:
    """The ``latest`` and ``legacy`` packages of ``notes`` notes with history, made once.

    Args:
        notes: How many Basic notes (one card each).
        folder: The cache folder.
        reviews: How many revlog rows in all, spread evenly over the cards (the first cards
            one more); three per card when None.
    """
    name = f"anki-{notes}-history" + (f"-{reviews}" if reviews is not None else "")
    made = {"latest": folder / f"{name}.apkg", "legacy": folder / f"{name}-legacy.apkg"}
    if all(path.exists() for path in made.values()):
        return made
    home = folder / f"anki-export-{notes}"
    shutil.rmtree(home, ignore_errors=True)
    home.mkdir(parents=True)
    collection = Collection(str(home / "collection.anki2"))
    try:
        deck_id = collection.decks.id(f"Anki deck of {notes:,} notes with history")
        assert deck_id is not None
        model = collection.models.by_name("Basic")
        assert model is not None
        requests = []
        for index in range(notes):
            note = collection.new_note(model)
            note.fields = [
                f"Question {index}: what is the <b>capital</b> of place {index}?",
                f"City {index}, on the river {index % 97}",
            ]
            note.tags = [f"group{index % 20}"]
            requests.append(AddNoteRequest(note=note, deck_id=deck_id))
        collection.add_notes(requests)
        db = collection.db
        assert db is not None
        card_ids = db.list("SELECT id FROM cards ORDER BY id")
        each, more = divmod(reviews, len(card_ids)) if reviews is not None else (3, 0)
        rows = [
            (_FIRST_REVIEW_MS + position * 1000 + step * 3 * _DAY_MS, card, ease, step)
            for position, card in enumerate(card_ids)
            for step, ease in enumerate(
                _EASES[step % len(_EASES)] for step in range(each + (position < more))
            )
        ]
        db.executemany(
            "INSERT INTO revlog (id, cid, usn, ease, ivl, lastIvl, factor, time, type)"
            " VALUES (?, ?, -1, ?, 3, 0, 2500, 6000, min(?, 1))",
            rows,
        )
        db.execute("UPDATE cards SET type = 2, queue = 2, ivl = 9, due = 30")
        for name, legacy in (("latest", False), ("legacy", True)):
            partial = made[name].with_suffix(".partial")
            collection.export_anki_package(
                out_path=str(partial),
                options=ExportAnkiPackageOptions(
                    with_scheduling=True, with_deck_configs=False, with_media=True, legacy=legacy
                ),
                limit=DeckIdLimit(deck_id),
            )
            partial.rename(made[name])
    finally:
        collection.close()
        shutil.rmtree(home, ignore_errors=True)
    return made
