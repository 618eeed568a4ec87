"""The browser's bulk actions on the selected cards, with Anki's keys, and their undo.

Each action asks what it needs (a deck, tags, a due date, a confirmation) through
``Prompts``, runs one core change, and tells the browser which cards changed.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QMenu, QWidget

from recall.changes.cards import FLAG_NAMES, Changes
from recall.changes.change import Change
from recall.collection import browse, exporting
from recall.collection.browse import BrowseRow
from recall.core import i18n
from recall.core.errors import RecallError
from recall.core.i18n import mark, tr, trn
from recall.core.wording import number
from recall.storage import Database
from recall.ui.plain_text import menu_text
from recall.ui.prompts import Prompts

if TYPE_CHECKING:
    from recall.ui.browser.window import BrowserWindow

# The Flag menu's entries, for flags 1 to 7 (``FLAG_NAMES``).
FLAG_ACTIONS = (
    mark("Flag Red"),
    mark("Flag Orange"),
    mark("Flag Green"),
    mark("Flag Blue"),
    mark("Flag Pink"),
    mark("Flag Turquoise"),
    mark("Flag Purple"),
)


class BrowserActions(QObject):
    """The Cards menu of the browser: each action works on the selected cards."""

    changed = Signal(object)  # the ids of the cards changed, or None for all shown

    def __init__(
        self,
        browser: BrowserWindow,
        database: Database,
        changes: Changes,
        clock: Callable[[], datetime],
        prompts: Prompts,
    ) -> None:
        super().__init__(browser)
        self._browser = browser
        self._database = database
        self._changes = changes
        self._clock = clock
        self._prompts = prompts
        self.undo_action = self._action(tr("&Undo"), "Ctrl+Z", self.undo)
        self.add_action = self._action(tr("&Add Cards…"), "Ctrl+E", self.add_cards)
        # Ctrl+G: the key of Anki's browser for a filtered deck of the cards shown.
        self.study_action = self._action(tr("Study T&hese…"), "Ctrl+G", self.study)
        self.suspend_action = self._action(tr("Toggle &Suspend"), "Ctrl+J", self.toggle_suspend)
        self.bury_action = self._action(tr("&Bury Until Tomorrow"), "Ctrl+Shift+J", self.bury)
        self.move_action = self._action(tr("Change &Deck…"), "Ctrl+D", self.move)
        self.add_tags_action = self._action(tr("Add &Tags…"), "Ctrl+Shift+A", self.add_tags)
        self.remove_tags_action = self._action(
            tr("&Remove Tags…"), "Ctrl+Alt+Shift+A", self.remove_tags
        )
        self.forget_action = self._action(tr("&Forget (Make New)"), "Ctrl+Alt+N", self.forget)
        self.set_due_action = self._action(tr("Set Due &Date…"), "Ctrl+Shift+D", self.set_due)
        self.delete_action = self._action(tr("De&lete…"), "Ctrl+Del", self.delete)
        self.export_action = self._action(
            tr("E&xport Selected Cards…"), "Ctrl+Shift+E", self.export
        )
        self.flag_actions = [
            self._action(
                i18n.tr(FLAG_ACTIONS[number - 1]),
                f"Ctrl+{number}",
                lambda number=number: self.toggle_flag(number),  # type: ignore[misc]
            )
            for number in range(1, len(FLAG_NAMES))
        ]
        self.update_undo()

    def fill_context_menu(self, table: QWidget) -> None:
        """Give the card table the actions on the selected cards as its context menu."""
        table.setContextMenuPolicy(Qt.ContextMenuPolicy.ActionsContextMenu)
        groups = (
            (self.study_action,),
            (self.suspend_action, self.bury_action, self.move_action),
            (self.add_tags_action, self.remove_tags_action),
            (self.forget_action, self.set_due_action, self.delete_action, self.export_action),
        )
        for group in groups:
            if table.actions():
                separator = QAction(table)
                separator.setSeparator(True)
                table.addAction(separator)
            table.addActions(list(group))

    def fill_menu(self, menu: QMenu) -> None:
        """Put the actions in the browser's Cards menu."""
        menu.addAction(self.add_action)
        menu.addAction(self.study_action)
        menu.addSeparator()
        for action in (self.suspend_action, self.bury_action):
            menu.addAction(action)
        flags = menu.addMenu(tr("&Flag"))
        for action in self.flag_actions:
            flags.addAction(action)
        menu.addSeparator()
        for action in (self.move_action, self.add_tags_action, self.remove_tags_action):
            menu.addAction(action)
        menu.addSeparator()
        for action in (self.forget_action, self.set_due_action, self.delete_action):
            menu.addAction(action)
        menu.addSeparator()
        menu.addAction(self.export_action)

    # Actions

    def undo(self) -> None:
        """Undo the newest change (bulk action, edit, added card, deck change)."""
        if self._changes.undo_label is None:
            self._browser.status.setText(tr("Nothing to undo."))
            return
        change = self._run(self._changes.undo)
        if change is not None:
            self._browser.status.setText(tr("Undone: {change}.").format(change=change.label))
            self.changed.emit(None)
            self._browser.search()

    def add_cards(self) -> None:
        """Open the Add window on the selected card's deck."""
        from recall.ui.browser.add_card_dialog import AddCardDialog

        with self._database.reading() as transaction:
            decks = transaction.browsing.decks()
        rows = self._browser.selected_ids()
        deck_id = None
        if rows:
            row = self._browser.model.row_of(rows[0])
            deck_id = self._browser.model.row_value(row).deck_id if row is not None else None
        dialog = AddCardDialog(
            self._database, self._changes, decks, self._clock, deck_id, self._browser, self._prompts
        )
        dialog.added.connect(lambda _card: self._after_add())
        dialog.setModal(False)
        dialog.show()
        self.dialog = dialog

    def study(self) -> None:
        """Ask the main window for a custom session of the selected cards (cram or not)."""
        ids = self._browser.selected_ids()
        if not ids:
            self._browser.status.setText(tr("Select cards first."))
            return
        if self._browser.save_card():
            self._browser.study_requested.emit(tuple(ids))

    def toggle_suspend(self) -> None:
        """Suspend the selected cards, or unsuspend them when all are suspended."""
        rows = self._rows()
        if rows:
            suspend = not all(row.suspended for row in rows)
            self._apply(lambda ids: self._changes.suspend(ids, suspend))

    def bury(self) -> None:
        """Keep the selected cards out of study until tomorrow."""
        self._apply(lambda ids: self._changes.bury(ids, self._clock()))

    def toggle_flag(self, flag: int) -> None:
        """Flag the selected cards, or take the flag off when all have it."""
        rows = self._rows()
        if rows:
            value = 0 if all(row.flag == flag for row in rows) else flag
            self._apply(lambda ids: self._changes.flag(ids, value))

    def move(self) -> None:
        """Move the selected cards to a deck the learner picks."""
        if not self._browser.selected_ids():
            return
        with self._database.reading() as transaction:
            decks = transaction.browsing.decks()
        name = self._prompts.choose(
            tr("Change Deck"), tr("Move the cards to:"), [d.name for d in decks]
        )
        if name is None:
            return
        deck = next(deck for deck in decks if deck.name == name)
        self._apply(lambda ids: self._changes.move(ids, deck))

    def add_tags(self) -> None:
        """Add tags to the selected cards."""
        self._tags(adding=True)

    def remove_tags(self) -> None:
        """Remove tags from the selected cards."""
        self._tags(adding=False)

    def forget(self) -> None:
        """Make the selected cards new again (recorded in their history)."""
        self._apply(lambda ids: self._changes.forget(ids, self._clock()))

    def set_due(self) -> None:
        """Set the selected cards' due date: 0 today, 3 in three days, 3-7 a day in between."""
        if not self._browser.selected_ids():
            return
        spec = self._prompts.ask_text(
            tr("Set Due Date"),
            tr("Due in how many days? (0 = today, 1! = tomorrow, 3-7 = a range)"),
            "0",
        )
        if spec is not None:
            self._apply(lambda ids: self._changes.set_due(ids, spec, self._clock()))

    def delete(self) -> None:
        """Delete the selected cards and their history, after asking; a backup is made first."""
        ids = self._browser.selected_ids()
        if not ids:
            return
        question = trn(
            "Delete {count} card with its review history? A backup is made first, and Ctrl+Z "
            "brings it back.",
            "Delete {count} cards with their review history? A backup is made first, and Ctrl+Z "
            "brings them back.",
            len(ids),
        ).format(count=number(len(ids)))
        if self._prompts.confirm(tr("Delete Cards"), question):
            self._apply(lambda ids: self._changes.delete(ids, self._clock()))

    def export(self) -> None:
        """Ask where to, then write the selected cards as a Recall deck or an Anki package."""
        from PySide6.QtWidgets import QFileDialog

        if not self._browser.selected_ids():
            self._browser.status.setText(tr("Select cards first."))
            return
        filters = {tr("Recall deck (*.json)"): ".json", tr("Anki package (*.apkg)"): ".apkg"}
        name, chosen = QFileDialog.getSaveFileName(
            self._browser,
            tr("Export Selected Cards"),
            str(Path.home() / "selected-cards.json"),
            ";;".join(filters),
        )
        if name:
            target = Path(name)
            if target.suffix.lower() not in filters.values():
                target = target.with_suffix(filters.get(chosen, ".json"))
            self.export_to(target)

    def export_to(self, target: Path) -> None:
        """Write the selected cards to ``target`` (.json or .apkg) in the background."""
        ids = self._browser.selected_ids()
        database = self._database

        def work() -> int:
            deck = browse.selection_deck(database, ids, f"Selected cards ({len(ids)})")
            note_types = exporting.stored_note_types(database, deck.cards)
            return exporting.write_deck(deck, target, database.path.parent, note_types)

        def done(cards: int) -> None:
            self._browser.status.setText(
                trn(
                    "Wrote {count} card to {path}.", "Wrote {count} cards to {path}.", cards
                ).format(count=cards, path=target)
            )

        def failed(error: Exception) -> None:
            if not isinstance(error, RecallError):
                raise error
            self._prompts.refused(tr("Export"), error)

        self._browser.tasks.run(work, done, failed)

    # Helpers

    def _action(self, text: str, keys: str, slot: Callable[[], None]) -> QAction:
        action = QAction(text, self._browser)
        action.setShortcut(QKeySequence(keys))
        action.triggered.connect(lambda _checked=False: slot())
        self._browser.addAction(action)
        return action

    def _rows(self) -> list[BrowseRow]:
        model = self._browser.model
        rows = [model.row_of(card_id) for card_id in self._browser.selected_ids()]
        return [model.row_value(row) for row in rows if row is not None]

    def _tags(self, adding: bool) -> None:
        if not self._browser.selected_ids():
            return
        if adding:
            title, label = tr("Add Tags"), tr("Add tags (separated by spaces):")
        else:
            title, label = tr("Remove Tags"), tr("Remove tags (separated by spaces):")
        text = self._prompts.ask_text(title, label)
        if not text or not text.split():
            return
        tags = text.split()
        add, remove = (tags, []) if adding else ([], tags)
        self._apply(lambda ids: self._changes.tag(ids, self._clock(), add=add, remove=remove))

    def _apply(self, work: Callable[[list[int]], Change]) -> None:
        ids = self._browser.selected_ids()
        if not ids:
            self._browser.status.setText(tr("Select cards first."))
            return
        if not self._browser.save_card():
            return
        change = self._run(lambda: work(ids))
        if change is not None:
            self._browser.status.setText(
                tr("{change}. Ctrl+Z undoes it.").format(change=change.label)
            )
            self.changed.emit(sorted({*ids, *change.card_ids}))  # a note's other cards too
        self.update_undo()

    def _run(self, work: Callable[[], Change]) -> Change | None:
        try:
            return work()
        except RecallError as error:
            self._prompts.refused(tr("Browse"), error)
            return None
        finally:
            self.update_undo()

    def _after_add(self) -> None:
        self.update_undo()
        self.changed.emit(None)
        self._browser.search()

    def update_undo(self) -> None:
        """Name the change Ctrl+Z would undo in the Edit menu."""
        label = self._changes.undo_label
        self.undo_action.setText(
            tr("&Undo {change}").format(change=menu_text(label)) if label else tr("&Undo")
        )
        self.undo_action.setEnabled(label is not None)
