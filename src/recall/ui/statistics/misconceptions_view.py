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
from recall.core import i18n
from recall.core.i18n import mark, tr, trn
from recall.core.wording import number, short_day
from recall.stats.cards import CardPicks
from recall.stats.figures import FollowUpFigures, Misconception
from recall.ui.override_errors import reports_errors
from recall.ui.plain_text import plain_label, plain_tooltip
from recall.ui.rows_model import Index, RowsModel

_TITLE_LENGTH = 60  # characters of the question a window title shows
_FOLLOW_UP_WORDS = {
    "persisting": mark("Persisting"),
    "fading": mark("Fading"),
    "faded": mark("Faded"),
    "": mark("No follow-up"),
}


def follow_ups_line(figures: FollowUpFigures) -> str:
    """'Follow-ups: 2 persisting · 1 fading · 3 faded' with what each word means."""
    if not (figures.persisting or figures.fading or figures.faded):
        return tr("No follow-ups yet: a wrong option picked twice comes back as one.")
    return trn(
        "Follow-ups: {persisting} persisting (picked in the card's latest answer) · {fading} "
        "fading (not picked lately) · {faded} faded (not picked across three weeks) · {count} "
        "follow-up answer",
        "Follow-ups: {persisting} persisting (picked in the card's latest answer) · {fading} "
        "fading (not picked lately) · {faded} faded (not picked across three weeks) · {count} "
        "follow-up answers",
        figures.answers,
    ).format(
        persisting=figures.persisting,
        fading=figures.fading,
        faded=figures.faded,
        count=number(figures.answers),
    )


def picked_times(times: int) -> str:
    """'picked once', 'picked twice', 'picked 5 times'."""
    if times == 1:
        return tr("picked once")
    if times == 2:
        return tr("picked twice")
    return trn("picked {count} time", "picked {count} times", times).format(count=times)


def short_date(moment: datetime) -> str:
    """A day as the learner reads it, in local time: "12 Nov 2026"."""
    day = moment.astimezone().date()
    return tr("{day} {year}").format(day=short_day(day), year=day.year)


@reports_errors
class MisconceptionsModel(RowsModel[Misconception]):
    """Rows of wrong options: the option, its card's question, times, last, still picked,
    and where its follow-up is."""

    HEADERS = (
        mark("Wrong option"),
        mark("Card"),
        mark("Times"),
        mark("Last picked"),
        mark("Still picking it"),
        mark("Follow-up"),
    )

    def cells(self, value: Misconception) -> tuple[object, ...]:
        return (
            value.choice,
            value.question,
            value.times,
            short_date(value.last),
            tr("Yes") if value.still else tr("Got over it"),
            i18n.tr(_FOLLOW_UP_WORDS.get(value.follow_up, value.follow_up)),
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
        if role == Qt.ItemDataRole.DisplayRole and orientation == Qt.Orientation.Horizontal:
            return i18n.tr(self.HEADERS[section])
        return super().headerData(section, orientation, role)

    def extra(self, value: Misconception, column: int, role: int) -> object:
        if role == Qt.ItemDataRole.ToolTipRole and column == 1:
            return plain_tooltip(value.question)  # in full, where the column cuts it
        if role == Qt.ItemDataRole.AccessibleTextRole and column == 0:
            still = tr("still picking it") if value.still else tr("got over it")
            follow_up = i18n.tr(_FOLLOW_UP_WORDS.get(value.follow_up, value.follow_up))
            return tr("{choice}, {picked} on {question}, last {day}, {still}, {follow_up}").format(
                choice=value.choice,
                picked=picked_times(value.times),
                question=value.question,
                day=short_date(value.last),
                still=still,
                follow_up=follow_up.lower(),
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
        self.table.setAccessibleName(tr("Misconceptions: wrong options picked most"))
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
        self.empty = plain_label(tr("No wrong options picked yet."))
        self.empty.setObjectName("misconceptionsEmpty")
        self.follow_ups = plain_label("")
        self.follow_ups.setObjectName("followUpCounts")
        self.follow_ups.setWordWrap(True)
        self.follow_ups.setAccessibleName(tr("Follow-ups on misconceptions"))
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.follow_ups)
        layout.addWidget(self.table)
        layout.addWidget(self.empty)
        self.open_action = QAction(tr("&Open in Browser"), self.table)
        self.picks_action = QAction(tr("&Picks of Each Option..."), self.table)
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
        self.setWindowTitle(tr("Picks: {question}").format(question=title))
        self.setObjectName("cardPicksDialog")
        self.setMinimumWidth(480)
        question = plain_label(picks.question)
        question.setObjectName("cardPicksQuestion")
        question.setTextFormat(Qt.TextFormat.PlainText)
        question.setWordWrap(True)
        question.setAccessibleName(tr("Question"))
        font = question.font()
        font.setBold(True)
        question.setFont(font)
        lines = []
        for option in (*picks.options, *picks.others):
            key = tr("right") if option.correct else tr("wrong")
            picked = picked_times(option.times)
            if option.last:
                line = tr("{option}  ({key}): {picked}, last {day}").format(
                    option=option.text, key=key, picked=picked, day=short_date(option.last)
                )
            else:
                line = tr("{option}  ({key}): {picked}").format(
                    option=option.text, key=key, picked=picked
                )
            lines.append(line)
        self.picks = plain_label("\n".join(lines) or tr("A basic card: no options to pick."))
        self.picks.setObjectName("cardPicks")
        self.picks.setTextFormat(Qt.TextFormat.PlainText)
        self.picks.setWordWrap(True)
        self.picks.setAccessibleName(tr("Picks of each option"))
        summary = plain_label(
            trn(
                "Over {count} review of this card.",
                "Over {count} reviews of this card.",
                picks.reviews,
            ).format(count=number(picks.reviews))
        )
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(question)
        layout.addWidget(self.picks)
        layout.addWidget(summary)
        layout.addWidget(buttons)
