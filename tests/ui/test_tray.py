"""The tray icon's count, tooltip, badge and menu, and the daily reminder on a fake clock."""

from __future__ import annotations

import dataclasses
import random
from datetime import datetime, time, timedelta
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings, Qt
from PySide6.QtGui import QColor, QPixmap
from PySide6.QtWidgets import QApplication, QDialogButtonBox, QLineEdit
from pytestqt.qtbot import QtBot

from recall.collection import deck_list as library
from recall.core import fields
from recall.core.fields import OptionError
from recall.core.preferences import Preferences
from recall.host import autostart
from recall.options import deck_options
from recall.scheduling import Schedulers
from recall.storage import Database
from recall.study.session import StudySession
from recall.ui.application import app_icon, configure
from recall.ui.main_window import MainWindow
from recall.ui.reminders import DailyReminder
from recall.ui.tray import TrayIcon, badge_pixmap, due_today, tooltip_text
from tests.conftest import ZONE, Clock, answer_cards
from tests.study.test_study import right_position as study_right_position
from tests.ui.conftest import FakePrompts
from tests.ui.conftest import tooltip_text as tooltip_shown
from tests.ui.test_review_window import DIGITS, right_position

NINE = time(9, 0)  # the reminder time in these tests, Berlin time
# The offscreen platform has no tray host; showing an icon there makes Qt say so.
pytestmark = pytest.mark.qt_log_ignore(
    r"QObject::connect: No such signal QPlatformNativeInterface::systemTrayWindowChanged",
    "^This plugin does not support (raise|propagateSizeHints)",  # offscreen: a dialog
)


def _red_in_corner(pixmap: QPixmap) -> bool:
    image = pixmap.toImage()
    size = image.width()
    colour = QColor(image.pixel(int(size * 0.97), int(size * 0.7)))  # the disc, beside the text
    return colour.red() > 150 and colour.green() < 90 and colour.blue() < 90


def _studied(bundled: Database, clock: Clock, cards: int = 3) -> int:
    """Study ``cards`` cards, move a month on; returns the count due then."""
    answer_cards(bundled, clock, cards)
    clock.advance(days=30)
    due = due_today(library.deck_overviews(bundled, clock(), ZONE))
    assert due == cards
    return due


def _window(
    qtbot: QtBot,
    bundled: Database,
    clock: Clock,
    tmp_path: Path,
    prompts: FakePrompts,
    tray: bool = True,
) -> MainWindow:
    qapp = QApplication.instance()
    assert isinstance(qapp, QApplication)
    configure(qapp)
    window = MainWindow(
        bundled,
        QSettings(str(tmp_path / "window.ini"), QSettings.Format.IniFormat),
        clock,
        rng=random.Random(5),
        zone=ZONE,
        prompts=prompts,
        schedulers=Schedulers(fuzz=False),
        tray_available=tray,
    )
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    return window


def test_tray_icon_says_the_due_count_in_its_tooltip_and_badge(qapp: QApplication) -> None:
    icon = TrayIcon(app_icon())
    icon.set_count(12)
    assert tooltip_shown(icon.tray.toolTip()) == "Recall: 12 cards due today"
    assert _red_in_corner(icon.tray.icon().pixmap(64, 64))
    assert icon.study_action.isEnabled()
    icon.set_count(1)
    assert tooltip_shown(icon.tray.toolTip()) == "Recall: 1 card due today"
    icon.set_count(0)
    assert tooltip_shown(icon.tray.toolTip()) == "Recall: 0 cards due today"
    assert not _red_in_corner(icon.tray.icon().pixmap(64, 64))
    assert not icon.study_action.isEnabled()  # nothing to study
    texts = [action.text() for action in icon.menu.actions() if not action.isSeparator()]
    assert texts == ["&Study", "S&how Recall", "&Quit"]


def test_badge_paints_the_count_and_keeps_the_icon_without_one(qapp: QApplication) -> None:
    plain = app_icon().pixmap(64, 64).toImage()
    assert badge_pixmap(app_icon(), 0).toImage() == plain
    many = badge_pixmap(app_icon(), 250)  # "99+"
    assert many.toImage() != badge_pixmap(app_icon(), 7).toImage()
    assert _red_in_corner(many)
    assert tooltip_text(1204) == "Recall: 1,204 cards due today"


