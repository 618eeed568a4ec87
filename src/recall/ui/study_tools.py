"""Tools > Custom Study and Tools > Time Off: the dialogs that build a custom session or move
due dates (postpone, advance, time away), each change on the collection's undo stack."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import date, datetime, tzinfo

from PySide6.QtCore import QDate, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QDateEdit,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLineEdit,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from recall.changes.cards import Changes
from recall.collection.browse import Finder
from recall.collection.custom_study import CustomStudy, SessionRequest
from recall.collection.time_off import Move, TimeOff
from recall.core import i18n
from recall.core.errors import RecallError
from recall.core.i18n import mark, number, tr, trn
from recall.core.preferences import Preferences
from recall.scheduling import Scheduler, Schedulers
from recall.storage import Database
from recall.study.custom import CustomQueue, SessionKind
from recall.ui.plain_text import plain_label
from recall.ui.prompts import as_sentence

_TIME_OFF_KINDS = (
    ("postpone", mark("Postpone cards due today")),
    ("advance", mark("Advance cards before a trip")),
    ("away", mark("I'm away from … to …")),
)


def _spin(low: int, high: int, value: int, name: str) -> QSpinBox:
    spin = QSpinBox()
    spin.setRange(low, high)
    spin.setValue(value)
    spin.setAccessibleName(name)
    return spin


class CustomStudyDialog(QDialog):
    """Chooses a kind of custom session and its numbers; shows how many cards it holds."""

    chosen = Signal(object)  # the CustomQueue to study

    def __init__(
        self,
        custom: CustomStudy,
        clock: Callable[[], datetime],
        deck: str = "",
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle(tr("Custom Study"))
        self._custom = custom
        self._clock = clock
        self.kind = QComboBox()
        self.kind.setAccessibleName(tr("Kind of session"))
        for kind in SessionKind:
            self.kind.addItem(i18n.tr(kind.label), kind.value)
        self.search = QLineEdit()
        self.search.setAccessibleName(tr("Search"))
        self.search.setPlaceholderText(tr("e.g. deck:French tag:verbs"))
        self.days = _spin(1, 3650, 1, tr("Days ahead"))
        self.tag = QLineEdit()
        self.tag.setAccessibleName(tr("Tag"))
        self.deck = QLineEdit(deck)
        self.deck.setAccessibleName(tr("Deck"))
        self.minutes = _spin(1, 24 * 60, 20, tr("Minutes"))
        self.limit = _spin(1, 9999, 100, tr("Most cards"))
        self.preview = plain_label()
        self.preview.setAccessibleName(tr("Cards in the session"))
        form = QFormLayout()
        form.addRow(tr("&Kind:"), self.kind)
        form.addRow(tr("&Search:"), self.search)
        form.addRow(tr("Days &ahead:"), self.days)
        form.addRow(tr("&Tag:"), self.tag)
        form.addRow(tr("&Deck:"), self.deck)
        form.addRow(tr("&Minutes:"), self.minutes)
        form.addRow(tr("Most &cards:"), self.limit)
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setText(tr("&Study"))
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.preview)
        layout.addWidget(self.buttons)
        self._form = form
        self._queue: CustomQueue | None = None
        self._card_ids: tuple[int, ...] = ()
        self._connect_signals()
        self._on_changed()

    def _connect_signals(self) -> None:
        self.kind.currentIndexChanged.connect(self._on_changed)
        for edit in (self.search, self.tag, self.deck):
            edit.textChanged.connect(self._on_changed)
        for spin in (self.days, self.minutes, self.limit):
            spin.valueChanged.connect(self._on_changed)
        self.buttons.accepted.connect(self._on_accepted)
        self.buttons.rejected.connect(self.reject)

    def select_cards(self, card_ids: tuple[int, ...]) -> None:
        """Study these cards (the browser's selection): crammed, or with answers rescheduled."""
        self._card_ids = card_ids
        count = len(card_ids)
        cram = trn(
            "Cram the {count} selected card (schedule unchanged)",
            "Cram the {count} selected cards (schedule unchanged)",
            count,
        ).format(count=number(count))
        study = trn(
            "Study the {count} selected card, answers rescheduled",
            "Study the {count} selected cards, answers rescheduled",
            count,
        ).format(count=number(count))
        self.kind.blockSignals(True)
        self.kind.clear()
        self.kind.addItem(cram, SessionKind.CRAM.value)
        self.kind.addItem(study, SessionKind.SEARCH.value)
        self.kind.blockSignals(False)
        self.search.setPlaceholderText(tr("all of them; or narrow them, e.g. is:due"))
        self.limit.setValue(max(self.limit.value(), min(len(card_ids), self.limit.maximum())))
        self._on_changed()

    def request(self) -> SessionRequest:
        """The session the fields describe."""
        kind = SessionKind(self.kind.currentData())
        chosen = kind in (SessionKind.CRAM, SessionKind.SEARCH)
        return SessionRequest(
            card_ids=self._card_ids if chosen else (),
            kind=kind,
            search=self.search.text(),
            days=self.days.value(),
            tag=self.tag.text(),
            deck=self.deck.text(),
            limit=self.limit.value(),
            minutes=self.minutes.value(),
        )

    def _on_changed(self) -> None:
        kind = SessionKind(self.kind.currentData())
        shown = {
            self.days: kind is SessionKind.PREVIEW,
            self.tag: kind is SessionKind.NEW,
            self.deck: kind is SessionKind.EXTRA,
            self.minutes: kind is SessionKind.TIMED,
        }
        for widget, visible in shown.items():
            self._form.setRowVisible(widget, visible)
        try:
            self._queue = self._custom.build(self.request(), self._clock())
        except RecallError as error:
            self._queue = None
            self.preview.setText(as_sentence(str(error)))
        else:
            self.preview.setText(self._describe(self._queue))
        ok = self.buttons.button(QDialogButtonBox.StandardButton.Ok)
        ok.setEnabled(self._queue is not None and bool(self._queue.pending))

    def _describe(self, queue: CustomQueue) -> str:
        count = len(queue.pending)
        parts = [
            trn("{count} card to study.", "{count} cards to study.", count).format(
                count=number(count)
            )
        ]
        if self._card_ids and not self.search.text().strip() and count < len(self._card_ids):
            left_out = len(self._card_ids) - count
            if count < self.limit.value():
                parts.append(
                    trn(
                        "{count} selected card is suspended or buried.",
                        "{count} selected cards are suspended or buried.",
                        left_out,
                    ).format(count=number(left_out))
                )
            else:
                parts.append(tr("Most cards stops at {count}.").format(count=number(count)))
        if queue.cram:
            parts.append(tr("Answers move no due date."))
        elif queue.kind in (SessionKind.CRAM, SessionKind.SEARCH):
            parts.append(tr("Answers reschedule the cards, each under its deck's preset."))
        return " ".join(parts)

    def _on_accepted(self) -> None:
        if self._queue is not None and self._queue.pending:
            self.chosen.emit(self._custom.build(self.request(), self._clock()))
            self.accept()


class TimeOffDialog(QDialog):
    """Postpone, advance or time away, with how many cards move before it is done."""

    made = Signal(str)  # the change's label

    def __init__(
        self,
        time_off: TimeOff,
        clock: Callable[[], datetime],
        zone: tzinfo | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle(tr("Time Off"))
        self._time_off = time_off
        self._clock = clock
        self.kind = QComboBox()
        self.kind.setAccessibleName(tr("What to do"))
        for value, label in _TIME_OFF_KINDS:
            self.kind.addItem(i18n.tr(label), value)
        self.search = QLineEdit()
        self.search.setAccessibleName(tr("Search"))
        self.search.setPlaceholderText(tr("all cards; or e.g. deck:French"))
        self.days = _spin(1, 3650, 1, tr("Days to postpone by"))
        self.within = _spin(1, 3650, 7, tr("Days ahead to advance from"))
        self.count = _spin(0, 99999, 0, tr("How many cards (0 for all)"))
        self.count.setSpecialValueText(tr("all"))
        today = clock().astimezone(zone).date()
        self.leave = self._date_edit(today, tr("First day away"))
        self.back = self._date_edit(today, tr("Last day away"))
        self.preview = plain_label()
        self.preview.setAccessibleName(tr("What moves"))
        form = QFormLayout()
        form.addRow(tr("&Do:"), self.kind)
        form.addRow(tr("&Search:"), self.search)
        form.addRow(tr("&Postpone by days:"), self.days)
        form.addRow(tr("Cards due &within days:"), self.within)
        form.addRow(tr("&How many:"), self.count)
        form.addRow(tr("&From:"), self.leave)
        form.addRow(tr("&To:"), self.back)
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setText(tr("&Move Cards"))
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.preview)
        layout.addWidget(self.buttons)
        self._form = form
        self._moves: list[Move] = []
        self._connect_signals()
        self._on_changed()

    @staticmethod
    def _date_edit(day: date, name: str) -> QDateEdit:
        edit = QDateEdit(QDate(day.year, day.month, day.day))
        edit.setCalendarPopup(True)
        edit.setDisplayFormat("yyyy-MM-dd")
        edit.setAccessibleName(name)
        return edit

    def _connect_signals(self) -> None:
        self.kind.currentIndexChanged.connect(self._on_changed)
        self.search.textChanged.connect(self._on_changed)
        for spin in (self.days, self.within, self.count):
            spin.valueChanged.connect(self._on_changed)
        for edit in (self.leave, self.back):
            edit.dateChanged.connect(self._on_changed)
        self.buttons.accepted.connect(self._on_accepted)
        self.buttons.rejected.connect(self.reject)

    @property
    def _verb(self) -> str:
        return {"postpone": "postpone", "advance": "advance"}.get(
            str(self.kind.currentData()), "spread the time away of"
        )

    def _plan(self) -> list[Move]:
        kind, search, now = self.kind.currentData(), self.search.text(), self._clock()
        count = self.count.value() or None
        if kind == "postpone":
            return self._time_off.plan_postpone(search, self.days.value(), now, count)
        if kind == "advance":
            return self._time_off.plan_advance(search, self.within.value(), now, count)
        leave, back = self.leave.date().toPython(), self.back.date().toPython()
        assert isinstance(leave, date)
        assert isinstance(back, date)
        return self._time_off.plan_away(search, leave, back, now)

    def _on_changed(self) -> None:
        kind = self.kind.currentData()
        for widget, visible in {
            self.days: kind == "postpone",
            self.within: kind == "advance",
            self.count: kind != "away",
            self.leave: kind == "away",
            self.back: kind == "away",
        }.items():
            self._form.setRowVisible(widget, visible)
        try:
            self._moves = self._plan()
        except RecallError as error:
            self._moves = []
            self.preview.setText(as_sentence(str(error)))
        else:
            self.preview.setText(_describe_moves(self._moves, str(kind)))
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setEnabled(bool(self._moves))

    def _on_accepted(self) -> None:
        try:
            moves = self._plan()
            change = self._time_off.make(moves, self._clock(), self._verb.capitalize())
        except RecallError as error:
            self.preview.setText(as_sentence(str(error)))
            return
        self.made.emit(change.label)
        self.accept()


def custom_study(
    database: Database, schedulers: Schedulers, settings: Preferences, zone: tzinfo | None
) -> CustomStudy:
    """The custom session builder of a collection."""
    return CustomStudy(database, schedulers, Finder(database, Scheduler(), settings, zone))


def time_off(
    database: Database,
    schedulers: Schedulers,
    settings: Preferences,
    changes: Changes,
    zone: tzinfo | None,
) -> TimeOff:
    """The time-off planner of a collection, its changes on ``changes``' undo stack."""
    finder = Finder(database, Scheduler(), settings, zone)
    return TimeOff(database, schedulers, finder, changes, settings.day_rollover_hour, zone)


def _describe_moves(moves: Sequence[Move], kind: str) -> str:
    """A one-line account of a plan of time off: how many cards move, to which days."""
    if not moves:
        return {
            "postpone": tr("No cards to postpone."),
            "advance": tr("No cards to advance."),
        }.get(kind, tr("No cards to spread over the time away."))
    count = len(moves)
    earliest = min(move.due_after for move in moves).date()
    latest = max(move.due_after for move in moves).date()
    if earliest == latest:
        text = {
            "postpone": trn(
                "Postpone {count} card: due {day}.", "Postpone {count} cards: due {day}.", count
            ),
            "advance": trn(
                "Advance {count} card: due {day}.", "Advance {count} cards: due {day}.", count
            ),
        }.get(kind) or trn(
            "Spread {count} card over the time away: due {day}.",
            "Spread {count} cards over the time away: due {day}.",
            count,
        )
        return text.format(count=number(count), day=earliest.isoformat())
    text = {
        "postpone": trn(
            "Postpone {count} card: due from {first} to {last}.",
            "Postpone {count} cards: due from {first} to {last}.",
            count,
        ),
        "advance": trn(
            "Advance {count} card: due from {first} to {last}.",
            "Advance {count} cards: due from {first} to {last}.",
            count,
        ),
    }.get(kind) or trn(
        "Spread {count} card over the time away: due from {first} to {last}.",
        "Spread {count} cards over the time away: due from {first} to {last}.",
        count,
    )
    return text.format(count=number(count), first=earliest.isoformat(), last=latest.isoformat())
