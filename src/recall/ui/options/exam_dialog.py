"""Study > Exam Date: the day the learner sits an exam on a deck, and what to expect on it.

The forecast (``stats.exam``: the share remembered on the day, the cards a day a target
needs, what skipping today costs) simulates the days until the exam, so it runs on the task
runner with a progress bar; a new date or target cancels the run under way and starts
another. Saving stores the day with the deck (synced with it); from then on study caps the
deck's intervals before it.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import date, datetime, timedelta, tzinfo

from PySide6.QtCore import QDate, QObject, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QDateEdit,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QProgressBar,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from recall.core import wording
from recall.core.errors import CancelledError, RecallError
from recall.core.i18n import tr
from recall.options import exam_dates
from recall.scheduling import Schedulers
from recall.stats import exam
from recall.storage import Database
from recall.ui.plain_text import plain_label
from recall.ui.prompts import Prompts, as_sentence
from recall.ui.tasks import TaskRunner

_FIRST_GUESS = timedelta(days=30)  # the day offered to a deck that has none yet


class _ProgressRelay(QObject):
    changed = Signal(int, int)


class ExamDateDialog(QDialog):
    """Set or clear a deck's exam day and see its forecast.

    Args:
        database: The library.
        schedulers: FSRS per preset, for the forecast.
        deck_key: The deck's file id.
        clock: The current time, aware UTC.
        tasks: Runs the forecast off the window's thread.
        prompts: Tells the learner when saving fails.
        zone: The learner's time zone (None: the computer's), for today's date.
        parent: The main window.
    """

    saved = Signal(str)  # a line for the status bar
    forecast_shown = Signal(object)  # exam.ExamForecast

    def __init__(
        self,
        database: Database,
        schedulers: Schedulers,
        deck_key: str,
        clock: Callable[[], datetime],
        tasks: TaskRunner,
        prompts: Prompts,
        zone: tzinfo | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self._database = database
        self._schedulers = schedulers
        self._deck_key = deck_key
        self._clock = clock
        self._tasks = tasks
        self._prompts = prompts
        self._generation = 0
        self._stopped: set[int] = set()  # generations whose run should stop
        self.forecast: exam.ExamForecast | None = None
        stored = exam_dates.exam_date(database, deck_key)
        today = clock().astimezone(zone).date()
        shown = stored or today + _FIRST_GUESS
        self.setWindowTitle(tr("Exam Date"))
        self.setObjectName("examDateDialog")
        self.has_exam = QCheckBox(tr("I sit an &exam on this deck"))
        self.has_exam.setChecked(stored is not None)
        self.day = QDateEdit(QDate(shown.year, shown.month, shown.day))
        self.day.setCalendarPopup(True)
        self.day.setDisplayFormat("yyyy-MM-dd")
        self.day.setMinimumDate(QDate(today.year, today.month, today.day))
        self.day.setAccessibleName(tr("Exam day"))
        self.target = QSpinBox()
        self.target.setRange(50, 100)
        self.target.setSuffix(tr("{percent}%").format(percent=""))
        self.target.setValue(round(exam.DEFAULT_TARGET * 100))
        self.target.setAccessibleName(tr("Share of the deck to remember on the day"))
        self.figures = plain_label()
        self.figures.setWordWrap(True)
        self.figures.setObjectName("examFigures")
        self.figures.setAccessibleName(tr("What to expect on the exam day"))
        self.progress = QProgressBar()
        self.progress.setAccessibleName(tr("Simulating the days until the exam"))
        self.progress.hide()
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel
        )
        form = QFormLayout()
        form.addRow(self.has_exam)
        form.addRow(tr("Exam &day:"), self.day)
        form.addRow(tr("&Aim to remember:"), self.target)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.progress)
        layout.addWidget(self.figures, 1)
        layout.addWidget(self.buttons)
        self.resize(520, 300)
        self._connect_signals()
        self._on_changed()

    def _connect_signals(self) -> None:
        self.has_exam.toggled.connect(self._on_changed)
        self.day.dateChanged.connect(self._on_changed)
        self.target.valueChanged.connect(self._on_changed)
        self.buttons.accepted.connect(self._on_save)
        self.buttons.rejected.connect(self.reject)
        self.finished.connect(self._on_closed)

    def chosen_day(self) -> date | None:
        """The exam day as the dialog shows it, or None when the deck has no exam."""
        if not self.has_exam.isChecked():
            return None
        day = self.day.date().toPython()
        assert isinstance(day, date)
        return day

    def _on_changed(self) -> None:
        self._stopped.add(self._generation)  # a run under way is no longer wanted
        self._generation += 1
        day = self.chosen_day()
        self.day.setEnabled(day is not None)
        self.target.setEnabled(day is not None)
        self.forecast = None
        if day is None:
            self.progress.hide()
            self.figures.setText(
                tr(
                    "No exam: cards are scheduled as FSRS says. Tick the box to give this deck "
                    "an exam day; cards then come up shortly before it."
                )
            )
            return
        self.figures.setText(
            tr("Simulating the days until {day}...").format(day=wording.long_day(day))
        )
        self.progress.setValue(0)
        self.progress.show()
        generation = self._generation
        relay = _ProgressRelay(self)
        relay.changed.connect(lambda done, total: self._on_progress(generation, done, total))
        database, schedulers, key, now = (
            self._database,
            self._schedulers,
            self._deck_key,
            self._clock(),
        )
        target = self.target.value() / 100
        stopped = self._stopped

        def work() -> exam.ExamForecast:
            return exam.forecast(
                database,
                schedulers,
                key,
                day,
                now,
                target,
                progress=relay.changed.emit,
                cancelled=lambda: generation in stopped,
            )

        self._tasks.run(
            work,
            lambda figures: self._on_forecast(generation, figures),
            lambda error: self._on_failed(generation, error),
        )

    def _on_progress(self, generation: int, done: int, total: int) -> None:
        if generation == self._generation:
            self.progress.setMaximum(total)
            self.progress.setValue(done)

    def _on_forecast(self, generation: int, figures: exam.ExamForecast) -> None:
        if generation != self._generation:
            return
        self.forecast = figures
        self.progress.hide()
        self.figures.setText("\n".join(figures.reading()))
        self.forecast_shown.emit(figures)

    def _on_failed(self, generation: int, error: Exception) -> None:
        if isinstance(error, CancelledError) or generation != self._generation:
            return
        if not isinstance(error, RecallError):
            raise error
        self.progress.hide()
        self.figures.setText(as_sentence(str(error)))

    def _on_save(self) -> None:
        day = self.chosen_day()
        try:
            deck = exam_dates.set_exam_date(self._database, self._deck_key, day, self._clock())
        except RecallError as error:
            self._prompts.refused(tr("Exam Date"), error)
            return
        self.saved.emit(
            tr("{deck}: exam on {day}").format(deck=deck.name, day=wording.long_day(day))
            if day
            else tr("{deck}: no exam").format(deck=deck.name)
        )
        self.accept()

    def _on_closed(self) -> None:
        self._stopped.add(self._generation)  # stop a run still under way