def test_window_tray_counts_cards_due_and_follows_an_answer(
    qtbot: QtBot, bundled: Database, clock: Clock, tmp_path: Path, prompts: FakePrompts
) -> None:
    # Every card answered right once: a month on, each is a review card, due.
    session = StudySession(bundled, Schedulers(fuzz=False), "activation-recompute")
    while (shown := session.next_card(clock())) is not None:
        choice = shown.order[study_right_position(shown)]
        answer = session.answer_choice(shown, {choice}, clock.advance(seconds=5))
        session.record(answer, answer.proposed, clock())
    clock.advance(days=30)
    due = due_today(library.deck_overviews(bundled, clock(), ZONE))
    window = _window(qtbot, bundled, clock, tmp_path, prompts)
    icon = window.presence.icon
    assert icon is not None
    assert tooltip_shown(icon.tray.toolTip()) == f"Recall: {due} cards due today"
    assert icon.tray.isVisible()
    icon.study_action.trigger()  # Study: the selected deck's session starts
    review = window.review
    assert review is not None
    assert window.pages.currentWidget() is review
    qtbot.keyClick(review, DIGITS[right_position(review) + 1])
    qtbot.keyClick(review, Qt.Key.Key_Space)  # the proposed rating: back in days
    qtbot.waitUntil(lambda: window.presence.count == due - 1)
    assert tooltip_shown(icon.tray.toolTip()) == f"Recall: {due - 1} cards due today"


def test_tray_show_brings_a_hidden_window_back_and_quit_closes_it(
    qtbot: QtBot, bundled: Database, clock: Clock, tmp_path: Path, prompts: FakePrompts
) -> None:
    window = _window(qtbot, bundled, clock, tmp_path, prompts)
    icon = window.presence.icon
    assert icon is not None
    window.hide()
    icon.show_action.trigger()
    assert window.isVisible()
    icon.quit_action.trigger()
    assert not window.isVisible()
    assert not icon.tray.isVisible()


def test_minimise_to_tray_hides_the_window_only_when_chosen(
    qtbot: QtBot, bundled: Database, clock: Clock, tmp_path: Path, prompts: FakePrompts
) -> None:
    window = _window(qtbot, bundled, clock, tmp_path, prompts)
    window.showMinimized()
    qtbot.wait(50)  # let the event loop deliver the state change; no clock is involved
    assert window.isVisible()  # not chosen: an ordinary minimised window
    window.showNormal()
    window.preferences = dataclasses.replace(window.preferences, minimize_to_tray=True)
    window.showMinimized()
    qtbot.waitUntil(lambda: not window.isVisible())


def test_no_tray_means_no_icon_and_the_window_stays_findable(
    qtbot: QtBot, bundled: Database, clock: Clock, tmp_path: Path, prompts: FakePrompts
) -> None:
    window = _window(qtbot, bundled, clock, tmp_path, prompts, tray=False)
    assert window.presence.icon is None
    assert not window.presence.has_tray
    window.preferences = dataclasses.replace(window.preferences, minimize_to_tray=True)
    window.showMinimized()
    qtbot.wait(50)
    assert window.isVisible()  # never hidden where no tray icon could bring it back


def test_reminder_fires_at_its_time_once_a_day_when_cards_are_due(qapp: QApplication) -> None:
    clock = Clock(datetime(2026, 1, 15, 7, 30, tzinfo=ZONE))  # 07:30 in Berlin
    due = [4]
    reminder = DailyReminder(clock, ZONE, lambda: due[0])
    fired: list[int] = []
    reminder.due.connect(fired.append)
    reminder.set_time(NINE)
    assert reminder.next_time == datetime(2026, 1, 15, 9, 0, tzinfo=ZONE)
    assert reminder.timer.isActive()
    assert reminder.timer.interval() == 90 * 60 * 1000
    clock.advance(minutes=89)
    reminder.timer.timeout.emit()  # a timer that woke early: nothing yet, armed again
    assert fired == []
    assert reminder.next_time == datetime(2026, 1, 15, 9, 0, tzinfo=ZONE)
    clock.advance(minutes=1)
    reminder.timer.timeout.emit()
    assert fired == [4]
    assert reminder.next_time == datetime(2026, 1, 16, 9, 0, tzinfo=ZONE)
    clock.now = datetime(2026, 1, 15, 8, 0, tzinfo=ZONE)  # the clock is set back an hour
    reminder.check()
    clock.now = datetime(2026, 1, 15, 9, 0, tzinfo=ZONE)
    reminder.check()
    assert fired == [4]  # still once that day
    clock.now = datetime(2026, 1, 16, 9, 0, 30, tzinfo=ZONE)
    due[0] = 7
    reminder.timer.timeout.emit()
    assert fired == [4, 7]


def test_reminder_says_nothing_when_nothing_is_due(qapp: QApplication) -> None:
    clock = Clock(datetime(2026, 1, 15, 8, 59, tzinfo=ZONE))
    due = [0]
    reminder = DailyReminder(clock, ZONE, lambda: due[0])
    fired: list[int] = []
    reminder.due.connect(fired.append)
    reminder.set_time(NINE)
    clock.advance(minutes=1)
    reminder.check()
    due[0] = 5  # cards fall due later that day: the day's reminder has passed
    clock.advance(hours=3)
    reminder.check()
    assert fired == []
    reminder.set_time(None)
    assert reminder.next_time is None
    assert not reminder.timer.isActive()
    clock.now = datetime(2026, 1, 16, 9, 0, tzinfo=ZONE)
    reminder.check()
    assert fired == []  # turned off


