"""The tray icon: today's due count as tooltip and badge, a Study / Show / Quit menu.

``TrayPresence`` keeps the count current (the window hands it the counts it computes; after
an answer, and at the day's rollover, it counts again off the window's thread) and owns the
daily reminder, which it shows as the tray's message or, on a desktop without a tray (stock
GNOME), as a desktop notification through the freedesktop service.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

from PySide6.QtCore import QObject, QRectF, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QColor, QFont, QIcon, QPainter, QPixmap
from PySide6.QtWidgets import QMenu, QSystemTrayIcon

from recall.collection import deck_list as library
from recall.collection.deck_list import DeckOverview
from recall.core import days
from recall.core.i18n import number, tr, trn
from recall.core.preferences import Preferences
from recall.host import autostart, notifications
from recall.ui.context import WindowContext
from recall.ui.plain_text import plain_tooltip
from recall.ui.reminders import DailyReminder

BADGE_SIZE = 64  # the pixmap the badge is drawn on; the tray scales it to its own size
BADGE_COLOUR = QColor("#c62828")  # a red that reads on light and dark panels alike
LONGEST_WAIT_MS = 24 * 60 * 60 * 1000


def due_today(overviews: Sequence[DeckOverview]) -> int:
    """Cards due today over every deck, within each deck's daily limits."""
    return sum(overview.due for overview in overviews)


def tooltip_text(count: int) -> str:
    """The tray's tooltip: ``Recall: 12 cards due today``."""
    return trn("Recall: {count} card due today", "Recall: {count} cards due today", count).format(
        count=number(count)
    )


def reminder_text(count: int) -> str:
    """The reminder's text."""
    return trn("{count} card is due today.", "{count} cards are due today.", count).format(
        count=number(count)
    )


def badge_label(count: int) -> str:
    """What the badge says: the count, or ``99+`` when it would not fit; '' for none."""
    if count <= 0:
        return ""
    return str(count) if count < 100 else "99+"


def badge_pixmap(icon: QIcon, count: int, size: int = BADGE_SIZE) -> QPixmap:
    """Recall's icon with the due count painted on a red disc in its lower right corner."""
    pixmap = icon.pixmap(size, size)
    if pixmap.isNull():
        pixmap = QPixmap(size, size)
        pixmap.fill(Qt.GlobalColor.transparent)
    label = badge_label(count)
    if not label:
        return pixmap
    painter = QPainter(pixmap)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    height = size * 0.6
    width = max(height, height * (0.45 + 0.3 * len(label)))
    disc = QRectF(size - width, size - height, width, height)
    painter.setPen(Qt.PenStyle.NoPen)
    painter.setBrush(BADGE_COLOUR)
    painter.drawRoundedRect(disc, height / 2, height / 2)
    font = QFont()
    font.setBold(True)
    font.setPixelSize(int(height * (0.8 if len(label) < 3 else 0.55)))
    painter.setFont(font)
    painter.setPen(QColor("white"))
    painter.drawText(disc, Qt.AlignmentFlag.AlignCenter, label)
    painter.end()
    return pixmap


