"""The main window's pages: the deck list, a study session's review screen and its summary,
and the moves between them (study a deck, finish, learn ahead, more new cards, back); the
pages wait, keeping the keys' place, while an operation writes cards."""

from __future__ import annotations

import random
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QApplication, QStackedWidget, QWidget
from shiboken6 import isValid

from recall.collection import deck_list as library
from recall.core.errors import RecallError
from recall.core.i18n import tr
from recall.host import paths
from recall.ui.context import WindowContext
from recall.ui.deck_list_view import DeckListView
from recall.ui.read_sources import forget_read_sources
from recall.ui.review.summary_view import SummaryView

if TYPE_CHECKING:
    from recall.collection.deck_list import DeckOverview
    from recall.study.custom import CustomQueue
    from recall.ui.review.view import ReviewView


class StudyPages(QStackedWidget):
    """The deck list, the review screen of the current session and its summary, one shown.

    Args:
        context: The collection, the clock and the window's services.
        rng: Shuffles choices; tests pass a seeded one.
    """

    switched = Signal()  # a page was brought up: the window's actions follow it
    counted = Signal(list)  # the deck overviews just read (the tray shows them too)
    review_started = Signal(object)  # a new ReviewView, before its first card
    undo_available = Signal(bool)  # the review screen's: whether a rating can be taken back

    def __init__(self, context: WindowContext, rng: random.Random) -> None:
        super().__init__()
        self._context = context
        self._database = context.database
        self._schedulers = context.schedulers
        self._clock = context.clock
        self._zone = context.zone
        self._rng = rng
        self._review: ReviewView | None = None
        self._focus_before_busy: QWidget | None = None
        self.deck_list = DeckListView()
        self.summary = SummaryView()
        self.addWidget(self.deck_list)
        self.addWidget(self.summary)
        self._connect_signals()

    @property
    def review(self) -> ReviewView | None:
        """The review screen of the current session, if one was started."""
        return self._review

    @property
    def on_review(self) -> bool:
        """Whether the review screen is the page shown."""
        return self._review is not None and self.currentWidget() is self._review

    def refresh_decks(self, select: str | None = None) -> None:
        """Reload the deck list's counts."""
        overviews = library.deck_overviews(
            self._database, self._clock(), self._zone, self._schedulers
        )
        self.deck_list.set_decks(overviews, select)
        self.counted.emit(overviews)

    def refresh_decks_off_thread(self, select: str | None = None) -> None:
        """Reload the deck list's counts on the worker thread (100 ms at 100,000 cards)."""
        database, now, zone = self._database, self._clock(), self._zone
        schedulers = self._schedulers

        def work() -> list[DeckOverview]:
            return library.deck_overviews(database, now, zone, schedulers)

        def show(overviews: list[DeckOverview]) -> None:
            self.deck_list.set_decks(overviews, select)
            self.counted.emit(overviews)

        self._context.tasks.run(work, show)

    def show_decks(self, off_thread: bool = False) -> None:
        """Go to the deck list, with fresh counts and the keyboard on the table."""
        if off_thread:
            self.refresh_decks_off_thread(self.deck_list.selected_key())
        else:
            self.refresh_decks()
        self.setCurrentWidget(self.deck_list)
        self.switched.emit()
        self.deck_list.focus_table()

    def study(
        self, deck_key: str, learn_ahead: bool = False, custom: CustomQueue | None = None
    ) -> None:
        """Start a study session on a deck (with ``learn_ahead``, learning cards due later
        today come now), or a custom session on its queue."""
        # The review screen and the statistics load when first opened: the deck list,
        # the first screen, starts without them (tests/ui/test_start_imports.py).
        from recall.study.session import StudySession
        from recall.ui.review.view import ReviewView

        forget_read_sources()  # the review screen's modules were just read: before its rows
        session = StudySession(
            self._database,
            self._schedulers,
            deck_key,
            self._rng,
            self._zone,
            learn_ahead_today=learn_ahead,
            custom=custom,
        )
        review = ReviewView(
            session,
            self._clock,
            paths.media_dir(self._database.path.parent),
            self._context.prompts,
        )
        review.finished.connect(self._on_review_finished)
        review.left.connect(self.show_decks)
        review.stale.connect(self.start_over)
        review.undo_available.connect(self.undo_available)
        self.review_started.emit(review)
        if self._review is not None:
            self.removeWidget(self._review)
            self._review.deleteLater()
        self._review = review
        self.addWidget(review)
        self.setCurrentWidget(review)
        self.switched.emit()
        review.start()

    def start_over(self) -> None:
        """Drop the review screen and go to the deck list: the database was replaced (a
        restore), or changed under the session."""
        if self._review is not None:
            self.removeWidget(self._review)
            self._review.deleteLater()
            self._review = None
        self.show_decks(off_thread=True)

    def hold_while_writing(self, writing: bool) -> None:
        """Disable the pages while an operation writes cards (studying and editing wait
        for it), and give the keys back where they were once it has finished."""
        if writing and self.isEnabled():
            focused = QApplication.focusWidget()
            inside = focused is not None and self.isAncestorOf(focused)
            self._focus_before_busy = focused if inside else None
        was_disabled = not self.isEnabled()
        self.setEnabled(not writing)
        if was_disabled and not writing:
            self._restore_focus()

    def _restore_focus(self) -> None:
        """Give the keys back where they were before the pages were disabled (a sync at
        launch, an import), or to the page's own place: disabling moved focus away."""
        focused = QApplication.focusWidget()
        if focused is not None and self.isAncestorOf(focused):
            return
        before, self._focus_before_busy = self._focus_before_busy, None
        page = self.currentWidget()
        alive = before is not None and isValid(before)
        if alive and page is not None and before is not None and page.isAncestorOf(before):
            before.setFocus(Qt.FocusReason.OtherFocusReason)
            return
        if page is self.deck_list:
            self.deck_list.focus_table()
        elif page is not None:
            page.setFocus(Qt.FocusReason.OtherFocusReason)

    def _connect_signals(self) -> None:
        self.deck_list.study_requested.connect(self.study)
        self.summary.back_requested.connect(self.show_decks)
        self.summary.learn_ahead_requested.connect(self._on_learn_ahead)
        self.summary.more_new_requested.connect(self._on_more_new)

    def _on_review_finished(self) -> None:
        review = self._review
        assert review is not None
        from recall.collection.study_more import more_to_study

        now = self._clock()
        if review.custom is not None:
            # A custom session studies no deck: there is no deck's "more" to offer.
            self.summary.show_custom_summary(review.custom, review.summary(), now)
        else:
            more = more_to_study(self._database, self._schedulers, review.deck_key, now, self._zone)
            self.summary.show_summary(review.deck_name, review.summary(), now, more)
        self.setCurrentWidget(self.summary)
        self.switched.emit()

    def _on_learn_ahead(self) -> None:
        if self._review is not None:
            self.study(self._review.deck_key, learn_ahead=True)

    def _on_more_new(self) -> None:
        from recall.collection.study_more import add_new_cards_today

        review = self._review
        if review is None:
            return
        try:
            add_new_cards_today(
                self._database, self._schedulers, review.deck_key, self._clock(), self._zone
            )
        except RecallError as error:
            self._context.prompts.tell(tr("More new cards"), str(error))
            return
        self.study(review.deck_key)
