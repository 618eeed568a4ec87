"""The main window's way into cards and decks: Browse, Add Cards, deck changes, review keys.

One undo stack (``Changes``) holds every change made here, in the browser and from the
review screen; Edit > Undo walks it back when no rating is waiting to be undone.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import Signal
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QMenu, QScrollArea, QVBoxLayout, QWidget

from recall.changes import decks as deck_changes
from recall.changes.cards import Changes
from recall.changes.change import Change
from recall.core import i18n
from recall.core.errors import RecallError
from recall.core.i18n import number, tr, trn
from recall.core.preferences import Preferences
from recall.core.presets import leech_policy
from recall.host import paths
from recall.options import deck_options
from recall.ui.context import WindowContext, WindowPart
from recall.ui.override_errors import reports_errors
from recall.ui.prompts import Prompts

if TYPE_CHECKING:
    from recall.ui.browser.window import BrowserWindow
    from recall.ui.deck_list_view import DeckListView
    from recall.ui.review.view import ReviewView


@reports_errors
class EditCardDialog(QDialog):
    """One card in the editor, saved with Save (Ctrl+S) or dropped with Cancel.

    Cancel, Escape or the window's close button ask first when the text was changed.
    """

    def __init__(
        self,
        content: str,
        parent: QWidget | None = None,
        prompts: Prompts | None = None,
        media_dir: Path | None = None,
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle(tr("Edit Card"))
        self._prompts = prompts or Prompts(self)
        # The editor and the deck format's models load when a card is first edited.
        from recall.changes import editing
        from recall.ui.browser.card_editor import CardEditor

        self.editor = CardEditor(media_dir)
        self.editor.set_data(editing.card_data(content))
        self._loaded = self.editor.data()
        self.editor.media_refused.connect(self._on_media_refused)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setWidget(self.editor)
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel
        )
        buttons.accepted.connect(self._on_save)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(scroll, 1)
        layout.addWidget(buttons)
        self.resize(760, 700)

    def reject(self) -> None:
        """Drop the changes, asking first when the text differs from the card's."""
        from recall.ui.browser.add_card_dialog import DISCARD

        if self.editor.data() != self._loaded and not self._prompts.confirm(
            tr("Edit Card"), i18n.tr(DISCARD)
        ):
            return
        super().reject()

    def _on_save(self) -> None:
        if not self.editor.check():
            self.accept()

    def _on_media_refused(self, message: str) -> None:
        self._prompts.tell(tr("Edit Card"), message, warning=True)