class TrayIcon(QObject):
    """Recall's icon in the tray with the count, and its menu.

    Args:
        icon: Recall's icon, which the badge is painted on.
        parent: Owns the tray icon.
    """

    study_requested = Signal()
    show_requested = Signal()
    quit_requested = Signal()

    def __init__(self, icon: QIcon, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._icon = icon
        self.count = 0
        self.tray = QSystemTrayIcon(self)
        self.menu = QMenu()
        self.study_action = QAction(tr("&Study"), self.menu)
        self.show_action = QAction(tr("S&how Recall"), self.menu)
        self.quit_action = QAction(tr("&Quit"), self.menu)
        self.menu.addAction(self.study_action)
        self.menu.addAction(self.show_action)
        self.menu.addSeparator()
        self.menu.addAction(self.quit_action)
        self.menu.setAccessibleName(tr("Recall tray menu"))
        self.tray.setContextMenu(self.menu)
        self._connect_signals()
        self.set_count(0)

    def set_count(self, count: int) -> None:
        """Show ``count`` cards due today in the tooltip and on the badge."""
        self.count = count
        self.tray.setToolTip(plain_tooltip(tooltip_text(count)))
        self.tray.setIcon(QIcon(badge_pixmap(self._icon, count)))
        self.study_action.setEnabled(count > 0)

    def show_message(self, title: str, text: str) -> None:
        """A balloon or notification from the tray icon."""
        self.tray.showMessage(title, text, QIcon(badge_pixmap(self._icon, self.count)), 15_000)

    def _connect_signals(self) -> None:
        self.study_action.triggered.connect(self.study_requested)
        self.show_action.triggered.connect(self.show_requested)
        self.quit_action.triggered.connect(self.quit_requested)
        self.tray.activated.connect(self._on_activated)
        self.tray.messageClicked.connect(self.show_requested)

    def _on_activated(self, reason: QSystemTrayIcon.ActivationReason) -> None:
        if reason in (
            QSystemTrayIcon.ActivationReason.Trigger,
            QSystemTrayIcon.ActivationReason.DoubleClick,
        ):
            self.show_requested.emit()


class TrayPresence(QObject):
    """The tray icon (when the desktop has a tray), the due count and the daily reminder.

    Args:
        context: The collection, the clock and the window's task runner.
        preferences: The reminder time and the day's rollover hour.
        icon: Recall's icon.
        tray_available: Whether the desktop shows tray icons; None asks Qt.
        notify: Shows a desktop notification when there is no tray.
        parent: The main window.
    """

    study_requested = Signal()
    show_requested = Signal()
    quit_requested = Signal()
    count_changed = Signal(int)

    def __init__(
        self,
        context: WindowContext,
        preferences: Preferences,
        icon: QIcon,
        tray_available: bool | None = None,
        notify: Callable[[str, str], object] = notifications.notify,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self._context = context
        self._preferences = preferences
        self._notify = notify
        self.count = 0
        available = (
            QSystemTrayIcon.isSystemTrayAvailable() if tray_available is None else (tray_available)
        )
        self.icon: TrayIcon | None = TrayIcon(icon, self) if available else None
        self.reminder = DailyReminder(context.clock, context.zone, self.count_now, self)
        self.rollover_timer = QTimer(self)
        self.rollover_timer.setSingleShot(True)
        self._connect_signals()
        self.set_preferences(preferences)
        if self.icon is not None:
            self.icon.tray.show()

    @property
    def has_tray(self) -> bool:
        """Whether Recall's icon is in a tray (so a hidden window can be found again)."""
        return self.icon is not None

    def set_preferences(self, preferences: Preferences) -> None:
        """Follow changed preferences: the reminder's time, the day's rollover, and the
        autostart entry when "Start when you log in" was switched.

        Raises:
            AutostartError: The autostart entry could not be written or removed; the rest
                was applied.
        """
        switched = preferences.start_with_session != self._preferences.start_with_session
        self._preferences = preferences
        self.reminder.set_time(preferences.reminder_time)
        self._arm_rollover()
        if switched:
            autostart.set_enabled(preferences.start_with_session)

    def set_count(self, count: int) -> None:
        """Today's due count, as the window just computed it."""
        changed = count != self.count
        self.count = count
        if self.icon is not None:
            self.icon.set_count(count)
        if changed:
            self.count_changed.emit(count)

    def set_overviews(self, overviews: Sequence[DeckOverview]) -> None:
        """Take the count from the deck list's fresh counts."""
        self.set_count(due_today(overviews))

    def count_now(self) -> int:
        """Count the cards due today now, on this thread (the reminder does, once a day)."""
        context = self._context
        count = due_today(library.deck_overviews(context.database, context.clock(), context.zone))
        self.set_count(count)
        return count

    def refresh(self) -> None:
        """Count again off the window's thread (after an answer, a sync, the day's rollover)."""
        context = self._context
        database, now, zone = context.database, context.clock(), context.zone

        def work() -> int:
            return due_today(library.deck_overviews(database, now, zone))

        context.tasks.run(work, self.set_count)

    def remind(self, count: int) -> None:
        """Say that ``count`` cards are due: from the tray, else as a desktop notification."""
        if self.icon is not None:
            self.icon.show_message("Recall", reminder_text(count))
        else:
            self._notify("Recall", reminder_text(count))

    def hide(self) -> None:
        """Take the icon out of the tray (the window is closing)."""
        self.reminder.timer.stop()
        self.rollover_timer.stop()
        if self.icon is not None:
            self.icon.tray.hide()

    def _connect_signals(self) -> None:
        self.reminder.due.connect(self.remind)
        self.rollover_timer.timeout.connect(self._on_rollover)
        if self.icon is not None:
            self.icon.study_requested.connect(self.study_requested)
            self.icon.show_requested.connect(self.show_requested)
            self.icon.quit_requested.connect(self.quit_requested)

    def _arm_rollover(self) -> None:
        now = self._context.clock()
        rollover = days.next_rollover(now, self._preferences.day_rollover_hour, self._context.zone)
        wait = (rollover - now).total_seconds() * 1000
        self.rollover_timer.start(max(0, min(LONGEST_WAIT_MS, math.ceil(wait))))

    def _on_rollover(self) -> None:
        self.refresh()
        self._arm_rollover()
