"""The window driven by keyboard and mouse, checked against what the database stored."""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import timedelta
from pathlib import Path

import pytest
from PySide6.QtCore import QPoint, QSettings, QSize, Qt
from PySide6.QtGui import QTextDocument
from PySide6.QtWidgets import QAbstractButton, QLabel, QScrollArea, QWidget
from pytestqt.modeltest import ModelTester
from pytestqt.qtbot import QtBot

from recall.collection import deck_list as library
from recall.collection import importing
from recall.content.deck_format import ChoiceCard
from recall.core.memory import CardState, Rating
from recall.scheduling import Schedulers
from recall.storage import Database
from recall.study.values import Summary
from recall.ui.main_window import MainWindow
from recall.ui.review.choice_outcome import Outcome
from recall.ui.review.view import Phase, ReviewView
from recall.ui.text import markdown_to_html
from tests.conftest import DATA, ZONE, Clock
from tests.ui.conftest import WindowFactory, tooltip_text

DIGITS = [getattr(Qt.Key, f"Key_{digit}") for digit in range(10)]


def start_studying(qtbot: QtBot, window: MainWindow) -> ReviewView:
    qtbot.keyClick(window.deck_list.table, Qt.Key.Key_Return)
    review = window.review
    assert review is not None
    assert window.pages.currentWidget() is review
    return review


def right_position(review: ReviewView) -> int:
    shown = review.shown
    assert shown is not None
    assert isinstance(shown.card, ChoiceCard)
    return next(p for p, i in enumerate(shown.order) if shown.card.choices[i].correct)


def reviews_in(database: Database) -> list[tuple[int, int | None, bool]]:
    """The reviews in the order they were answered (the tests' clock stands still, and
    reviews of one instant are kept in the order of their shared ids)."""
    with database.transaction() as tx:
        answered = sorted(tx.history.all(), key=lambda r: r.id)
        return [(r.card_id, r.rating, r.correct) for r in answered]


def phase_of(review: ReviewView) -> Phase:
    return review.phase


def label(parent: QWidget, name: str) -> QLabel:
    found = parent.findChild(QLabel, name)
    assert found is not None, name
    return found


def button(parent: QWidget, name: str) -> QAbstractButton:
    found = parent.findChild(QAbstractButton, name)
    assert found is not None, name
    return found


def visible_text(label: QLabel) -> str:
    """What a label shows, as plain text ("" when hidden)."""
    if not label.isVisible():
        return ""
    document = QTextDocument()
    document.setHtml(label.text())
    return document.toPlainText().strip()


def test_whole_deck_by_keyboard(
    qtbot: QtBot, window: MainWindow, bundled: Database, clock: Clock, schedulers: Schedulers
) -> None:
    assert window.windowTitle() == "Recall"
    assert window.deck_list.selected_key() == "activation-recompute"
    review = start_studying(qtbot, window)
    answers = 0
    while window.pages.currentWidget() is review:
        assert phase_of(review) is Phase.QUESTION
        clock.advance(seconds=6)
        qtbot.keyClick(review, DIGITS[right_position(review) + 1])
        assert phase_of(review) is Phase.FEEDBACK
        assert label(review, "verdict").text() == "Correct"
        assert visible_text(label(review, "explanation"))
        assert visible_text(label(review, "source")).startswith("Source:")
        assert all(button.isVisible() for button in review.rating_buttons.values())
        clock.advance(seconds=3)
        qtbot.keyClick(review, Qt.Key.Key_Space)
        answers += 1
        assert answers <= 16
    assert window.pages.currentWidget() is window.summary
    assert window.summary.title.text() == "Done for today"
    assert window.summary.reviewed.text() == "8 (16 answers)"
    assert window.summary.correct.text() == "100% (16 of 16)"

    stored = reviews_in(bundled)
    assert len(stored) == answers == 16
    assert all(rating == Rating.GOOD and correct for _, rating, correct in stored)
    (deck,) = library.deck_overviews(bundled, clock(), ZONE)
    assert (deck.new, deck.unseen, deck.due) == (0, 0, 0)

    qtbot.keyClick(window.summary, Qt.Key.Key_Return)
    assert window.pages.currentWidget() is window.deck_list
    assert window.deck_list.model.deck_at(0).new == 0


def test_wrong_answer_feedback_marks_choices_in_words(
    qtbot: QtBot, window: MainWindow, bundled: Database
) -> None:
    review = start_studying(qtbot, window)
    right = right_position(review)
    wrong = (right + 1) % 4
    qtbot.keyClick(review, DIGITS[wrong + 1])
    assert label(review, "verdict").text() == "Not quite"
    buttons = review.choice_buttons
    assert buttons[wrong].property("outcome") == Outcome.PICKED_WRONG.name.lower()
    assert buttons[right].property("outcome") == Outcome.RIGHT.name.lower()
    assert buttons[wrong].accessibleName().endswith("(your answer, wrong)")
    assert buttons[right].accessibleName().endswith("(the right answer)")
    shown = review.shown
    assert shown is not None
    assert isinstance(shown.card, ChoiceCard)
    why = shown.card.choices[shown.order[wrong]].why
    assert why is not None
    assert why[:30] in visible_text(label(review, "pickedNote"))
    assert review.answer is not None
    assert review.answer.proposed is Rating.AGAIN
    assert review.rating_buttons[Rating.AGAIN].property("suggested") is True
    qtbot.keyClick(review, Qt.Key.Key_Space)
    assert reviews_in(bundled) == [(shown.card_id, Rating.AGAIN, False)]