def test_window_reminds_from_the_tray_or_by_notification_without_one(
    qtbot: QtBot,
    bundled: Database,
    clock: Clock,
    tmp_path: Path,
    prompts: FakePrompts,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    due = _studied(bundled, clock)
    clock.now = datetime(2026, 2, 14, 8, 0, tzinfo=ZONE)
    chosen = dataclasses.replace(deck_options.preferences(bundled), reminder_time=NINE)
    deck_options.save_preferences(bundled, chosen, clock())
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    said = tmp_path / "said.txt"
    notifier = bin_dir / "notify-send"
    notifier.write_text(f'#!/bin/sh\nprintf "%s|" "$@" > "{said}"\n', encoding="utf-8")
    notifier.chmod(0o755)
    monkeypatch.setenv("PATH", str(bin_dir))
    window = _window(qtbot, bundled, clock, tmp_path, prompts, tray=False)
    reminder = window.presence.reminder
    assert reminder.next_time == datetime(2026, 2, 14, 9, 0, tzinfo=ZONE)
    clock.advance(hours=1)
    reminder.timer.timeout.emit()
    qtbot.waitUntil(said.exists)
    qtbot.waitUntil(lambda: said.read_text(encoding="utf-8").endswith("|"))
    words = said.read_text(encoding="utf-8").split("|")
    assert words[-3:] == ["Recall", f"{due} cards are due today.", ""]
    assert "--app-name=Recall" in words


def test_rollover_counts_the_new_day(
    qtbot: QtBot, bundled: Database, clock: Clock, tmp_path: Path, prompts: FakePrompts
) -> None:
    window = _window(qtbot, bundled, clock, tmp_path, prompts)
    assert window.presence.count == 0  # nothing studied yet
    answer_cards(bundled, clock, 3)  # as another computer's reviews arrive
    timer = window.presence.rollover_timer
    assert timer.isActive()
    # The bundled preferences roll over at 04:00: 10:00 Berlin now, so 18 hours to go.
    assert timedelta(milliseconds=timer.interval()) == timedelta(hours=18)
    clock.advance(days=30)
    timer.timeout.emit()
    qtbot.waitUntil(lambda: window.presence.count == 3)
    assert window.presence.icon is not None
    assert tooltip_shown(window.presence.icon.tray.toolTip()) == "Recall: 3 cards due today"


def test_reminder_time_is_an_option_that_reads_and_stores_a_time_of_day() -> None:
    item = fields.info(Preferences, "reminder_time")
    assert item.kind == "daytime"
    assert fields.parse(item, "9:05") == time(9, 5)
    assert fields.parse(item, "off") is None
    assert fields.format_value(time(21, 30), item) == "21:30"
    with pytest.raises(OptionError, match="Daily reminder at: '25:00' is not a time of day"):
        fields.parse(item, "25:00")
    chosen = dataclasses.replace(Preferences(), reminder_time=time(7, 45))
    stored = fields.to_stored(chosen)
    assert stored["reminder_time"] == "07:45"
    assert fields.from_stored(Preferences, stored).reminder_time == time(7, 45)
    assert fields.from_stored(Preferences, {"reminder_time": 12}).reminder_time is None


def test_start_when_you_log_in_writes_and_removes_the_autostart_entry(
    qtbot: QtBot, bundled: Database, clock: Clock, tmp_path: Path, prompts: FakePrompts
) -> None:
    window = _window(qtbot, bundled, clock, tmp_path, prompts)
    entry = tmp_path / "config" / "autostart" / "recall.desktop"
    assert not entry.exists()  # opening the window writes nothing
    on = dataclasses.replace(window.preferences, start_with_session=True)
    window.options.preferences_saved.emit(on)
    assert autostart.exec_arguments(entry.read_text(encoding="utf-8"))[-1] == "--minimized"
    window.options.preferences_saved.emit(dataclasses.replace(on, start_with_session=False))
    assert not entry.exists()


def test_reminder_time_typed_in_preferences_arms_the_reminder(
    qtbot: QtBot, bundled: Database, clock: Clock, tmp_path: Path, prompts: FakePrompts
) -> None:
    window = _window(qtbot, bundled, clock, tmp_path, prompts)
    assert window.presence.reminder.next_time is None  # off until chosen
    window.options.preferences_action.trigger()
    dialog = window.options.preferences_dialog
    assert dialog is not None
    editor = dialog.form.editors["reminder_time"]
    assert isinstance(editor, QLineEdit)
    assert editor.text() == ""  # off: its placeholder says so
    editor.setText("21:15")
    dialog.buttons.button(QDialogButtonBox.StandardButton.Save).click()
    assert deck_options.preferences(bundled).reminder_time == time(21, 15)
    # 10:00 in Berlin now: tonight's 21:15.
    assert window.presence.reminder.next_time == datetime(2026, 1, 15, 21, 15, tzinfo=ZONE)
