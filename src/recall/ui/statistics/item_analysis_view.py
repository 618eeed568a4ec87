"""The item analysis table of the statistics: each answered card's options, flagged first."""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from recall.core import i18n
from recall.core.i18n import mark, tr, trn, trp
from recall.core.wording import percent
from recall.stats.item_analysis import FLAGS, CardAnalysis, ItemAnalysis, OptionAnalysis
from recall.ui.override_errors import reports_errors
from recall.ui.plain_text import plain_label, plain_tooltip
from recall.ui.rows_model import Index, RowsModel

CARDS_SHOWN = 100
"""Answered cards listed, flagged first; ``recall stats --json`` has them all."""
ROWS_WITHOUT_SCROLLING = 16
_TEXT_COLUMNS = (1, 2, 5)
_KEY_COLUMN = 2
_LEFT = int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)


@dataclass(frozen=True)
class OptionRow:
    """One row: an option, with its card's question on the card's first row."""

    card: CardAnalysis
    option: OptionAnalysis
    first: bool


@reports_errors
class ItemAnalysisModel(RowsModel[OptionRow]):
    """Rows of options: question, option, right or wrong, pick share, discrimination, flag."""

    HEADERS = (
        mark("Card"),
        mark("Option"),
        "Key",  # translated with its context: an answer key, not a keyboard's key
        mark("Picked"),
        mark("Discrimination"),
        mark("Flag"),
    )

    def cells(self, value: OptionRow) -> tuple[object, ...]:
        card, option = value.card, value.option
        flag = option.flag or (card.flag if value.first else None)
        question = (
            trn("{question} ({count} answer)", "{question} ({count} answers)", card.answers).format(
                question=card.question, count=card.answers
            )
            if value.first
            else ""
        )
        share = "" if option.share is None else f"{option.share:.0%} ({option.picks})"
        discrimination = "" if option.discrimination is None else f"{option.discrimination:+.2f}"
        return (
            question,
            option.text,
            tr("right") if option.correct else tr("wrong"),
            share,
            discrimination,
            i18n.tr(FLAGS[flag]) if flag else "",
        )

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> object:
        if role == Qt.ItemDataRole.TextAlignmentRole and index.column() in _TEXT_COLUMNS:
            return _LEFT
        return super().data(index, role)

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> object:
        if role == Qt.ItemDataRole.TextAlignmentRole and section in _TEXT_COLUMNS:
            return _LEFT
        if role == Qt.ItemDataRole.DisplayRole and orientation == Qt.Orientation.Horizontal:
            if section == _KEY_COLUMN:
                return trp("answer key", "Key")
            return i18n.tr(self.HEADERS[section])
        return super().headerData(section, orientation, role)

    def extra(self, value: OptionRow, column: int, role: int) -> object:
        if role == Qt.ItemDataRole.ToolTipRole and column == 0:
            return plain_tooltip(f"{value.card.deck_key} / {value.card.card_key}")
        if role == Qt.ItemDataRole.ToolTipRole and column == 4:
            option = value.option
            if option.strong_share is None or option.weak_share is None:
                return plain_tooltip(tr("Needs answers both while learning and in review."))
            return plain_tooltip(
                tr("Picked in {review} of answers in review, {learning} while learning").format(
                    review=percent(option.strong_share), learning=percent(option.weak_share)
                )
            )
        return None


def option_rows(analysis: ItemAnalysis, shown: int = CARDS_SHOWN) -> list[OptionRow]:
    """The rows of the answered cards, flagged cards first, each card's options in order."""
    answered = [card for card in analysis.cards if card.answers]
    ordered = sorted(answered, key=lambda card: not card.flags)[:shown]
    return [
        OptionRow(card, option, index == 0)
        for card in ordered
        for index, option in enumerate(card.options)
    ]


class ItemAnalysisView(QWidget):
    """The table of options and a line said when no choice card has answers yet."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.model = ItemAnalysisModel(self)
        self.table = QTableView()
        self.table.setObjectName("itemAnalysis")
        self.table.setAccessibleName(tr("Item analysis: each option's picks and flags"))
        self.table.setModel(self.model)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setAlternatingRowColors(True)
        self.table.setWordWrap(False)
        self.table.verticalHeader().hide()
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        self.empty = plain_label(tr("No choice card has been answered yet."))
        self.empty.setObjectName("itemAnalysisEmpty")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.table)
        layout.addWidget(self.empty)

    def set_analysis(self, analysis: ItemAnalysis) -> None:
        """Show the answered cards' options."""
        rows = option_rows(analysis)
        self.model.set_rows(rows)
        self.table.setVisible(bool(rows))
        self.empty.setVisible(not rows)
        shown = min(len(rows), ROWS_WITHOUT_SCROLLING)
        self.table.setMinimumHeight(
            self.table.horizontalHeader().sizeHint().height()
            + shown * self.table.verticalHeader().defaultSectionSize()
            + 2 * self.table.frameWidth()
            + 2
        )
