"""Occlusion cards on the review screen: masks where the shapes are, lifted on the answer."""

from __future__ import annotations

import hashlib
import json
import random
from pathlib import Path

import pytest
from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QColor, QImage
from PySide6.QtWidgets import QMainWindow
from pytestqt.qtbot import QtBot

from recall.changes.editing import check_card
from recall.collection import importing
from recall.content.deck_format import BasicCard
from recall.content.occlusion import Occlusion, OcclusionShape
from recall.host import paths
from recall.scheduling import Schedulers
from recall.storage import Database
from recall.study.session import StudySession
from recall.ui.browser.card_editor import CardEditor
from recall.ui.review.occlusion_view import ASKED_COLOUR, OTHER_COLOUR, OcclusionView
from recall.ui.review.view import Phase, ReviewView
from tests.conftest import ZONE, Clock
from tests.helpers.anki_occlusion import (
    ASKED_FILL,
    OTHER_FILL,
    make_enhanced_package,
    make_occlusion_package,
    png,
)

IMAGE_COLOUR = QColor(240, 240, 240)
_HOSTS: list[QMainWindow] = []


def _colour_at(view: OcclusionView, x: float, y: float) -> QColor:
    """The colour painted at a point given in the image's relative coordinates."""
    image: QImage = view.grab().toImage()
    area = view.image_rect()
    ratio = image.devicePixelRatio()
    point = (area.left() + x * area.width(), area.top() + y * area.height())
    return image.pixelColor(round(point[0] * ratio), round(point[1] * ratio))


def _same(found: QColor, wanted: QColor) -> bool:
    pairs = (
        (found.red(), wanted.red()),
        (found.green(), wanted.green()),
        (found.blue(), wanted.blue()),
    )
    return all(abs(a - b) <= 3 for a, b in pairs)


def _screen(
    qtbot: QtBot,
    database: Database,
    clock: Clock,
    tmp_path: Path,
    hide_all: bool,
    enhanced: bool = False,
) -> ReviewView:
    if enhanced:
        _, package = make_enhanced_package(tmp_path)
    else:
        _, package = make_occlusion_package(tmp_path, hide_all=hide_all)
    schedulers = Schedulers(fuzz=False)
    (report,) = importing.import_files(database, schedulers, [package], clock())
    session = StudySession(database, schedulers, report.decks[0].deck_key, random.Random(1), ZONE)
    review = ReviewView(session, clock, paths.media_dir(database.path.parent))
    host = QMainWindow()
    host.setMinimumSize(QSize(760, 700))
    host.setCentralWidget(review)
    qtbot.addWidget(host)
    _HOSTS.append(host)
    host.show()
    qtbot.waitExposed(host)
    review.start()
    return review


def _asked(review: ReviewView) -> int:
    shown = review._shown
    assert shown is not None
    assert isinstance(shown.card, BasicCard)
    assert shown.card.occlusion is not None
    return shown.card.occlusion.asked


# Inside each of the package's shapes, by cloze number, and a point outside them all.
INSIDE = {1: (0.2, 0.2), 2: (0.7, 0.2), 3: (0.7, 0.65)}
OUTSIDE = (0.4, 0.4)


def test_hide_all_masks_every_shape_marks_the_asked_one_and_lifts_it_on_the_answer(
    qtbot: QtBot, database: Database, clock: Clock, tmp_path: Path
) -> None:
    review = _screen(qtbot, database, clock, tmp_path, hide_all=True)
    view = review._card.occlusion
    assert view.isVisible()
    asked = _asked(review)
    for number, (x, y) in INSIDE.items():
        wanted = ASKED_COLOUR if number == asked else OTHER_COLOUR
        assert _same(_colour_at(view, x, y), wanted), number
    assert _same(_colour_at(view, *OUTSIDE), IMAGE_COLOUR)
    masks = (
        sum(1 for shape in view._occlusion.shapes if shape.kind != "text") if view._occlusion else 0
    )
    assert view.accessibleName() == (f"Image with {masks} masked areas; the asked one is marked")
    assert review._card.question_text().endswith("the asked one is marked")
    view.window().grab().save(str(tmp_path / "question.png"))

    qtbot.keyClick(review, Qt.Key.Key_Space)
    assert review.phase is Phase.FEEDBACK
    assert _same(_colour_at(view, *INSIDE[asked]), IMAGE_COLOUR)  # lifted
    others = [number for number in INSIDE if number != asked]
    for number in others:
        assert _same(_colour_at(view, *INSIDE[number]), OTHER_COLOUR)
    qtbot.keyClick(review, Qt.Key.Key_O)
    assert view.masks_hidden
    for number in others:
        assert _same(_colour_at(view, *INSIDE[number]), IMAGE_COLOUR)
    qtbot.keyClick(review, Qt.Key.Key_O)
    for number in others:
        assert _same(_colour_at(view, *INSIDE[number]), OTHER_COLOUR)


