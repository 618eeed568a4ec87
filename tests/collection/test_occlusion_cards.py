"""Occlusion cards in the collection: found by search, named in the browser, exported to Anki."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from anki.collection import Collection, ImportAnkiPackageOptions, ImportAnkiPackageRequest

from recall.collection import browse, exporting, importing
from recall.content.deck_format import CARD_ADAPTER, BasicCard
from recall.core.preferences import Preferences
from recall.scheduling import Scheduler, Schedulers
from recall.storage import Database
from tests.conftest import ZONE, Clock
from tests.helpers.anki_occlusion import make_occlusion_package


def _imported(database: Database, clock: Clock, tmp_path: Path) -> str:
    _, package = make_occlusion_package(tmp_path)
    (report,) = importing.import_files(database, Schedulers(fuzz=False), [package], clock())
    return report.decks[0].deck_key


def test_occlusion_cards_are_found_by_their_header_and_named_in_the_browser(
    database: Database, clock: Clock, tmp_path: Path
) -> None:
    _imported(database, clock, tmp_path)
    finder = browse.Finder(database, Scheduler(), Preferences(), ZONE)
    found = finder.find("front:*leg*", clock())
    assert len(found.card_ids) == 3
    rows = finder.rows(found.card_ids)
    assert [browse.question(row) for row in rows] == ["Leg bones"] * 3
    without_header = rows[0].content.replace("<b>Leg</b> bones", "<br>")
    headless = dataclasses.replace(rows[0], content=without_header)
    assert browse.question(headless) == "(image occlusion)"
    card = CARD_ADAPTER.validate_json(rows[0].content)
    assert isinstance(card, BasicCard)
    assert card.occlusion is not None


def test_an_occlusion_card_goes_to_anki_as_a_basic_card_showing_its_image(
    database: Database, clock: Clock, tmp_path: Path
) -> None:
    deck_key = _imported(database, clock, tmp_path)
    package = tmp_path / "out.apkg"
    assert exporting.export_deck(database, deck_key, package, clock()) == 3
    folder = tmp_path / "anki-again"
    folder.mkdir()
    collection = Collection(str(folder / "collection.anki2"))
    try:
        collection.import_anki_package(
            ImportAnkiPackageRequest(
                package_path=str(package),
                options=ImportAnkiPackageOptions(with_scheduling=True, with_deck_configs=False),
            )
        )
        fronts = [collection.get_note(nid).fields[0] for nid in collection.find_notes("")]
        media = sorted(path.name for path in Path(collection.media.dir()).iterdir())
    finally:
        collection.close()
    assert len(fronts) == 3
    (image,) = media
    assert all(front == f'<b>Leg</b> bones<br><img src="{image}">' for front in fronts)
