"""The misconceptions list (wrong options picked most) and a card's picks, for the statistics."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from PySide6.QtCore import QModelIndex, Qt, Signal
from PySide6.QtGui import QAction, QKeyEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QDialogButtonBox,
    QHeaderView,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from recall.content.plain_text import plain_text
from recall.core.wording import count
from recall.stats.cards import CardPicks
from recall.stats.figures import FollowUpFigures, Misconception
from recall.ui.override_errors import reports_errors
from recall.ui.plain_text import plain_label, plain_tooltip
from recall.ui.rows_model import Index, RowsModel

_TITLE_LENGTH = 60  # characters of the question a window title shows
_FOLLOW_UP_WORDS = {
    "persisting": "Persisting",
    "fading": "Fading",
    "faded": "Faded",
    "": "No follow-up",
}


def follow_ups_line(figures: FollowUpFigures) -> str:
    """'Follow-ups: 2 persisting · 1 fading · 3 faded' with what each word means."""
    if not (figures.persisting or figures.fading or figures.faded):
        return "No follow-ups yet: a wrong option picked twice comes back as one."
    return (
        f"Follow-ups: {figures.persisting} persisting (picked in the card's latest answer) · "
        f"{figures.fading} fading (not picked lately) · {figures.faded} faded (not picked "
        f"across three weeks) · {count(figures.answers, 'follow-up answer')}"
    )


def picked_times(times: int) -> str:
    """'picked once', 'picked twice', 'picked 5 times'."""
    return {1: "picked once", 2: "picked twice"}.get(times, f"picked {times} times")


def short_date(moment: datetime) -> str:
    """A day as the learner reads it, in local time: "12 Nov 2026"."""
    return f"{moment.astimezone():%d %b %Y}".lstrip("0")


@reports_errors
class MisconceptionsModel(RowsModel[Misconception]):
    """Rows of wrong options: the option, its card's question, times, last, still picked,
    and where its follow-up is."""

    HEADERS = ("Wrong option", "Card", "Times", "Last picked", "Still picking it", "Follow-up")

    def cells(self, value: Misconception) -> tuple[object, ...]:
        return (
            value.choice,
            value.question,
            value.times,
            short_date(value.last),
            "Yes" if value.still else "Got over it",
            _FOLLOW_UP_WORDS.get(value.follow_up, value.follow_up),
        )

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> object:
        if role == Qt.ItemDataRole.TextAlignmentRole and index.column() == 1:
            return int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
        return super().data(index, role)

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> object:
        if role == Qt.ItemDataRole.TextAlignmentRole and section == 1:
            return int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
        return super().headerData(section, orientation, role)

    def extra(self, value: Misconception, column: int, role: int) -> object:
        if role == Qt.ItemDataRole.ToolTipRole and column == 1:
            return plain_tooltip(value.question)  # in full, where the column cuts it
        if role == Qt.ItemDataRole.AccessibleTextRole and column == 0:
            still = "still picking it" if value.still else "got over it"
            follow_up = _FOLLOW_UP_WORDS.get(value.follow_up, value.follow_up).lower()
            return (
                f"{value.choice}, {picked_times(value.times)} on {value.question}, "
                f"last {short_date(value.last)}, {still}, {follow_up}"
            )
        return None


@reports_errors
class _Table(QTableView):
    chosen_by_key = Signal()

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            self.chosen_by_key.emit()
            event.accept()
            return
        super().keyPressEvent(event)


class MisconceptionsView(QWidget):
    """The ranked list; clicking a row (or Enter on it) asks for its card, and the row's
    context menu for how often each of the card's options was picked."""

    card_requested = Signal(int)
    picks_requested = Signal(int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.model = MisconceptionsModel(self)
        self.table = _Table()
        self.table.setObjectName("misconceptions")
        self.table.setAccessibleName("Misconceptions: wrong options picked most")
        self.table.setModel(self.model)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setAlternatingRowColors(True)
        self.table.setWordWrap(False)
        self.table.verticalHeader().hide()
        self.table.setMinimumHeight(180)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        self.empty = plain_label("No wrong options picked yet.")
        self.empty.setObjectName("misconceptionsEmpty")
        self.follow_ups = plain_label("")
        self.follow_ups.setObjectName("followUpCounts")
        self.follow_ups.setWordWrap(True)
        self.follow_ups.setAccessibleName("Follow-ups on misconceptions")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.follow_ups)
        layout.addWidget(self.table)
        layout.addWidget(self.empty)
        self.open_action = QAction("&Open in Browser", self.table)
        self.picks_action = QAction("&Picks of Each Option...", self.table)
        self.table.addAction(self.open_action)
        self.table.addAction(self.picks_action)
        self.table.setContextMenuPolicy(Qt.ContextMenuPolicy.ActionsContextMenu)
        self.table.clicked.connect(self._on_clicked)
        self.table.chosen_by_key.connect(self._on_key)
        self.open_action.triggered.connect(self._on_key)
        self.picks_action.triggered.connect(self._on_picks)

    def set_misconceptions(
        self, items: Sequence[Misconception], follow_ups: FollowUpFigures | None = None
    ) -> None:
        """Show the ranked list, and how many follow-ups persist, fade and faded."""
        self.follow_ups.setText(follow_ups_line(follow_ups or FollowUpFigures()))
        self.model.set_rows(items)
        self.table.setVisible(bool(items))
        self.empty.setVisible(not items)
        # Up to ten rows without scrolling; the page scrolls instead.
        shown = min(len(items), 10)
        self.table.setMinimumHeight(
            self.table.horizontalHeader().sizeHint().height()
            + shown * self.table.verticalHeader().defaultSectionSize()
            + 2 * self.table.frameWidth()
            + 2
        )

    def _on_clicked(self, index: QModelIndex) -> None:
        if index.isValid():
            self.card_requested.emit(self.model.row_value(index.row()).card_id)

    def _on_key(self) -> None:
        self._on_clicked(self.table.currentIndex())

    def _on_picks(self) -> None:
        index = self.table.currentIndex()
        if index.isValid():
            self.picks_requested.emit(self.model.row_value(index.row()).card_id)


class CardPicksDialog(QDialog):
    """A card's question and how often each option was picked over its history."""

    def __init__(self, picks: CardPicks, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        title = plain_text(picks.question)
        if len(title) > _TITLE_LENGTH:
            title = title[: _TITLE_LENGTH - 1].rstrip() + "…"
        self.setWindowTitle(f"Picks: {title}")
        self.setObjectName("cardPicksDialog")
        self.setMinimumWidth(480)
        question = plain_label(picks.question)
        question.setObjectName("cardPicksQuestion")
        question.setTextFormat(Qt.TextFormat.PlainText)
        question.setWordWrap(True)
        question.setAccessibleName("Question")
        font = question.font()
        font.setBold(True)
        question.setFont(font)
        lines = []
        for option in (*picks.options, *picks.others):
            mark = "right" if option.correct else "wrong"
            when = f", last {short_date(option.last)}" if option.last else ""
            lines.append(f"{option.text}  ({mark}): {picked_times(option.times)}{when}")
        self.picks = plain_label("\n".join(lines) or "A basic card: no options to pick.")
        self.picks.setObjectName("cardPicks")
        self.picks.setTextFormat(Qt.TextFormat.PlainText)
        self.picks.setWordWrap(True)
        self.picks.setAccessibleName("Picks of each option")
        summary = plain_label(f"Over {count(picks.reviews, 'review')} of this card.")
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(question)
        layout.addWidget(self.picks)
        layout.addWidget(summary)
        layout.addWidget(buttons)