def test_hide_one_masks_only_the_asked_shape(
    qtbot: QtBot, database: Database, clock: Clock, tmp_path: Path
) -> None:
    review = _screen(qtbot, database, clock, tmp_path, hide_all=False)
    view = review._card.occlusion
    asked = _asked(review)
    for number, (x, y) in INSIDE.items():
        wanted = ASKED_COLOUR if number == asked else IMAGE_COLOUR
        assert _same(_colour_at(view, x, y), wanted), number
    assert view.accessibleName() == "Image with 1 masked area; the asked one is marked"
    qtbot.keyClick(review, Qt.Key.Key_Space)
    for x, y in INSIDE.values():
        assert _same(_colour_at(view, x, y), IMAGE_COLOUR)


def test_the_masks_follow_the_image_as_the_window_resizes(qtbot: QtBot, tmp_path: Path) -> None:
    data = png(100, 50, (240, 240, 240))
    name = hashlib.sha256(data).hexdigest() + ".png"
    (tmp_path / name).write_bytes(data)
    view = OcclusionView(tmp_path)
    qtbot.addWidget(view)
    shapes = [
        OcclusionShape(kind="rect", left=0.5, top=0.5, width=0.25, height=0.25, ordinals=[1]),
        OcclusionShape(kind="text", left=0.02, top=0.02, text="Label", font_size=0.2),
    ]
    view.show_question(Occlusion(image=name, shapes=shapes, asked=1))
    for width in (150, 190):
        view.resize(width, view.heightForWidth(width))
        assert view.image_rect().width() == pytest.approx(width)
        assert view.image_rect().height() == pytest.approx(width / 2)
        assert _same(_colour_at(view, 0.6, 0.6), ASKED_COLOUR)
        assert _same(_colour_at(view, 0.4, 0.6), IMAGE_COLOUR)
    assert _same(_colour_at(view, 0.03, 0.04), QColor("#ffffff"))  # the label's background
    assert view.heightForWidth(1000) == 100  # at most twice the image's own size


def test_the_editor_changes_an_occlusion_cards_texts_and_keeps_its_shapes(
    qtbot: QtBot, database: Database, clock: Clock, tmp_path: Path
) -> None:
    review = _screen(qtbot, database, clock, tmp_path, hide_all=True)
    shown = review._shown
    assert shown is not None
    editor = CardEditor()
    qtbot.addWidget(editor)
    editor.set_data(json.loads(shown.card.model_dump_json()))
    editor.front.setPlainText("<b>Hip</b> bones")
    (data,) = editor.cards()
    card = check_card(data)
    assert isinstance(card, BasicCard)
    assert card.front == "<b>Hip</b> bones"
    assert isinstance(shown.card, BasicCard)
    assert card.occlusion == shown.card.occlusion


def test_an_enhanced_add_on_card_draws_its_question_mask_then_its_answer_mask(
    qtbot: QtBot, database: Database, clock: Clock, tmp_path: Path
) -> None:
    review = _screen(qtbot, database, clock, tmp_path, hide_all=True, enhanced=True)
    view = review._card.occlusion
    asked, other, outside = (0.2, 0.3), (0.7, 0.3), (0.5, 0.7)  # the masks' rectangles
    assert _same(_colour_at(view, *asked), QColor(ASKED_FILL))
    assert _same(_colour_at(view, *other), QColor(OTHER_FILL))
    assert _same(_colour_at(view, *outside), IMAGE_COLOUR)
    assert view.accessibleName() == "Image with masked areas; the asked one is marked"
    qtbot.keyClick(review, Qt.Key.Key_Space)
    assert _same(_colour_at(view, *asked), IMAGE_COLOUR)
    assert _same(_colour_at(view, *other), QColor(OTHER_FILL))
    qtbot.keyClick(review, Qt.Key.Key_O)
    assert _same(_colour_at(view, *other), IMAGE_COLOUR)


def test_labels_grow_with_the_text_size_when_the_image_would_make_them_small(
    qtbot: QtBot, tmp_path: Path
) -> None:
    data = png(400, 200, (240, 240, 240))
    name = hashlib.sha256(data).hexdigest() + ".png"
    (tmp_path / name).write_bytes(data)
    view = OcclusionView(tmp_path)
    qtbot.addWidget(view)
    shapes = [
        OcclusionShape(kind="rect", left=0.8, top=0.8, width=0.1, height=0.1, ordinals=[1]),
        OcclusionShape(kind="text", left=0.0, top=0.0, text="Tibia", font_size=0.01),
    ]
    view.show_question(Occlusion(image=name, shapes=shapes, asked=1))
    view.resize(400, view.heightForWidth(400))
    widths = []
    for points in (10, 30):
        view.setStyleSheet(f"QWidget#occlusion {{ font-size: {points}pt; }}")
        image = view.grab().toImage()
        white = [x for x in range(400) if _same(image.pixelColor(x, 2), QColor("#ffffff"))]
        widths.append(len(white))
    assert 0 < widths[0] < widths[1]
