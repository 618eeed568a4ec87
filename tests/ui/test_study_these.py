"""The browser's Study These: a custom session of the selected cards, from two decks, crammed
(schedules unchanged, cram answers kept) or rescheduled (each card under its deck's preset)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import timedelta

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialogButtonBox
from pytestqt.qtbot import QtBot

from recall.changes import decks
from recall.changes.cards import Changes
from recall.collection.browse import Finder
from recall.core.memory import CardState, MemoryState, Rating, ReviewKind
from recall.core.preferences import Preferences
from recall.core.presets import Preset
from recall.options import deck_options
from recall.scheduling import Scheduler, Schedulers
from recall.storage import Database
from recall.study.custom import SessionKind
from recall.ui.browser.window import BrowserWindow
from recall.ui.main_window import MainWindow
from recall.ui.study_tools import CustomStudyDialog
from tests.conftest import ZONE, Clock, answer_cards
from tests.ui.conftest import WindowFactory
from tests.ui.test_review_window import DIGITS, right_position

pytestmark = pytest.mark.qt_log_ignore("^This plugin does not support (propagateSizeHints|raise)")

SECOND = Preset(desired_retention=0.75, learning_steps=(timedelta(minutes=42),))


@dataclass(frozen=True)
class TwoDecks:
    """The bundled deck's cards, three of them moved to a deck of their own preset."""

    first: tuple[int, ...]
    second: tuple[int, ...]
    second_deck_id: int


@pytest.fixture
def two_decks(bundled: Database, clock: Clock) -> TwoDecks:
    finder = Finder(bundled, Scheduler(), Preferences(), ZONE)
    ids = finder.find("", clock()).card_ids
    decks.new_deck(bundled, "Second", clock())
    with bundled.reading() as transaction:
        second = next(row for row in transaction.browsing.decks() if row.name == "Second")
    Changes(bundled, Schedulers(), Preferences(), ZONE).move(list(ids[:3]), second)
    preset_id = deck_options.add_preset(bundled, "Lower retention", SECOND)
    deck_options.apply(bundled, Schedulers(fuzz=False), {}, {second.id: preset_id}, clock())
    return TwoDecks(first=tuple(ids[3:]), second=tuple(ids[:3]), second_deck_id=second.id)


@pytest.fixture
def browser(window: MainWindow) -> Iterator[BrowserWindow]:
    opened = window.collection.browse()
    opened.wait()
    yield opened
    opened.close()


def _memories(database: Database, card_ids: tuple[int, ...]) -> dict[int, MemoryState]:
    with database.reading() as transaction:
        return {card_id: transaction.cards.get(card_id).memory for card_id in card_ids}


def _study_these(
    qtbot: QtBot, window: MainWindow, browser: BrowserWindow, chosen: tuple[int, ...]
) -> CustomStudyDialog:
    """Select ``chosen`` in the browser and press Study These's key."""
    browser.select_rows([row for row in map(browser.model.row_of, chosen) if row is not None])
    assert set(browser.selected_ids()) == set(chosen)
    qtbot.keyClick(browser.table, Qt.Key.Key_G, Qt.KeyboardModifier.ControlModifier)
    dialog = window.custom_study_dialog
    assert dialog is not None
    assert dialog.isVisible()
    return dialog


def _answer_all(qtbot: QtBot, window: MainWindow, clock: Clock) -> list[int]:
    """Answer every card the session shows, each right; the ids in the order shown."""
    review = window.review
    assert review is not None
    shown = []
    while window.pages.currentWidget() is review:
        assert review.shown is not None
        shown.append(review.shown.card_id)
        clock.advance(seconds=6)
        qtbot.keyClick(review, DIGITS[right_position(review) + 1])
        clock.advance(seconds=2)
        qtbot.keyClick(review, Qt.Key.Key_Space)
        assert len(shown) <= 20
    return shown