def test_digit_after_the_answer_overrides_the_rating(
    qtbot: QtBot, window: MainWindow, bundled: Database
) -> None:
    review = start_studying(qtbot, window)
    qtbot.keyClick(review, DIGITS[right_position(review) + 1])
    qtbot.keyClick(review, Qt.Key.Key_4)
    ((_, rating, correct),) = reviews_in(bundled)
    assert (rating, correct) == (Rating.EASY, True)


def test_mouse_click_on_a_choice_and_a_rating(
    qtbot: QtBot, window: MainWindow, bundled: Database
) -> None:
    review = start_studying(qtbot, window)
    qtbot.mouseClick(review.choice_buttons[right_position(review)], Qt.MouseButton.LeftButton)
    assert phase_of(review) is Phase.FEEDBACK
    qtbot.mouseClick(review.rating_buttons[Rating.HARD], Qt.MouseButton.LeftButton)
    ((_, rating, _),) = reviews_in(bundled)
    assert rating == Rating.HARD


def test_ctrl_z_undoes_the_last_rating(qtbot: QtBot, window: MainWindow, bundled: Database) -> None:
    review = start_studying(qtbot, window)
    first = review.shown
    assert first is not None
    qtbot.keyClick(review, DIGITS[right_position(review) + 1])
    qtbot.keyClick(review, Qt.Key.Key_Space)
    assert len(reviews_in(bundled)) == 1
    assert window.menus.undo_action.isEnabled()

    qtbot.keyClick(review, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)

    assert reviews_in(bundled) == []
    assert review.shown is not None
    assert review.shown.card_id == first.card_id
    assert review.shown.memory.state is CardState.NEW
    assert phase_of(review) is Phase.QUESTION
    assert not window.menus.undo_action.isEnabled()


def test_escape_goes_back_and_keeps_the_answer_on_screen(
    qtbot: QtBot, window: MainWindow, bundled: Database
) -> None:
    review = start_studying(qtbot, window)
    qtbot.keyClick(review, DIGITS[right_position(review) + 1])
    qtbot.keyClick(review, Qt.Key.Key_Escape)
    assert window.pages.currentWidget() is window.deck_list
    assert [rating for _, rating, _ in reviews_in(bundled)] == [Rating.GOOD]
    assert window.deck_list.model.deck_at(0).new == 7


def test_quitting_with_an_answer_on_screen_records_it(
    qtbot: QtBot, window: MainWindow, bundled: Database
) -> None:
    review = start_studying(qtbot, window)
    qtbot.keyClick(review, DIGITS[right_position(review) + 1])
    qtbot.keyClick(review, Qt.Key.Key_Q, Qt.KeyboardModifier.ControlModifier)
    assert not window.isVisible()
    assert len(reviews_in(bundled)) == 1


def test_select_all_and_basic_cards_by_keyboard(
    qtbot: QtBot, make_window: WindowFactory, bundled: Database, clock: Clock
) -> None:
    importing.import_files(bundled, Schedulers(), [DATA / "decks" / "tiny.json"], clock())
    window = make_window()
    window.study("tiny")
    review = window.review
    assert review is not None
    assert visible_text(label(review, "question")) == "Two plus two?"
    qtbot.keyClick(review, DIGITS[right_position(review) + 1])
    qtbot.keyClick(review, Qt.Key.Key_Space)

    shown = review.shown
    assert shown is not None
    assert shown.card.id == "b1"
    assert button(review, "submit").text() == "Show answer"
    assert not label(review, "back").isVisible()
    qtbot.keyClick(review, Qt.Key.Key_Space)
    assert visible_text(label(review, "back")) == "Paris"
    qtbot.keyClick(review, Qt.Key.Key_1)
    assert [(rating, correct) for _, rating, correct in reviews_in(bundled)] == [
        (Rating.GOOD, True),
        (Rating.AGAIN, False),
    ]


def test_every_control_has_an_accessible_name(qtbot: QtBot, window: MainWindow) -> None:
    def unnamed(page: QWidget) -> list[str]:
        controls = [c for c in page.findChildren(QAbstractButton) if c.isVisibleTo(page)]
        assert controls, page.objectName()
        return [c.objectName() or c.text() for c in controls if not c.accessibleName()]

    assert unnamed(window.deck_list) == []
    assert window.deck_list.table.accessibleName() == "Decks"
    assert unnamed(window.summary) == []
    review = start_studying(qtbot, window)
    assert unnamed(review) == []
    qtbot.keyClick(review, DIGITS[right_position(review) + 1])
    assert unnamed(review) == []


def test_deck_list_model(qtmodeltester: ModelTester, window: MainWindow) -> None:
    qtmodeltester.check(window.deck_list.model)


