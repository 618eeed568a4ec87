"""The statistics window's page: every section, filled from the figures."""

from __future__ import annotations

from datetime import date

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QGridLayout,
    QHeaderView,
    QLabel,
    QTableView,
    QWidget,
)

from recall.core import i18n
from recall.core.i18n import mark, tr, trn, trp
from recall.core.wording import duration, number, percent, short_day
from recall.stats import report
from recall.stats.figures import KINDS, Coming, Histogram, Retention, Schedules, Statistics
from recall.stats.item_analysis import ItemAnalysis
from recall.ui.charts import BarChart, CalendarHeatmap, ChartSection, Line
from recall.ui.charts.base import series_color
from recall.ui.charts.numbers_model import NumbersModel
from recall.ui.plain_text import plain_label, plain_tooltip
from recall.ui.statistics.item_analysis_view import ItemAnalysisView
from recall.ui.statistics.misconceptions_view import MisconceptionsView

# Today's figures, by the name the page keys them by (English), shown translated.
TODAY_FIGURES = (
    (mark("Cards studied"), mark("Time"), mark("Right"), mark("Again")),
    (mark("Cram answers"), mark("Current streak"), mark("Longest streak")),
)
# The memory distributions, by the name the page keys them by, shown translated.
DISTRIBUTIONS = (mark("Interval"), mark("Stability"), mark("Difficulty"), mark("Retrievability"))
# Each kind of review in the reviews chart (``KINDS``), shown translated.
KIND_NAMES = {
    "learning": mark("Learning"),
    "young": mark("Young"),
    "mature": mark("Mature"),
    "relearning": mark("Relearning"),
}


