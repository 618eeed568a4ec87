"""The windows the main window opens over its pages: Statistics, Custom Study and Time Off.

Each loads when first opened: the deck list, the first screen, starts without them
(tests/ui/test_start_imports.py).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QWidget

from recall.collection import deck_list as library
from recall.core.preferences import Preferences
from recall.ui.collection_actions import CollectionActions
from recall.ui.context import WindowContext, WindowPart
from recall.ui.deck_list_view import DeckListView

if TYPE_CHECKING:
    from recall.ui.statistics.window import StatisticsWindow
    from recall.ui.study_tools import CustomStudyDialog, TimeOffDialog


class SideWindows(WindowPart):
    """Opens Statistics, Custom Study and Time Off, and keeps the ones opened.

    Args:
        context: The collection, the clock and the window's services.
        preferences: The preferences as they are now (they change when saved).
        deck_list: The deck list, whose selected deck each opens on.
        collection: The card actions: the undo stack Time Off puts its change on, and the
            browser a card picked in the statistics opens in.
        window: The main window, their parent.
    """

    custom_chosen = Signal(object)  # a CustomQueue to study
    time_off_made = Signal(str)  # the label of the change Time Off made

    def __init__(
        self,
        context: WindowContext,
        preferences: Callable[[], Preferences],
        deck_list: DeckListView,
        collection: CollectionActions,
        window: QWidget,
    ) -> None:
        super().__init__(context, window)
        self._preferences = preferences
        self._deck_list = deck_list
        self._collection = collection
        self.statistics: StatisticsWindow | None = None
        self.custom_study_dialog: CustomStudyDialog | None = None

    def open_custom_study(self, card_ids: tuple[int, ...] = ()) -> CustomStudyDialog:
        """Open Custom Study (on the deck list's selected deck); its Study starts the session.

        Args:
            card_ids: Cards chosen in the browser: the dialog opens on a cram of them.
        """
        from recall.ui.study_tools import CustomStudyDialog, custom_study

        builder = custom_study(self._database, self._schedulers, self._preferences(), self._zone)
        key = self._deck_list.selected_key()
        with self._database.reading() as transaction:
            deck = transaction.decks.by_key(key) if key is not None else None
        dialog = CustomStudyDialog(builder, self._clock, deck.name if deck else "", self._window)
        if card_ids:
            dialog.select_cards(card_ids)
        dialog.chosen.connect(self.custom_chosen.emit)
        dialog.setModal(True)
        dialog.show()
        self.custom_study_dialog = dialog
        return dialog

    def open_time_off(self) -> TimeOffDialog:
        """Open Time Off; what it moves is one change on Edit > Undo's stack."""
        from recall.ui.study_tools import TimeOffDialog, time_off

        planner = time_off(
            self._database,
            self._schedulers,
            self._preferences(),
            self._collection.changes,
            self._zone,
        )
        dialog = TimeOffDialog(planner, self._clock, self._zone, self._window)
        dialog.made.connect(self.time_off_made.emit)
        dialog.setModal(True)
        dialog.show()
        return dialog

    def show_statistics(self, key: str | None) -> None:
        """Open the statistics window (or bring it to the front).

        Args:
            key: The deck it shows; None keeps the one it shows.
        """
        overviews = library.deck_overviews(
            self._database, self._clock(), self._zone, self._schedulers
        )
        names = library.shown_names(overviews)
        decks = [(deck.key, names[deck.key]) for deck in overviews]
        if self.statistics is None:
            from recall.ui.statistics.window import StatisticsWindow

            self.statistics = StatisticsWindow(
                self._database,
                self._preferences(),
                self._clock,
                decks,
                key,
                self._zone,
                self._window,
            )
            self.statistics.card_requested.connect(self._collection.show_card)
            self.statistics.refresh()
        elif key is not None and key != self.statistics.deck_key():
            self.statistics.set_decks(decks)
            self.statistics.set_deck(key)  # which computes the figures again
        else:
            self.statistics.set_decks(decks)
            self.statistics.refresh()
        self.statistics.show()
        self.statistics.raise_()
        self.statistics.activateWindow()

    def close(self) -> None:
        """Close the statistics window, waiting for the figures being computed."""
        if self.statistics is not None:
            self.statistics.close()  # hidden: figures not yet started are dropped
            self.statistics.tasks.wait()  # for the one being computed