def test_study_these_crams_exactly_the_selection_of_two_decks_and_moves_no_schedule(
    qtbot: QtBot,
    two_decks: TwoDecks,
    bundled: Database,
    clock: Clock,
    window: MainWindow,
    browser: BrowserWindow,
) -> None:
    chosen = (two_decks.first[0], two_decks.second[0], two_decks.first[2], two_decks.second[1])
    before = _memories(bundled, chosen)
    dialog = _study_these(qtbot, window, browser, chosen)
    assert [dialog.kind.itemData(index) for index in range(dialog.kind.count())] == [
        SessionKind.CRAM.value,
        SessionKind.SEARCH.value,
    ]
    assert dialog.kind.currentText() == "Cram the 4 selected cards (schedule unchanged)"
    assert dialog.preview.text() == "4 cards to study. Answers move no due date."
    qtbot.mouseClick(
        dialog.buttons.button(QDialogButtonBox.StandardButton.Ok), Qt.MouseButton.LeftButton
    )
    review = window.review
    assert review is not None
    assert window.pages.currentWidget() is review
    assert review.deck_name == "Cram: selected cards"
    shown = _answer_all(qtbot, window, clock)
    assert sorted(shown) == sorted(chosen)  # each once: every answer was right
    assert set(shown) == set(review.custom.card_ids if review.custom else ())
    assert _memories(bundled, chosen) == before
    with bundled.reading() as transaction:
        for card_id in chosen:
            assert [entry.kind for entry in transaction.history.of_card(card_id)] == [
                ReviewKind.CRAM
            ]
    assert window.pages.currentWidget() is window.summary
    assert window.summary.title.text() == "Session done"
    assert window.summary.subtitle.text() == (
        "Cram: selected cards: the session is over. Cram answers moved no due date."
    )
    assert window.summary.reviewed.text() == "4 (4 answers)"
    qtbot.keyClick(window.summary, Qt.Key.Key_Return)
    assert window.pages.currentWidget() is window.deck_list


def test_study_these_rescheduled_answers_each_card_under_its_decks_preset(
    qtbot: QtBot,
    schedulers: Schedulers,
    two_decks: TwoDecks,
    bundled: Database,
    clock: Clock,
    window: MainWindow,
    browser: BrowserWindow,
) -> None:
    chosen = (two_decks.second[2], two_decks.first[1])
    before = _memories(bundled, chosen)
    dialog = _study_these(qtbot, window, browser, chosen)
    dialog.kind.setCurrentIndex(dialog.kind.findData(SessionKind.SEARCH.value))
    assert dialog.kind.currentText() == "Study the 2 selected cards, answers rescheduled"
    assert dialog.preview.text() == (
        "2 cards to study. Answers reschedule the cards, each under its deck's preset."
    )
    qtbot.keyClick(dialog, Qt.Key.Key_Return)
    review = window.review
    assert review is not None
    assert review.deck_name == "Study: selected cards"
    shown = _answer_all(qtbot, window, clock)
    assert shown == list(chosen)  # in the browser's order
    after = _memories(bundled, chosen)
    with bundled.reading() as transaction:
        answers = {card_id: transaction.history.of_card(card_id) for card_id in chosen}
    for card_id in chosen:
        (entry,) = answers[card_id]
        assert entry.kind is ReviewKind.ANSWER
        assert after[card_id].state is not CardState.NEW
    # Each answer is what its own deck's preset makes of it, and the two presets differ.
    with bundled.reading() as transaction:
        presets = transaction.options.deck_presets()
        cards = {card_id: transaction.cards.get(card_id) for card_id in chosen}
    assert [cards[card_id].deck_id == two_decks.second_deck_id for card_id in chosen] == [
        True,
        False,
    ]
    second_preset = schedulers.for_deck(presets, two_decks.second_deck_id).preset
    assert second_preset.desired_retention == SECOND.desired_retention
    for card_id in chosen:
        (entry,) = answers[card_id]
        assert entry.rating is not None
        own = schedulers.for_deck(presets, cards[card_id].deck_id)
        theirs = own.preset.desired_retention == SECOND.desired_retention
        other = Scheduler(Preset() if theirs else SECOND, fuzz=False)
        seed = cards[card_id].seed
        assert after[card_id] == own.review(seed, before[card_id], entry.rating, entry.reviewed_at)
        assert after[card_id] != other.review(
            seed, before[card_id], entry.rating, entry.reviewed_at
        )
    assert window.summary.title.text() == "Session done"
    assert window.summary.subtitle.text() == "Study: selected cards: the session is over."


