"""The painted charts rendered offscreen, with what they paint checked pixel by pixel."""

from __future__ import annotations

from datetime import date, timedelta
from pathlib import Path

import pytest
from PySide6.QtCore import QPointF, QRectF, QSize
from PySide6.QtGui import QColor, QGuiApplication, QImage, QPalette
from PySide6.QtWidgets import QApplication
from pytestqt.modeltest import ModelTester
from pytestqt.qtbot import QtBot

from recall.ui.charts import EMPTY_TEXT, BarChart, CalendarHeatmap, ChartSection, Line
from recall.ui.charts.base import is_dark, series_color

RED = QColor(255, 0, 0)
SIZE = QSize(400, 220)


def column_run(image: QImage, x: float, color: QColor) -> int:
    """How many pixels of ``color`` the image has in column ``x``."""
    ratio = image.devicePixelRatio()
    column = round(x * ratio)
    return sum(1 for y in range(image.height()) if image.pixelColor(column, y).rgb() == color.rgb())


def count_color(image: QImage, color: QColor) -> int:
    return sum(
        1
        for y in range(0, image.height())
        for x in range(0, image.width())
        if image.pixelColor(x, y).rgb() == color.rgb()
    )


@pytest.fixture
def bars(qtbot: QtBot) -> BarChart:
    chart = BarChart("Test bars")
    qtbot.addWidget(chart)
    chart.resize(SIZE)
    return chart


def test_bar_heights_are_proportional_to_their_values(bars: BarChart) -> None:
    bars.set_bars(["a", "b", "c"], [1, 2, 4], "Cards", colors=[RED, RED, RED])
    image = bars.render_image(SIZE, 1.0)
    rects = bars.bar_rects(QRectF(0, 0, SIZE.width(), SIZE.height()))
    heights = [column_run(image, rect.center().x(), RED) for rect in rects]
    assert heights[0] > 10
    assert heights[1] == pytest.approx(2 * heights[0], abs=2)
    assert heights[2] == pytest.approx(4 * heights[0], abs=2)


def test_hidpi_images_have_twice_the_pixels(bars: BarChart) -> None:
    bars.set_bars(["a", "b"], [1, 3], colors=[RED, RED])
    single = bars.render_image(SIZE, 1.0)
    double = bars.render_image(SIZE, 2.0)
    assert (double.width(), double.height()) == (2 * single.width(), 2 * single.height())
    rect = bars.bar_rects(QRectF(0, 0, SIZE.width(), SIZE.height()))[1]
    assert column_run(double, rect.center().x(), RED) == pytest.approx(
        2 * column_run(single, rect.center().x(), RED), abs=2
    )


def test_stacked_bars_split_each_bar_by_series(bars: BarChart) -> None:
    bars.set_stacks(["day 1", "day 2"], ("Young", "Mature"), [(3, 1), (0, 4)])
    image = bars.render_image(SIZE, 1.0)
    young, mature = series_color(0, bars.palette()), series_color(1, bars.palette())
    rects = bars.bar_rects(QRectF(0, 0, SIZE.width(), SIZE.height()))
    first = rects[0].center().x()
    assert column_run(image, first, young) == pytest.approx(
        3 * column_run(image, first, mature), abs=3
    )
    second = rects[1].center().x()
    assert column_run(image, second, young) == 0
    assert column_run(image, second, mature) == pytest.approx(
        column_run(image, first, young) + column_run(image, first, mature), abs=3
    )
    assert bars.headers == ("", "Young", "Mature", "Total")
    assert bars.rows[0] == ("day 1", "3", "1", "4")


def test_an_empty_dataset_draws_the_empty_state(bars: BarChart) -> None:
    bars.set_bars(["a", "b", "c"], [0, 0, 0], colors=[RED, RED, RED])
    assert bars.is_empty()
    image = bars.render_image(SIZE, 1.0)
    assert count_color(image, RED) == 0
    bars.empty_text = ""
    blank = bars.render_image(SIZE, 1.0)
    assert image != blank  # the words "No reviews yet" were painted
    background = bars.palette().color(QPalette.ColorRole.Window)
    assert count_color(blank, background) == blank.width() * blank.height()
    assert EMPTY_TEXT in bars.accessibleDescription()
    assert bars.tooltip_at(QPointF(200, 100)) is None


def test_tooltips_and_the_text_alternative_give_exact_values(bars: BarChart) -> None:
    line = Line("Right", (0.5, None, 1.0), share=True)
    bars.set_bars(["Mon", "Tue", "Wed"], [2, 0, 7], "Reviews", line)
    rect = bars.bar_rects()[2]
    assert bars.tooltip_at(rect.center()) == "Wed\nReviews: 7\nRight: 100%"
    assert bars.accessibleName() == "Test bars"
    description = bars.accessibleDescription()
    assert "Mon, Reviews 2, Right 50%" in description
    assert "Wed, Reviews 7, Right 100%" in description
    assert bars.numbers_text().splitlines()[0] == "\tReviews\tRight"


