"""The workload simulator: a year of a preset's decks at each desired retention, charted.

The simulation runs on the task runner (about thirty runs of fsrs-rs-python's simulator);
the charts show reviews a day, minutes a day, cards remembered after a year and cards
remembered per minute of study against desired retention, with the preset's retention and the
suggestion marked. A sentence under the summary says why the suggestion is what it is; "Use
suggested" hands the suggestion back to the deck options window.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QGridLayout,
    QProgressBar,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from recall.core.errors import RecallError
from recall.core.i18n import tr
from recall.core.presets import Preset
from recall.options import workload
from recall.storage import Database
from recall.ui.charts.line_chart import LineChart
from recall.ui.plain_text import plain_label
from recall.ui.tasks import TaskRunner

_SUGGESTED = QColor(46, 160, 67)
_X_TICKS = (0.70, 0.75, 0.80, 0.85, 0.90, 0.95, 0.99)


class _ProgressRelay(QObject):
    changed = Signal(int, int)


class SimulatorDialog(QDialog):
    """Simulate a preset's workload; ``chosen_retention`` is set when the learner applies one.

    Args:
        database: Where the learner's history is.
        preset_id: The preset whose decks are simulated.
        preset: The preset's options as edited.
        tasks: Runs the simulation off the GUI thread.
        parent: The deck options window.
        decks: The decks to simulate (by default those using the preset).
    """

    simulated = Signal(object)  # workload.Simulation

    def __init__(
        self,
        database: Database,
        preset_id: int,
        preset: Preset,
        tasks: TaskRunner,
        parent: QWidget | None = None,
        decks: list[int] | None = None,
    ) -> None:
        super().__init__(parent)
        self._database = database
        self._preset_id = preset_id
        self._preset = preset
        self._tasks = tasks
        self._decks = decks
        self.simulation: workload.Simulation | None = None
        self.chosen_retention: float | None = None
        self.setWindowTitle(tr("Workload Simulator: {preset}").format(preset=preset.name))
        self.setObjectName("simulatorDialog")
        self.reviews_chart = LineChart(tr("Reviews per day"), _retention, _count)
        self.minutes_chart = LineChart(tr("Minutes per day"), _retention, _count)
        self.remembered_chart = LineChart(tr("Cards remembered after a year"), _retention, _count)
        self.per_minute_chart = LineChart(
            tr("Cards remembered per minute of study"), _retention, _per_minute
        )
        self.summary = plain_label(
            tr("Simulating a year at each desired retention from 0.70 to 0.99...")
        )
        self.summary.setWordWrap(True)
        self.summary.setObjectName("simulatorSummary")
        self.reason = plain_label()
        self.reason.setWordWrap(True)
        self.reason.setObjectName("simulatorReason")
        self.reason.setAccessibleName(tr("Why this retention is suggested"))
        self.reason.hide()
        self.progress = QProgressBar()
        self.use_button = QPushButton(tr("&Use Suggested"))
        self.use_button.setEnabled(False)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.addButton(self.use_button, QDialogButtonBox.ButtonRole.ActionRole)
        buttons.rejected.connect(self.reject)
        self.use_button.clicked.connect(self._on_use)
        charts = QGridLayout()
        charts.addWidget(self.reviews_chart, 0, 0)
        charts.addWidget(self.minutes_chart, 0, 1)
        charts.addWidget(self.remembered_chart, 1, 0)
        charts.addWidget(self.per_minute_chart, 1, 1)
        layout = QVBoxLayout(self)
        layout.addWidget(self.summary)
        layout.addWidget(self.reason)
        layout.addWidget(self.progress)
        layout.addLayout(charts, 1)
        layout.addWidget(buttons)
        self.resize(860, 620)
        self._start()

    def _start(self) -> None:
        relay = _ProgressRelay(self)
        relay.changed.connect(self._on_progress)
        database, preset_id, preset, decks = (
            self._database,
            self._preset_id,
            self._preset,
            self._decks,
        )

        def work() -> workload.Simulation:
            return workload.simulate_preset(
                database, preset_id, preset, relay.changed.emit, decks=decks
            )

        self._tasks.run(work, self._on_simulated, self._on_failed)

    def _on_progress(self, done: int, total: int) -> None:
        self.progress.setMaximum(total)
        self.progress.setValue(done)

    def _on_simulated(self, simulation: workload.Simulation) -> None:
        self.simulation = simulation
        self.progress.hide()
        current = self._preset.desired_retention
        markers = [
            (tr("now {retention}").format(retention=f"{current:.2f}"), current, None),
            (
                tr("suggested {retention}").format(retention=f"{simulation.suggested:.2f}"),
                simulation.suggested,
                _SUGGESTED,
            ),
        ]
        loads = simulation.workloads
        self.reviews_chart.set_points(
            [(item.desired_retention, item.average_reviews) for item in loads], markers, _X_TICKS
        )
        self.minutes_chart.set_points(
            [(item.desired_retention, item.average_minutes) for item in loads], markers, _X_TICKS
        )
        self.remembered_chart.set_points(
            [(item.desired_retention, item.remembered_at_end) for item in loads],
            markers,
            _X_TICKS,
        )
        self.per_minute_chart.set_points(
            [(item.desired_retention, workload.per_minute(item)) for item in loads],
            markers,
            _X_TICKS,
        )
        figures = {"cards": f"{simulation.cards:,}", "new": self._preset.new_per_day}
        if simulation.reviews_measured:
            summary = tr(
                "{cards} cards, {new} new a day, 365 days; ratings and answer times from your "
                "{reviews} reviews."
            ).format(**figures, reviews=f"{simulation.reviews_measured:,}")
        else:
            summary = tr(
                "{cards} cards, {new} new a day, 365 days; ratings and answer times from FSRS's "
                "averages (no reviews of yours yet)."
            ).format(**figures)
        self.summary.setText(summary)
        self.reason.setText(simulation.suggestion_words(current))
        self.reason.show()
        self.use_button.setEnabled(True)
        self.simulated.emit(simulation)

    def _on_failed(self, error: Exception) -> None:
        self.progress.hide()
        if not isinstance(error, RecallError):
            raise error
        self.summary.setText(tr("The simulation failed: {error}").format(error=error))

    def _on_use(self) -> None:
        if self.simulation is not None:
            self.chosen_retention = self.simulation.suggested
            self.accept()


def _retention(value: float) -> str:
    return f"{value:.2f}"


def _per_minute(value: float) -> str:
    return f"{value:.2f}"


def _count(value: float) -> str:
    return f"{value:.1f}" if 0 < value < 10 else f"{value:,.0f}"
