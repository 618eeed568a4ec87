"""A parent deck an import made (``Español`` of ``Español::Verbos``) in the real window."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QItemSelectionModel, Qt
from pytestqt.qtbot import QtBot

from recall.collection import importing
from recall.scheduling import Schedulers
from recall.storage import Database
from recall.ui.main_window import MainWindow
from tests.collection.test_deck_merging import SPANISH_A, SPANISH_B, _package
from tests.conftest import Clock
from tests.ui.conftest import FakePrompts, WindowFactory

pytestmark = pytest.mark.qt_log_ignore("^This plugin does not support (propagateSizeHints|raise)")


@pytest.fixture
def spanish(bundled: Database, clock: Clock, tmp_path: Path) -> str:
    """Two subdecks imported alone; returns the key of the parent the import made."""
    package = _package(
        tmp_path / "package",
        [
            (SPANISH_A, "Español::Verbos", [("ser", "to be"), ("ir", "to go")]),
            (SPANISH_B, "Español::Nombres", [("mesa", "table")]),
        ],
    )
    importing.import_files(bundled, Schedulers(), [package], clock())
    with bundled.reading() as transaction:
        (parent,) = [deck for deck in transaction.browsing.decks() if deck.name == "Español"]
    return parent.key


def _select(window: MainWindow, key: str) -> None:
    view = window.deck_list
    index = view.model.index_of(key)
    assert index is not None
    view.table.setCurrentIndex(index)
    view.table.selectionModel().select(
        index,
        QItemSelectionModel.SelectionFlag.ClearAndSelect | QItemSelectionModel.SelectionFlag.Rows,
    )
    assert view.selected_key() == key


def _deck_names(database: Database) -> list[str]:
    with database.reading() as transaction:
        return [deck.name for deck in transaction.browsing.decks()]


def test_enter_on_a_parent_studies_its_subdecks_cards(
    qtbot: QtBot, make_window: WindowFactory, spanish: str, bundled: Database
) -> None:
    window = make_window()
    _select(window, spanish)
    row = window.deck_list.selected_deck()
    assert row is not None
    assert (row.name, row.new, row.total) == ("Español", 3, 3)

    qtbot.keyClick(window.deck_list.table, Qt.Key.Key_Return)

    review = window.review
    assert review is not None
    assert window.pages.currentWidget() is review
    assert review.deck_name == "Español"
    shown = review.shown
    assert shown is not None
    with bundled.reading() as transaction:
        deck = transaction.decks.get(transaction.cards.get(shown.card_id).deck_id)
    assert deck.name in ("Español::Verbos", "Español::Nombres")


def test_deck_options_open_on_the_parent(
    qtbot: QtBot, make_window: WindowFactory, spanish: str
) -> None:
    window = make_window()
    _select(window, spanish)
    window.options.deck_options_action.trigger()
    dialog = window.options.deck_options_dialog
    assert dialog is not None
    qtbot.waitExposed(dialog)
    assert dialog._deck_key == spanish
    dialog.close()


def test_statistics_chart_the_parent_not_another_deck(
    qtbot: QtBot, make_window: WindowFactory, spanish: str
) -> None:
    window = make_window()
    _select(window, "activation-recompute")
    window.show_statistics()
    assert window.statistics is not None
    assert window.statistics.deck_key() == "activation-recompute"
    window.statistics.tasks.wait()

    _select(window, spanish)
    window.show_statistics()
    assert window.statistics.deck_key() == spanish
    assert window.statistics.deck_box.currentText() == "Español"
    window.statistics.tasks.wait()
    window.statistics.close()


def test_rename_on_the_parent_renames_its_subdecks(
    make_window: WindowFactory, spanish: str, bundled: Database, prompts: FakePrompts
) -> None:
    window = make_window()
    _select(window, spanish)
    prompts.texts.append("Lenguas::Español")
    window.collection.rename_deck_action.trigger()

    names = _deck_names(bundled)
    assert {"Lenguas", "Lenguas::Español", "Lenguas::Español::Verbos"} <= set(names)
    assert "Lenguas::Español::Nombres" in names
    assert not [name for name in names if name.startswith("Español")]
    # The new parent is a deck too, selectable in the list.
    assert any(
        window.deck_list.model.deck_of(window.deck_list.model.index(row, 0)).name == "Lenguas"
        for row in range(window.deck_list.model.rowCount())
    )


def test_decks_of_one_name_from_before_both_show(
    make_window: WindowFactory, bundled: Database, clock: Clock
) -> None:
    with bundled.transaction() as transaction:
        for key in ("spanish-a", "spanish-b"):
            transaction.decks.add(key, "Spanish", "", clock())
    window = make_window()
    model = window.deck_list.model
    labels = [model.index(row, 0).data() for row in range(model.rowCount())]
    assert "Spanish (spanish-a)" in labels
    assert "Spanish (spanish-b)" in labels
    for key in ("spanish-a", "spanish-b"):
        _select(window, key)