def test_save_as_png_and_copy_numbers(bars: BarChart, tmp_path: Path, qapp: QApplication) -> None:
    bars.set_bars(["a", "b"], [1, 5])
    target = tmp_path / "chart.png"
    assert bars.save_png(str(target))
    saved = QImage(str(target))
    assert saved.width() >= 2 * SIZE.width()
    menu = bars.context_menu()
    actions = {action.text(): action for action in menu.actions()}
    assert set(actions) == {"Save as PNG...", "Copy Numbers"}
    actions["Copy Numbers"].trigger()
    assert QGuiApplication.clipboard().text() == "\tCards\na\t1\nb\t5"


def test_dark_palettes_get_lighter_series_and_light_text(qtbot: QtBot) -> None:
    chart = BarChart("Dark")
    qtbot.addWidget(chart)
    palette = QPalette(chart.palette())
    palette.setColor(QPalette.ColorRole.Window, QColor("#202020"))
    palette.setColor(QPalette.ColorRole.WindowText, QColor("#f0f0f0"))
    light_color = series_color(0, chart.palette())
    chart.setPalette(palette)
    assert is_dark(chart.palette())
    assert series_color(0, chart.palette()).lightness() > light_color.lightness()
    chart.resize(SIZE)
    chart.set_bars(["a"], [3])
    image = chart.render_image(SIZE, 1.0)
    assert image.pixelColor(2, 2) == QColor("#202020")
    assert count_color(image, series_color(0, chart.palette())) > 100


def test_calendar_heatmap_shades_busier_days_darker(qtbot: QtBot) -> None:
    chart = CalendarHeatmap("Calendar")
    qtbot.addWidget(chart)
    size = QSize(800, 160)
    chart.resize(size)
    first = date(2026, 1, 1)
    days = [(first + timedelta(days=i), 0) for i in range(365)]
    days[10] = (days[10][0], 2)
    days[20] = (days[20][0], 8)
    chart.set_days(days)
    assert not chart.is_empty()
    busy, quiet, none = chart.shade(8), chart.shade(2), chart.shade(0)
    assert busy.alphaF() > quiet.alphaF() > none.alphaF()
    image = chart.render_image(size, 1.0)
    area = QRectF(0, 0, size.width(), size.height())
    cell = chart.cell_rect(days[20][0], area).center()
    painted = image.pixelColor(round(cell.x()), round(cell.y()))
    background = chart.palette().color(QPalette.ColorRole.Window)
    assert painted != background
    later = chart.cell_rect(days[27][0], area)
    assert later.left() > chart.cell_rect(days[20][0], area).left()  # a week later: next column
    assert chart.tooltip_at(chart.cell_rect(days[20][0]).center()) == "Wed 21 Jan 2026: 8 reviews"
    assert chart.rows == (("Sun 11 Jan 2026", "2"), ("Wed 21 Jan 2026", "8"))
    chart.set_days([(day, 0) for day, _ in days])
    assert chart.is_empty()
    assert EMPTY_TEXT in chart.accessibleDescription()


def test_section_shows_its_numbers_as_a_table(qtbot: QtBot, qtmodeltester: ModelTester) -> None:
    chart = BarChart("Ratings")
    section = ChartSection("Ratings", [chart])
    qtbot.addWidget(section)
    chart.set_bars(["Again", "Good"], [2, 9], "Answers")
    section.set_reading("You changed the proposed rating on 0% of answers.")
    assert not section.table.isVisibleTo(section)
    section.table_button.click()
    assert section.table.isVisibleTo(section)
    assert not chart.isVisibleTo(section)
    assert section.table_button.text() == "Show as Chart"
    model = section.model
    qtmodeltester.check(model)
    assert model.rowCount() == 2
    assert model.index(1, 1).data() == "9"
    section.table_button.click()
    assert chart.isVisibleTo(section)


def test_a_section_of_several_charts_tables_them_one_after_another(
    qtbot: QtBot, qtmodeltester: ModelTester
) -> None:
    ratings, changes = BarChart("Ratings"), BarChart("Proposed rating")
    section = ChartSection("Ratings", [ratings, changes], columns=2)
    qtbot.addWidget(section)
    ratings.set_bars(["Again", "Good"], [1, 4], "Answers")
    changes.set_bars(["Kept", "Raised"], [0, 0], "Answers")
    section.set_caption(ratings, "Ratings: 5 answers")
    assert section.captions[ratings].text() == "Ratings: 5 answers"
    section.table_button.click()
    qtmodeltester.check(section.model)
    column = [section.model.index(row, 0).data() for row in range(section.model.rowCount())]
    assert column == ["Ratings", "Again", "Good", "Proposed rating", EMPTY_TEXT]
    assert not section.captions[ratings].isVisibleTo(section)