def test_study_these_without_a_selection_says_to_select(
    qtbot: QtBot, window: MainWindow, browser: BrowserWindow
) -> None:
    browser.select_rows([])
    qtbot.keyClick(browser.table, Qt.Key.Key_G, Qt.KeyboardModifier.ControlModifier)
    assert window.custom_study_dialog is None
    assert browser.status.text() == "Select cards first."


def test_the_deck_list_offers_custom_study_when_nothing_is_due(
    qtbot: QtBot, make_window: WindowFactory, bundled: Database, clock: Clock
) -> None:
    window = make_window()
    button = window.deck_list.custom_study_button
    assert not button.isVisibleTo(window)  # eight new cards are due
    finder = Finder(bundled, Scheduler(), Preferences(), ZONE)
    Changes(bundled, Schedulers(), Preferences(), ZONE).suspend(
        list(finder.find("", clock()).card_ids), True
    )
    window.refresh_decks()
    assert button.isVisibleTo(window)
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    dialog = window.custom_study_dialog
    assert dialog is not None
    assert dialog.isVisible()
    assert dialog.deck.text() == "Activation Recomputation Tradeoffs"
    qtbot.keyClick(dialog, Qt.Key.Key_Escape)
    assert not dialog.isVisible()


def _ready_for(kind: SessionKind, database: Database, clock: Clock) -> dict[str, str | int]:
    """Give the bundled deck cards for ``kind``; the dialog's fields that ask for them."""
    finder = Finder(database, Scheduler(), Preferences(), ZONE)
    if kind in (SessionKind.CRAM, SessionKind.SEARCH):
        return {"search": "tag:memory"}
    if kind is SessionKind.NEW:
        return {"tag": "memory"}
    if kind is SessionKind.EXTRA:
        return {"deck": "Activation Recomputation Tradeoffs"}
    if kind is SessionKind.FORGOTTEN:
        session = answer_cards(database, clock, 0)
        for _ in range(2):
            shown = session.next_card(clock())
            assert shown is not None
            answer = session.reveal(shown, clock.advance(seconds=4))
            session.record(answer, Rating.AGAIN, clock())
        return {}
    answer_cards(database, clock, 8)
    clock.advance(days=1)
    changes = Changes(database, Schedulers(), Preferences(), ZONE)
    for index, card_id in enumerate(finder.find("", clock()).card_ids):
        changes.set_due([card_id], str(index % 4), clock())
    clock.advance(hours=1)
    return {"days": 3} if kind is SessionKind.PREVIEW else {"minutes": 10}


@pytest.mark.parametrize("kind", list(SessionKind))
def test_each_kind_of_session_starts_from_the_dialog_and_ends_on_the_deck_list(
    qtbot: QtBot, make_window: WindowFactory, bundled: Database, clock: Clock, kind: SessionKind
) -> None:
    fields = _ready_for(kind, bundled, clock)
    window = make_window()
    dialog = window.open_custom_study()
    dialog.kind.setCurrentIndex(dialog.kind.findData(kind.value))
    for name, value in fields.items():
        widget = getattr(dialog, name)
        if isinstance(value, int):
            widget.setValue(value)
        else:
            widget.setText(value)
    assert dialog.preview.text().split()[1] in ("card", "cards"), dialog.preview.text()
    count = int(dialog.preview.text().split()[0])
    assert count > 0
    with bundled.reading() as transaction:
        before = len(list(transaction.history.all()))
    qtbot.keyClick(dialog, Qt.Key.Key_Return)
    assert not dialog.isVisible()
    shown = _answer_all(qtbot, window, clock)
    assert len(shown) == count
    with bundled.reading() as transaction:
        added = sorted(transaction.history.all(), key=lambda entry: entry.id)[before:]
    expected = ReviewKind.CRAM if kind is SessionKind.CRAM else ReviewKind.ANSWER
    assert [entry.kind for entry in added] == [expected] * count
    assert window.pages.currentWidget() is window.summary
    assert window.summary.title.text() == "Session done"
    qtbot.keyClick(window.summary, Qt.Key.Key_Return)
    assert window.pages.currentWidget() is window.deck_list