def test_window_fits_small_screens_without_sideways_scrolling(
    qtbot: QtBot, window: MainWindow
) -> None:
    window.resize(QSize(800, 600))
    review = start_studying(qtbot, window)
    qtbot.keyClick(review, DIGITS[right_position(review) + 1])
    qtbot.wait(10)
    scroll = review.findChild(QScrollArea, "reviewScroll")
    assert scroll is not None
    assert not scroll.horizontalScrollBar().isVisible()
    for button in review.rating_buttons.values():
        assert button.isVisible()
        assert button.geometry().right() <= review.width()


def _in_view(scroll: QScrollArea, widget: QWidget) -> tuple[int, int]:
    """Where a widget's top and bottom are in the scroll area's viewport."""
    top = widget.mapTo(scroll.viewport(), QPoint(0, 0)).y()
    return top, top + widget.height()


@pytest.mark.parametrize("size", [QSize(800, 600), QSize(1000, 720)])
def test_wrong_answer_shows_the_feedback_with_both_marked_choices_and_no_question_cut(
    qtbot: QtBot, window: MainWindow, size: QSize
) -> None:
    window.resize(size)
    review = start_studying(qtbot, window)
    right = right_position(review)
    wrong = (right + 3) % 4
    qtbot.keyClick(review, DIGITS[wrong + 1])
    qtbot.wait(10)
    scroll = review.findChild(QScrollArea, "reviewScroll")
    assert scroll is not None
    height = scroll.viewport().height()
    for position in (wrong, right):
        top, bottom = _in_view(scroll, review.choice_buttons[position])
        assert top >= 0, (position, top)
        assert bottom <= height, (position, bottom, height)
    verdict_top, verdict_bottom = _in_view(scroll, label(review, "verdict"))
    assert verdict_top >= 0
    assert verdict_bottom <= height
    question_top, question_bottom = _in_view(scroll, label(review, "question"))
    # The question, the marked choices and the verdict fit together: the question stays.
    assert question_top >= 0
    assert question_bottom <= height
    note_top, _ = _in_view(scroll, label(review, "pickedNote"))
    assert note_top < height  # the note on the picked choice begins in view


def test_an_answer_that_fits_leaves_the_question_in_view(qtbot: QtBot, window: MainWindow) -> None:
    window.resize(QSize(1400, 1400))
    review = start_studying(qtbot, window)
    qtbot.keyClick(review, DIGITS[right_position(review) + 1])
    qtbot.wait(10)
    scroll = review.findChild(QScrollArea, "reviewScroll")
    assert scroll is not None
    assert scroll.verticalScrollBar().value() == 0


def test_window_remembers_its_size(
    qtbot: QtBot, make_window: WindowFactory, window_settings: QSettings
) -> None:
    first = make_window()
    # The offscreen screen is 800x600: stay inside it so nothing clamps the size.
    first.resize(QSize(720, 540))
    first.close()
    second = make_window()
    assert second.size() == QSize(720, 540)


def test_card_text_cannot_load_files_or_run_html() -> None:
    html = markdown_to_html(
        "![secret](file:///etc/passwd) <img src='/etc/hosts'> <script>x()</script> `code`"
    )
    assert "<img" not in html
    assert "/etc/passwd" not in html
    assert "<script" not in html
    assert "&lt;script&gt;" in html
    assert "[secret]" in html


def test_deck_names_and_descriptions_show_as_written(
    qtbot: QtBot, make_window: WindowFactory, bundled: Database, clock: Clock, tmp_path: Path
) -> None:
    raw = json.loads((DATA / "decks" / "tiny.json").read_text())
    raw["name"] = "<b>Bold</b> <img src='file:///etc/hosts'>"
    raw["description"] = "<i>not italic</i>"
    deck_file = tmp_path / "tags.json"
    deck_file.write_text(json.dumps(raw))
    importing.import_files(bundled, Schedulers(), [deck_file], clock())
    window = make_window()
    model = window.deck_list.model
    row = model.row_of("tiny")
    assert row is not None
    assert model.data(model.index(row, 0)) == raw["name"]
    tooltip = model.data(model.index(row, 0), Qt.ItemDataRole.ToolTipRole)
    assert tooltip.startswith("<p")
    assert tooltip_text(tooltip) == "<i>not italic</i>"
    window.summary.show_summary(raw["name"], window_summary_of_nothing(), clock())
    assert window.summary.subtitle.textFormat() == Qt.TextFormat.PlainText
    assert raw["name"] in window.summary.subtitle.text()


def window_summary_of_nothing() -> Summary:
    return Summary(cards=0, answered=0, correct=0, time_spent=timedelta(0), next_due=None)


def test_the_summary_says_when_no_studied_card_is_scheduled(
    window: MainWindow, clock: Clock
) -> None:
    window.summary.show_summary("Tiny", window_summary_of_nothing(), clock())
    assert window.summary.next_due.text() == "none scheduled"
    later = replace(window_summary_of_nothing(), next_due=clock() + timedelta(days=3))
    window.summary.show_summary("Tiny", later, clock())
    assert window.summary.next_due.text() not in ("", "none scheduled")
