"""The statistics window: today, what is coming, the calendar, reviews, cards, memory,
true retention, hours, ratings, misconceptions and item analysis, for one deck or all, over
a period.

The figures are computed by ``recall.stats`` on the task runner's thread; the window only
draws the values it gets back.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime, tzinfo

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QCloseEvent, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from recall import stats
from recall.core import i18n
from recall.core.errors import RecallError
from recall.core.i18n import mark, tr
from recall.core.preferences import Preferences
from recall.stats import item_analysis
from recall.stats.cards import card_picks
from recall.stats.figures import Coming, Schedules, Statistics
from recall.stats.item_analysis import ItemAnalysis
from recall.stats.schedules import collect_forecast, collect_schedules
from recall.storage import Database
from recall.ui.override_errors import reports_errors
from recall.ui.plain_text import plain_label
from recall.ui.statistics.misconceptions_view import CardPicksDialog
from recall.ui.statistics.page import StatisticsPage
from recall.ui.tasks import TaskRunner

PERIODS: tuple[tuple[str, int | None], ...] = (
    (mark("Month"), 30),
    (mark("3 Months"), 91),
    (mark("Year"), 365),
    (mark("All Time"), None),
)


@reports_errors
class StatisticsWindow(QWidget):
    """Statistics for the collection or one deck; the figures load off the GUI thread.

    Args:
        database: The open database.
        settings: For the day rollover and FSRS's forgetting curve.
        clock: The current time, aware UTC.
        decks: ``(key, name)`` of every deck, for the deck selector.
        deck_key: The deck to show first; None for all decks.
        zone: The learner's time zone; None is the system's.
    """

    loaded = Signal()
    forecast_shown = Signal()
    schedules_shown = Signal()
    card_requested = Signal(int)
    item_analysis_shown = Signal()

    def __init__(
        self,
        database: Database,
        settings: Preferences,
        clock: Callable[[], datetime],
        decks: Sequence[tuple[str, str]],
        deck_key: str | None = None,
        zone: tzinfo | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent, Qt.WindowType.Window)
        self._database = database
        self._settings = settings
        self._clock = clock
        self._zone = zone
        self._generation = 0
        self.statistics: Statistics | None = None
        self.card_dialog: CardPicksDialog | None = None
        self.tasks = TaskRunner(self)
        self.setObjectName("statisticsWindow")
        self.setWindowTitle(tr("Statistics"))
        self.setAccessibleName(tr("Statistics"))
        self.resize(1180, 820)
        self._build(decks, deck_key)
        self._connect_signals()

    # Public API

    def refresh(self) -> None:
        """Compute the figures for the chosen deck and period again, off the GUI thread.

        What was queued for the deck or period shown before and has not started is dropped:
        switching twice at a million cards waits for one set of figures, not three.
        """
        self.tasks.drop_queued()
        self._generation += 1
        generation = self._generation
        database, settings, now, zone = self._database, self._settings, self._clock(), self._zone
        deck, period = self.deck_key(), self.period_days()
        self.status.setText(tr("Computing..."))

        def first() -> Coming:
            return collect_forecast(database, settings, now, deck, period, zone)

        def quick() -> Schedules:
            return collect_schedules(database, settings, now, deck, period, zone)

        def work() -> Statistics:
            return stats.collect(database, settings, now, deck, period, zone)

        # The first chart (the forecast, two walks of the due index) first, then the rest
        # of the schedules' figures (quick at any size), then the history's; the task
        # runner runs one job at a time, in order.
        self.tasks.run(
            first,
            lambda figures: self._on_forecast(generation, figures),
            lambda error: self._on_failed(generation, error),
        )
        self.tasks.run(
            quick,
            lambda figures: self._on_schedules(generation, figures),
            lambda error: self._on_failed(generation, error),
        )
        self.tasks.run(
            work,
            lambda figures: self._on_loaded(generation, figures),
            lambda error: self._on_failed(generation, error),
        )
        self.tasks.run(
            lambda: item_analysis.item_analysis(database, deck),
            lambda analysis: self._on_item_analysis(generation, analysis),
            lambda error: self._on_failed(generation, error),
        )

    def deck_key(self) -> str | None:
        """The deck shown, None for all decks."""
        key = self.deck_box.currentData()
        return str(key) if key else None

    def period_days(self) -> int | None:
        """The period shown in study days, None for all time."""
        days = self.period_box.currentData()
        return int(days) if days else None

    def set_decks(self, decks: Sequence[tuple[str, str]]) -> None:
        """Offer these decks (``(key, name)``), keeping the one shown if it is still there."""
        shown = self.deck_key()
        self.deck_box.blockSignals(True)
        self.deck_box.clear()
        self.deck_box.addItem(tr("All decks"), "")
        for key, name in decks:
            self.deck_box.addItem(name, key)
        self.deck_box.setCurrentIndex(max(0, self.deck_box.findData(shown or "")))
        self.deck_box.blockSignals(False)
        if self.deck_key() != shown:
            self.refresh()  # the deck shown is gone: all decks now

    def set_deck(self, key: str | None) -> None:
        """Show one deck (None: all decks)."""
        index = self.deck_box.findData(key or "")
        self.deck_box.setCurrentIndex(max(0, index))

    def set_period(self, days: int | None) -> None:
        """Show a period: 30, 91 or 365 study days, or None for all time."""
        index = self.period_box.findData(days or 0)
        self.period_box.setCurrentIndex(max(0, index))

    # Building

    def _build(self, decks: Sequence[tuple[str, str]], deck_key: str | None) -> None:
        self.deck_box = QComboBox()
        self.deck_box.setAccessibleName(tr("Deck"))
        self.deck_box.addItem(tr("All decks"), "")
        for key, name in decks:
            self.deck_box.addItem(name, key)
        self.deck_box.setCurrentIndex(max(0, self.deck_box.findData(deck_key or "")))
        self.period_box = QComboBox()
        self.period_box.setAccessibleName(tr("Period"))
        for name, days in PERIODS:
            self.period_box.addItem(i18n.tr(name), days or 0)
        self.status = plain_label()
        self.status.setObjectName("statisticsStatus")
        self.status.setAccessibleName(tr("Status"))
        deck_label = plain_label(tr("&Deck:"))
        deck_label.setBuddy(self.deck_box)
        period_label = plain_label(tr("&Period:"))
        period_label.setBuddy(self.period_box)
        bar = QHBoxLayout()
        bar.addWidget(deck_label)
        bar.addWidget(self.deck_box, 2)
        bar.addSpacing(12)
        bar.addWidget(period_label)
        bar.addWidget(self.period_box, 1)
        bar.addWidget(self.status, 2)

        self.page = StatisticsPage()
        self.page_scroll = QScrollArea()
        self.page_scroll.setWidgetResizable(True)
        self.page_scroll.setWidget(self.page)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(12, 10, 12, 0)
        layout.addLayout(bar)
        layout.addWidget(self.page_scroll, 1)
        QShortcut(QKeySequence.StandardKey.Close, self, self.close)
        QShortcut(QKeySequence("Escape"), self, self.close)

    def _connect_signals(self) -> None:
        self.deck_box.currentIndexChanged.connect(self._on_choice_changed)
        self.period_box.currentIndexChanged.connect(self._on_choice_changed)
        self.page.misconceptions_view.card_requested.connect(self.card_requested)
        self.page.misconceptions_view.picks_requested.connect(self._on_picks_requested)

    # Showing

    def _show(self, figures: Statistics) -> None:
        self.statistics = figures
        self.page.show_figures(figures)
        if figures.whole_history:
            shown = tr("{deck}, all time").format(deck=figures.deck_name)
        else:
            shown = tr("{deck}, last {days} days").format(
                deck=figures.deck_name, days=figures.period_days
            )
        self.status.setText(shown)

    # Qt overrides

    def closeEvent(self, event: QCloseEvent) -> None:
        # Figures nobody will see are not computed: only the job running now finishes.
        self.tasks.drop_queued()
        self._generation += 1
        super().closeEvent(event)

    # Slots

    def _on_choice_changed(self) -> None:
        self.refresh()

    def _on_forecast(self, generation: int, figures: Coming) -> None:
        if generation == self._generation:
            self.page.show_forecast(figures)
            self.forecast_shown.emit()

    def _on_schedules(self, generation: int, figures: Schedules) -> None:
        if generation == self._generation:
            self.page.show_schedules(figures)
            self.schedules_shown.emit()

    def _on_loaded(self, generation: int, figures: Statistics) -> None:
        if generation == self._generation:
            self._show(figures)
            self.loaded.emit()

    def _on_item_analysis(self, generation: int, analysis: ItemAnalysis) -> None:
        if generation == self._generation:
            self.page.show_item_analysis(analysis)
            self.item_analysis_shown.emit()

    def _on_failed(self, generation: int, error: Exception) -> None:
        if not isinstance(error, RecallError):
            raise error  # a bug: the crash dialog shows it with its traceback
        if generation == self._generation:
            self.status.setText(tr("Statistics could not be computed: {error}").format(error=error))

    def _on_picks_requested(self, card_id: int) -> None:
        dialog = CardPicksDialog(card_picks(self._database, card_id), self)
        dialog.open()
        self.card_dialog = dialog