class StatisticsPage(QWidget):
    """Sections 1-9 and the misconceptions, each with a one-line reading."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.statistics: Statistics | None = None
        self.today = ChartSection(tr("Today"))
        tiles = QGridLayout()
        tiles.setSpacing(8)
        self.today_figures: dict[str, QLabel] = {}
        for row, line in enumerate(TODAY_FIGURES):
            for column, name in enumerate(line):
                value = plain_label("-")
                value.setObjectName("figureValue")
                value.setAccessibleName(i18n.tr(name))
                caption = plain_label(i18n.tr(name))
                caption.setObjectName("figureName")
                tiles.addWidget(value, row * 2, column)
                tiles.addWidget(caption, row * 2 + 1, column)
                self.today_figures[name] = value
        self.today.body.addLayout(tiles)
        self.forecast_chart = BarChart(tr("Future due"))
        self.forecast = ChartSection(tr("Future due"), [self.forecast_chart])
        self.calendar_chart = CalendarHeatmap(tr("Calendar"))
        self.calendar = ChartSection(tr("Calendar"), [self.calendar_chart])
        self.reviews_chart = BarChart(tr("Reviews"))
        self.reviews_measure = QComboBox()
        self.reviews_measure.setAccessibleName(tr("Reviews chart shows"))
        self.reviews_measure.addItems([tr("Count"), tr("Time spent")])
        self.reviews = ChartSection(tr("Reviews"), [self.reviews_chart])
        self.reviews.body.insertWidget(0, self.reviews_measure, 0, Qt.AlignmentFlag.AlignLeft)
        self.cards_chart = BarChart(tr("Card counts"))
        self.cards = ChartSection(tr("Card counts"), [self.cards_chart])
        self.distribution_charts = {name: BarChart(i18n.tr(name)) for name in DISTRIBUTIONS}
        self.distributions = ChartSection(
            tr("Your memory now"), list(self.distribution_charts.values()), columns=4
        )
        self.retention_model = NumbersModel(self)
        self.retention_table = QTableView()
        self.retention_table.setObjectName("retentionTable")
        self.retention_table.setAccessibleName(tr("True retention"))
        self.retention_table.setModel(self.retention_model)
        self.retention_table.verticalHeader().hide()
        self.retention_table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.retention_table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        self.retention_table.setMinimumHeight(220)
        self.retention = ChartSection(tr("True retention"))
        self.retention.body.addWidget(self.retention_table)
        self.hours_chart = BarChart(tr("Hour of day"))
        self.hours = ChartSection(tr("Hour of day"), [self.hours_chart])
        self.ratings_chart = BarChart(tr("Ratings"))
        self.changes_chart = BarChart(tr("Proposed rating"))
        self.ratings = ChartSection(
            tr("Ratings"), [self.ratings_chart, self.changes_chart], columns=2
        )
        self.misconceptions_view = MisconceptionsView()
        self.misconceptions = ChartSection(tr("Misconceptions"))
        self.misconceptions.body.addWidget(self.misconceptions_view)
        self.item_analysis_view = ItemAnalysisView()
        self.item_analysis = ChartSection(tr("Item analysis"))
        self.item_analysis.body.addWidget(self.item_analysis_view)
        self.sections = [
            self.today,
            self.forecast,
            self.calendar,
            self.reviews,
            self.cards,
            self.distributions,
            self.retention,
            self.hours,
            self.ratings,
            self.misconceptions,
            self.item_analysis,
        ]
        grid = QGridLayout(self)
        grid.setContentsMargins(16, 12, 16, 16)
        grid.setSpacing(12)
        placed = (
            (self.today, 0, 0, 1),
            (self.cards, 0, 1, 1),
            (self.forecast, 1, 0, 1),
            (self.reviews, 1, 1, 1),
            (self.calendar, 2, 0, 2),
            (self.distributions, 3, 0, 2),
            (self.retention, 4, 0, 1),
            (self.hours, 4, 1, 1),
            (self.ratings, 5, 0, 2),
            (self.misconceptions, 6, 0, 2),
            (self.item_analysis, 7, 0, 2),
        )
        for section, row, column, span in placed:
            grid.addWidget(section, row, column, 1, span)
        grid.setColumnStretch(0, 1)
        grid.setColumnStretch(1, 1)
        grid.setRowStretch(len(placed), 1)
        self.reviews_measure.currentIndexChanged.connect(self._on_measure_changed)

    def show_forecast(self, figures: Coming | Schedules | Statistics) -> None:
        """Fill the future due section."""
        forecast = figures.forecast
        labels = [
            tr("Today"),
            *(
                short_day(date.fromordinal(figures.today_date.toordinal() + i))
                for i in range(1, len(forecast.days))
            ),
        ]
        self.forecast_chart.set_bars(
            labels,
            forecast.days,
            tr("Due"),
            Line(tr("Running total (with overdue)"), tuple(float(v) for v in forecast.cumulative)),
        )
        self.forecast.set_reading(report.forecast_reading(figures))

    def show_schedules(self, figures: Schedules | Statistics) -> None:
        """Fill the sections that need no history: future due, card counts, memory now."""
        self.show_forecast(figures)
        cards = figures.cards
        kinds = (
            tr("New"),
            tr("Learning"),
            tr("Relearning"),
            tr("Young"),
            tr("Mature"),
            tr("Suspended"),
        )
        values = (
            cards.new,
            cards.learning,
            cards.relearning,
            cards.young,
            cards.mature,
            cards.suspended,
        )
        palette = self.palette()
        colours = [series_color(i, palette) for i in (6, 0, 3, 1, 2, 4)]
        self.cards_chart.set_bars(kinds, values, tr("Cards"), colors=colours)
        self.cards.set_reading(report.cards_reading(figures))
        memory = figures.distributions
        days = " " + trp("unit", "d")
        self._histogram("Interval", memory.interval, days, tr("Interval (days)"))
        self._histogram("Stability", memory.stability, days, tr("Stability (days)"))
        self._histogram("Difficulty", memory.difficulty, "", tr("Difficulty (1-10)"))
        self._histogram(
            "Retrievability", memory.retrievability, "", tr("Retrievability now"), share=True
        )
        self.distributions.set_reading(report.distributions_reading(figures))

    def show_figures(self, figures: Statistics) -> None:
        """Fill every section with the figures."""
        self.statistics = figures
        self.show_schedules(figures)
        today = figures.today
        streak = figures.streak
        for name, text in (
            ("Cards studied", str(today.cards)),
            ("Time", duration(today.time_ms)),
            ("Right", percent(today.share_correct)),
            ("Again", str(today.again)),
            ("Cram answers", str(today.cram)),
            ("Current streak", _days(streak.current)),
            ("Longest streak", _days(streak.longest)),
        ):
            self.today_figures[name].setText(text)
        self.today.set_reading(report.today_reading(figures))
        self.calendar_chart.set_days(figures.calendar)
        self.calendar.set_reading(report.calendar_reading(figures))
        self._on_measure_changed()
        self.reviews.set_reading(report.reviews_reading(figures))
        rows = []
        for row in figures.retention:
            rows.append(
                (
                    report.window_name(row.window),
                    *(self._retention_cell(c) for c in (row.young, row.mature, row.all)),
                )
            )
        self.retention_model.set_table(("", tr("Young"), tr("Mature"), tr("All")), tuple(rows))
        self.retention.set_reading(report.retention_reading(figures))
        self.hours_chart.set_bars(
            [str(hour.hour) for hour in figures.hours],
            [hour.reviews for hour in figures.hours],
            tr("Reviews"),
            Line(
                tr("Right"),
                tuple(
                    hour.correct / hour.reviews if hour.reviews else None for hour in figures.hours
                ),
                share=True,
            ),
        )
        self.hours.set_reading(report.hours_reading(figures))
        ratings = figures.ratings
        rating_colours = [series_color(i, self.palette()) for i in (5, 3, 1, 0)]
        self.ratings_chart.set_bars(
            [i18n.tr(name) for name in report.RATING_NAMES],
            ratings.counts,
            tr("Answers"),
            colors=rating_colours,
        )
        self.changes_chart.set_bars(
            (tr("Kept"), tr("Raised"), tr("Lowered")),
            (ratings.proposed_known - ratings.changed, ratings.raised, ratings.lowered),
            tr("Answers"),
        )
        self.changes_chart.empty_text = tr("Not recorded by older reviews")
        self.changes_chart.setToolTip(
            plain_tooltip(tr("Reviews from before Recall recorded its proposal are left out."))
        )
        self.ratings.set_reading(report.ratings_reading(figures))
        self.misconceptions_view.set_misconceptions(figures.misconceptions, figures.follow_ups)
        count = len(figures.misconceptions)
        self.misconceptions.set_reading(
            tr(
                "Wrong options you picked, most picked first, and where each one's follow-up "
                "is; click one to open its card in the browser, or open its menu for how often "
                "each option was picked."
            )
            if count
            else tr("No wrong option picked yet: choice cards answered wrongly show up here.")
        )

    def show_item_analysis(self, analysis: ItemAnalysis) -> None:
        """Fill the item analysis section (over the whole history, whatever the period)."""
        self.item_analysis_view.set_analysis(analysis)
        flagged = len(analysis.flagged)
        self.item_analysis.set_reading(
            trn(
                "Each answered choice card's options over all time: how often picked, and "
                "discrimination (picked in review minus while learning). {count} card flagged "
                "for a look.",
                "Each answered choice card's options over all time: how often picked, and "
                "discrimination (picked in review minus while learning). {count} cards flagged "
                "for a look.",
                flagged,
            ).format(count=number(flagged))
        )

    def _histogram(
        self, name: str, histogram: Histogram, unit: str, title: str, share: bool = False
    ) -> None:
        def edge(value: float) -> str:
            return percent(value) if share else f"{value:g}"

        labels = [f"{edge(b.low)}-{edge(b.high)}{unit}" for b in histogram.bins]
        chart = self.distribution_charts[name]
        chart.title = title
        chart.set_bars(labels, [b.count for b in histogram.bins], tr("Cards"))
        average = (
            "-"
            if histogram.average is None
            else (percent(histogram.average) if share else f"{histogram.average:.2f}{unit}")
        )
        chart.setAccessibleName(
            tr("{chart}, average {average}").format(chart=title, average=average)
        )
        self.distributions.set_caption(
            chart, tr("{chart}: average {average}").format(chart=title, average=average)
        )

    @staticmethod
    def _retention_cell(cell: Retention) -> str:
        if cell.rate is None:
            return "-"
        share = tr("{percent}%").format(percent=f"{cell.rate * 100:.1f}")
        return f"{share} ({cell.passed}/{cell.passed + cell.failed})"

    def _on_measure_changed(self) -> None:
        figures = self.statistics
        if figures is None:
            return
        title = tr("Reviews per week") if figures.by_week else tr("Reviews per day")
        self.reviews_chart.title = title
        self.reviews_chart.setAccessibleName(title)
        labels = [short_day(bar.day) for bar in figures.reviews]
        series = tuple(i18n.tr(KIND_NAMES.get(kind, kind.capitalize())) for kind in KINDS)
        if self.reviews_measure.currentIndex() == 1:
            self.reviews_chart.set_stacks(
                labels, series, [bar.time_ms for bar in figures.reviews], value_format=duration
            )
        else:
            self.reviews_chart.set_stacks(labels, series, [bar.reviews for bar in figures.reviews])


def _days(days: int) -> str:
    return trn("{count} day", "{count} days", days).format(count=number(days))