class CollectionActions(WindowPart):
    """Actions on the collection for the main window's menus.

    Args:
        database: The collection.
        schedulers: FSRS per preset, for due dates and undo.
        settings: The learner's preferences (the day rollover).
        clock: The current time, aware UTC.
        zone: The learner's time zone; None is the system's.
        prompts: Asks and tells the learner.
        deck_list: The deck list, whose selected deck the deck actions work on.
        parent: The main window.
    """

    changed = Signal()
    notice = Signal(str)
    study_requested = Signal(object)  # the ids of the cards the browser's Study These chose

    def __init__(
        self,
        context: WindowContext,
        settings: Preferences,
        deck_list: DeckListView,
        parent: QWidget,
    ) -> None:
        super().__init__(context, parent)
        self._settings = settings
        self._deck_list = deck_list
        self.changes = Changes(context.database, context.schedulers, settings, context.zone)
        self.browser: BrowserWindow | None = None
        self._review_change: Change | None = None
        self.browse_action = self._action(tr("&Browse Cards"), "B", self.browse)
        self.add_action = self._action(tr("&Add Cards…"), "A", self.add_cards)
        self.new_deck_action = self._action(tr("&New Deck…"), "Ctrl+Shift+N", self.new_deck)
        self.rename_deck_action = self._action(tr("&Rename Deck…"), "F2", self.rename_deck)
        self.describe_deck_action = self._action(tr("Deck &Description…"), "", self.describe_deck)
        self.delete_deck_action = self._action(tr("&Delete Deck…"), "", self.delete_deck)

    @property
    def editing_actions(self) -> tuple[QAction, ...]:
        """Browse, Add Cards and the deck actions: they change cards and decks."""
        return (
            self.browse_action,
            self.add_action,
            self.new_deck_action,
            self.rename_deck_action,
            self.describe_deck_action,
            self.delete_deck_action,
        )

    def fill_menus(self, tools: QMenu, decks: QMenu) -> None:
        """Put Browse and Add Cards in Tools, the deck actions in Decks."""
        tools.addAction(self.browse_action)
        tools.addAction(self.add_action)
        for action in (
            self.new_deck_action,
            self.rename_deck_action,
            self.describe_deck_action,
            self.delete_deck_action,
        ):
            decks.addAction(action)

    def undo(self) -> bool:
        """Undo the newest change; False when there is none."""
        if self.changes.undo_label is None:
            return False
        change = self._run(self.changes.undo)
        if change is not None:
            self.notice.emit(tr("Undone: {change}.").format(change=change.label))
            self._changed()
        return True

    # Cards

    def browse(self, query: str = "") -> BrowserWindow:
        """Open the browser (one window, raised if open), searching for ``query``."""
        from recall.ui.browser.window import BrowserWindow

        if self.browser is None:
            # A window of its own (no parent), so the main window's keys do not reach into
            # it; its message boxes sit over it unless prompts were given (tests).
            prompts = None if type(self._prompts) is Prompts else self._prompts
            self.browser = BrowserWindow(
                self._database, self._settings, self._clock, self.changes, self._zone, prompts
            )
            self.browser.cards_changed.connect(self.changed)
            self.browser.study_requested.connect(self.study_requested)
        self.browser.show()
        self.browser.raise_()
        self.browser.activateWindow()
        self.browser.search(query)
        return self.browser

    def show_card(self, card_id: int) -> None:
        """Open the browser on one card: its deck searched, the card selected."""
        from recall.content import search  # when first used

        with self._database.reading() as transaction:
            card = transaction.cards.get(card_id)
            deck = transaction.decks.get(card.deck_id)
        self.browse().show_card(card_id, f"deck:{search.quote(deck.name)}")

    def add_cards(self) -> None:
        """Open the Add Cards window on the selected deck."""
        from recall.ui.browser.add_card_dialog import AddCardDialog

        with self._database.reading() as transaction:
            decks = transaction.browsing.decks()
            selected = self._deck_list.selected_key()
            deck = transaction.decks.by_key(selected) if selected else None
        dialog = AddCardDialog(
            self._database,
            self.changes,
            decks,
            self._clock,
            deck.id if deck else None,
            self._window,
            self._prompts,
        )
        dialog.added.connect(lambda _card: self._changed())
        dialog.show()
        self.add_dialog = dialog

    def close_windows(self) -> None:
        """Close the browser and the Add Cards window (the main window is closing)."""
        if self.browser is not None:
            self.browser.close()
        dialog = getattr(self, "add_dialog", None)
        if dialog is not None:
            dialog.close()

    def attach_review(self, review: ReviewView) -> None:
        """Let the review screen's keys edit, bury, suspend and flag the card on screen."""
        review.card_key.connect(lambda action, flag: self._on_review_key(review, action, flag))
        review.became_leech.connect(self._on_leech)
        # A rating recorded after a change there makes the rating the newer of the two.
        review.undo_available.connect(lambda _available: self._forget_review_change())

    def undo_review_change(self, review: ReviewView) -> bool:
        """Undo a bury or suspend made on the review screen if it is the newest thing done
        there, and show that card again; False when the newest thing is a rating."""
        if not self.review_change_pending:
            return False
        self._review_change = None
        undone = self._run(self.changes.undo)
        if undone is None:
            return True
        self.notice.emit(tr("Undone: {change}.").format(change=undone.label))
        review.show_card(undone.card_ids[0])
        self._changed()
        return True

    @property
    def review_change_pending(self) -> bool:
        """Whether a bury or suspend made on the review screen is the newest change."""
        change = self._review_change
        return change is not None and self.changes.newest is change

    def _forget_review_change(self) -> None:
        self._review_change = None

    # Decks

    def new_deck(self) -> None:
        """Ask for a name (``A::B`` makes it a subdeck) and add the deck."""
        name = self._prompts.ask_text(
            tr("New Deck"), tr("Name (use :: for a subdeck, as in A::B):")
        )
        if name:
            self._apply(lambda: deck_changes.new_deck(self._database, name, self._clock()))

    def rename_deck(self) -> None:
        """Rename the selected deck; a name with ``::`` moves it in the tree."""
        deck = self._selected_deck()
        if deck is None:
            return
        name = self._prompts.ask_text(
            tr("Rename Deck"), tr("New name (A::B puts it inside A):"), deck[1]
        )
        if name and name != deck[1]:
            self._apply(
                lambda: deck_changes.rename_deck(self._database, deck[0], name, self._clock())
            )

    def describe_deck(self) -> None:
        """Change the selected deck's description."""
        deck = self._selected_deck()
        if deck is None:
            return
        text = self._prompts.ask_text(tr("Deck Description"), tr("Description:"), deck[2])
        if text is not None:
            self._apply(
                lambda: deck_changes.describe_deck(self._database, deck[0], text, self._clock())
            )

    def delete_deck(self) -> None:
        """Delete the selected deck and its subdecks after saying what goes; backs up first."""
        deck = self._selected_deck()
        if deck is None:
            return
        contents = deck_changes.contents(self._database, deck[0])
        subdecks = len(contents.decks) - 1
        cards = trn("{count} card", "{count} cards", contents.cards).format(
            count=number(contents.cards)
        )
        reviews = trn("{count} review", "{count} reviews", contents.reviews).format(
            count=number(contents.reviews)
        )
        if subdecks:
            question = trn(
                "Delete {deck} and its {count} subdeck, with {cards} and {reviews}? A backup is "
                "made first, and Edit > Undo brings them back.",
                "Delete {deck} and its {count} subdecks, with {cards} and {reviews}? A backup is "
                "made first, and Edit > Undo brings them back.",
                subdecks,
            ).format(deck=deck[1], count=number(subdecks), cards=cards, reviews=reviews)
        else:
            question = tr(
                "Delete {deck}, with {cards} and {reviews}? A backup is made first, and "
                "Edit > Undo brings them back."
            ).format(deck=deck[1], cards=cards, reviews=reviews)
        if self._prompts.confirm(tr("Delete Deck"), question):
            self._apply(lambda: deck_changes.delete_deck(self._database, deck[0], self._clock()))

    # Helpers

    def _action(self, text: str, keys: str, slot: Callable[[], object]) -> QAction:
        action = QAction(text, self._window)
        if keys:
            action.setShortcut(QKeySequence(keys))
        action.triggered.connect(lambda _checked=False: slot())
        self._window.addAction(action)
        return action

    def _selected_deck(self) -> tuple[int, str, str] | None:
        key = self._deck_list.selected_key()
        if key is None:
            return None
        with self._database.reading() as transaction:
            deck = transaction.decks.by_key(key)
        return None if deck is None else (deck.id, deck.name, deck.description)

    def _apply(self, work: Callable[[], Change]) -> None:
        change = self._run(work)
        if change is not None:
            self.changes.push(change)
            self.notice.emit(tr("{change}. Edit > Undo takes it back.").format(change=change.label))
            self._changed()

    def _run(self, work: Callable[[], Change]) -> Change | None:
        try:
            return work()
        except RecallError as error:
            self._prompts.refused("Recall", error)
            return None

    def _changed(self) -> None:
        self.changed.emit()
        if self.browser is not None and self.browser.isVisible():
            self.browser.refresh_sidebar()
            self.browser.search()

    def _on_review_key(self, review: ReviewView, action: str, flag: int) -> None:
        shown = review.shown
        if shown is None:
            return
        card_id = shown.card_id
        if action == "edit":
            self._edit_in_review(review, card_id)
            return
        if action == "flag":
            with self._database.reading() as transaction:
                ((_, current),) = transaction.browsing.values("card", ("flag",), [card_id])
            value = 0 if current == flag else flag
            change = self._run(lambda: self.changes.flag([card_id], value))
            if change is not None:
                self.notice.emit(f"{change.label}.")
            return
        if not review.commit_pending():
            return
        if action == "bury":
            change = self._run(lambda: self.changes.bury([card_id], self._clock()))
        else:
            change = self._run(lambda: self.changes.suspend([card_id]))
        if change is not None:
            self.notice.emit(tr("{change}. Ctrl+Z takes it back.").format(change=change.label))
            review.show_next()
            self._review_change = change if change.card_ids else None
            self._changed()

    def _edit_in_review(self, review: ReviewView, card_id: int) -> None:
        with self._database.reading() as transaction:
            content = transaction.cards.get(card_id).content
        media = paths.media_dir(self._database.path.parent)
        dialog = EditCardDialog(content, self._window, self._prompts, media)
        if dialog.exec() != QDialog.DialogCode.Accepted:
            return
        # Loaded when a card is first edited, as the dialog's modules are.
        from recall.changes.editing import CardChangedElsewhereError
        from recall.ui.edit_saving import KEPT, save_edit

        change: Change | None = None
        try:
            change = save_edit(
                self._database,
                card_id,
                dialog.editor.data(),
                content,
                self._clock(),
                self._prompts,
            )
        except CardChangedElsewhereError:
            self.notice.emit(i18n.tr(KEPT))
        except RecallError as error:
            self._prompts.refused("Recall", error)
        if change is not None and change.changed:
            self.changes.push(change)
            self.notice.emit(tr("Card saved."))
            self._changed()
        review.show_again()

    def _on_leech(self) -> None:
        key = self._deck_list.selected_key()
        if key is None:
            return
        policy = leech_policy(deck_options.deck_options(self._database, key).preset)
        if policy.leech_action == "suspend":
            text = trn(
                "That card is a leech: forgotten {count} time, it was tagged leech and "
                "suspended. Find it in Browse with is:leech.",
                "That card is a leech: forgotten {count} times, it was tagged leech and "
                "suspended. Find it in Browse with is:leech.",
                policy.leech_threshold,
            )
        else:
            text = trn(
                "That card is a leech: forgotten {count} time, it was tagged leech. Find it in "
                "Browse with is:leech.",
                "That card is a leech: forgotten {count} times, it was tagged leech. Find it in "
                "Browse with is:leech.",
                policy.leech_threshold,
            )
        self.notice.emit(text.format(count=number(policy.leech_threshold)))
