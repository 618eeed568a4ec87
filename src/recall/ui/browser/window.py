"""The card browser: search, a sidebar that builds queries, the matching cards, an editor.

Typing searches after a short pause and Enter at once; the search runs on the task runner,
so a query over 100,000 cards never freezes the window. Bulk actions live in
``browser_actions``; each goes on the undo stack that Ctrl+Z walks back.

The editor remembers the content it was loaded from, and saving never silently replaces a
version saved elsewhere meanwhile (a sync, an import, another window, the command line): the
learner is asked first (``edit_saving``). A watcher notices such changes while the window is
open: the rows on screen are read again, and so is the editor unless it holds unsaved edits,
which then stay, with a word that saving will ask.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, tzinfo

from PySide6.QtCore import QItemSelectionModel, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QCloseEvent, QKeySequence, QShowEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QApplication,
    QHBoxLayout,
    QHeaderView,
    QLineEdit,
    QMainWindow,
    QPushButton,
    QScrollArea,
    QSplitter,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from recall.changes import editing
from recall.changes.cards import Changes
from recall.collection import browse
from recall.collection.browse import Finder, SearchResult
from recall.core import i18n
from recall.core.errors import RecallError
from recall.core.i18n import mark, tr, trn
from recall.core.preferences import Preferences
from recall.core.wording import number
from recall.scheduling import Scheduler
from recall.storage import Database
from recall.ui.browser.actions import BrowserActions
from recall.ui.browser.card_editor import CardEditor
from recall.ui.browser.model import COLUMNS, CardTableModel
from recall.ui.browser.sidebar import BrowserSidebar
from recall.ui.database_watcher import DatabaseWatcher
from recall.ui.edit_saving import KEPT, save_edit
from recall.ui.override_errors import reports_errors
from recall.ui.plain_text import plain_label, plain_tooltip
from recall.ui.prompts import Prompts, as_sentence
from recall.ui.tasks import TaskRunner

SEARCH_PAUSE_MS = 350
CHANGED_WHILE_EDITING = mark(
    "This card was changed elsewhere; saving asks before replacing that version."
)


@reports_errors
class BrowserWindow(QMainWindow):
    """Tools > Browse.

    Args:
        database: The collection.
        settings: The learner's preferences: the day rollover the search counts by (its
            forgetting curve is the default preset's).
        clock: The current time, aware UTC.
        changes: The undo stack shared with the rest of the window.
        zone: The learner's time zone; None is the system's.
        prompts: Asks and tells the learner; tests answer for them.
    """

    cards_changed = Signal()
    study_requested = Signal(object)  # the selected cards' ids, for Study These

    def __init__(
        self,
        database: Database,
        settings: Preferences,
        clock: Callable[[], datetime],
        changes: Changes,
        zone: tzinfo | None = None,
        prompts: Prompts | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle(tr("Browse"))
        self.setObjectName("browserWindow")
        self._database = database
        self._clock = clock
        self._changes = changes
        self._prompts = prompts or Prompts(self)
        self.finder = Finder(database, Scheduler(), settings, zone)
        self.tasks = TaskRunner(self)
        self._sort = ("due", False)
        self._pending: str | None = None
        self._editing: int | None = None
        self._editing_content: str | None = None  # the card's content the editor was loaded from
        self._show_after: int | None = None
        self.search_box = QLineEdit()
        self.search_box.setObjectName("browserSearch")
        self.search_box.setAccessibleName(tr("Search"))
        self.search_box.setPlaceholderText(
            tr(
                "Search: words, deck:Spanish, tag:verb, is:due, flag:1, prop:ivl>=10 "
                "(Enter searches at once)"
            )
        )
        self.search_box.setClearButtonEnabled(True)
        self.status = plain_label()
        self.status.setObjectName("browserStatus")
        self.status.setAccessibleName(tr("Search result"))
        self.status.setTextFormat(Qt.TextFormat.PlainText)
        self.model = CardTableModel(self.finder, clock, self)
        self.table = QTableView()
        self.table.setObjectName("browserTable")
        self.table.setAccessibleName(tr("Cards"))
        self.table.setModel(self.model)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        # Sorting is done in SQL by searching again, so the view only shows the indicator.
        self.table.setSortingEnabled(False)
        self.table.setWordWrap(False)
        self.table.verticalHeader().hide()
        self.table.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 8)
        self.table.setTabKeyNavigation(False)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        header.setStretchLastSection(False)
        header.resizeSection(0, 360)
        header.resizeSection(1, 170)
        for column in range(2, len(COLUMNS)):
            title = i18n.tr(COLUMNS[column][1])
            header.resizeSection(
                column, max(90, header.fontMetrics().horizontalAdvance(title) + 34)
            )
        header.setSortIndicatorShown(True)
        header.setSectionsClickable(True)
        header.setSortIndicator(2, Qt.SortOrder.AscendingOrder)
        self.sidebar = BrowserSidebar()
        self.editor = CardEditor()
        self.save_button = QPushButton(tr("Save"))
        self.save_button.setAccessibleName(tr("Save the card"))
        self.save_button.setToolTip(plain_tooltip(tr("Save the changes to this card (Ctrl+S)")))
        self.save_button.setEnabled(False)
        self.editor_title = plain_label(tr("Select a card to edit it."))
        self.editor_title.setObjectName("editorTitle")
        self.editor_title.setTextFormat(Qt.TextFormat.PlainText)
        self.editor_title.setWordWrap(True)  # a long question widened the pane, not the line
        self.card_actions = BrowserActions(self, database, changes, clock, self._prompts)
        self.database_watcher = DatabaseWatcher(database, self)
        self._build()
        self._create_menus()
        self._connect_signals()
        screen = self.screen().availableGeometry() if self.screen() is not None else None
        # Roomy by default, within the screen (a 1280-pixel screen cut off its right side).
        self.resize(
            1320 if screen is None else min(1320, int(screen.width() * 0.95)),
            820 if screen is None else min(820, int(screen.height() * 0.9)),
        )
        self.refresh_sidebar()

    # Searching

    def search(self, query: str | None = None) -> None:
        """Search now for ``query`` (or the search box's text); the table fills when done."""
        if query is not None and query != self.search_box.text():
            self.search_box.blockSignals(True)
            self.search_box.setText(query)
            self.search_box.blockSignals(False)
        self._timer.stop()
        text = self.search_box.text()
        if self.tasks.busy:
            self._pending = text
            return
        finder, now = self.finder, self._clock()
        column, descending = self._sort

        def work() -> SearchResult:
            return finder.find(text, now, column, descending)

        self.status.setText(tr("Searching…"))
        self.tasks.run(work, self._on_found, self._on_search_failed)

    def show_card(self, card_id: int, query: str) -> None:
        """Search for ``query``, then select the card ``card_id`` among the results."""
        self._show_after = card_id
        self.search(query)

    def wait(self) -> None:
        """Block until the running search is done and shown (for tests and scripts)."""
        while self.tasks.busy or self._pending is not None:
            self.tasks.wait()
            QApplication.processEvents()

    def selected_ids(self) -> list[int]:
        """The ids of the selected cards, in table order."""
        rows = sorted(index.row() for index in self.table.selectionModel().selectedRows())
        return [self.model.card_id(row) for row in rows]

    def select_card(self, card_id: int) -> bool:
        """Select a card if it is in the table, loading pages until it is."""
        if card_id not in self.model.card_ids:
            return False
        while self.model.row_of(card_id) is None and self.model.canFetchMore():
            self.model.fetchMore()
        row = self.model.row_of(card_id)
        assert row is not None
        self.select_rows([row])
        return True

    def select_rows(self, rows: list[int]) -> None:
        """Select exactly these rows (whatever keys are held), the first one current."""
        selection = self.table.selectionModel()
        flags = QItemSelectionModel.SelectionFlag
        selection.clearSelection()
        for row in rows:
            selection.select(self.model.index(row, 0), flags.Select | flags.Rows)
        if rows:
            selection.setCurrentIndex(self.model.index(rows[0], 0), flags.NoUpdate)
            self.table.scrollTo(self.model.index(rows[0], 0))

    def refresh_sidebar(self) -> None:
        """Read the decks and tags again for the sidebar."""
        with self._database.reading() as transaction:
            decks = transaction.browsing.decks()
        self.sidebar.set_contents(decks, self.finder.tags())

    def after_change(self, card_ids: list[int] | None = None) -> None:
        """Show a change's effect: rows read again, the editor reloaded, others told."""
        self.model.reload(card_ids)
        self._load_editor()
        self.refresh_sidebar()
        self.cards_changed.emit()

    # Editing

    def save_card(self) -> bool:
        """Save the editor's card if it changed; False when it was not saved: it has problems,
        or the learner kept a version saved elsewhere meanwhile (the status says which)."""
        if self._editing is None or not self.save_button.isEnabled():
            return True
        problems = self.editor.check()
        if problems:
            self.status.setText(tr("Not saved: {problem}").format(problem=problems[0]))
            return False
        assert self._editing_content is not None  # loaded with the card
        try:
            change = save_edit(
                self._database,
                self._editing,
                self.editor.data(),
                self._editing_content,
                self._clock(),
                self._prompts,
            )
        except editing.CardChangedElsewhereError as kept:
            # The version kept, as stored now: in its row, and in the editor (which may
            # already be on the card selected next).
            self.model.reload([kept.card_id])
            self._load_editor()
            self.status.setText(i18n.tr(KEPT))
            return False
        except RecallError as error:
            self.status.setText(tr("Not saved: {problem}").format(problem=error))
            return False
        if change.changed:
            self._changes.push(change)
            self.status.setText(tr("Saved."))
            self.card_actions.update_undo()
        self.save_button.setEnabled(False)
        self.model.reload([self._editing, *change.card_ids])  # a note's other cards too
        self._editing_content = self._stored_content()
        self.refresh_sidebar()
        self.cards_changed.emit()
        return True

    def _load_editor(self) -> None:
        ids = self.selected_ids()
        self._editing = ids[0] if len(ids) == 1 else None
        self._editing_content = None
        self.editor.setEnabled(self._editing is not None)
        if self._editing is None:
            many = (
                trn("{count} card selected.", "{count} cards selected.", len(ids)).format(
                    count=len(ids)
                )
                if ids
                else tr("Select a card to edit it.")
            )
            self.editor_title.setText(many)
            self.editor.set_data({"type": self.editor.kind})
            self.save_button.setEnabled(False)
            return
        self.model.reload([self._editing])  # as stored now, not as the search found it
        row = self.model.row_value(self.model.row_of(self._editing) or 0)
        self._editing_content = row.content
        self.editor.set_data(editing.card_data(row.content))
        self.editor_title.setText(f"{row.deck_name}: {browse.question(row)}")
        self.save_button.setEnabled(False)

    def _stored_content(self) -> str | None:
        """The edited card's content in its row, as last read from the database."""
        row = None if self._editing is None else self.model.row_of(self._editing)
        return None if row is None else self.model.row_value(row).content

    # Building

    def _build(self) -> None:
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(SEARCH_PAUSE_MS)
        add = QPushButton(tr("Add Cards…"))
        add.setAccessibleName(tr("Add cards"))
        add.clicked.connect(self.card_actions.add_cards)
        top = QHBoxLayout()
        top.addWidget(self.search_box, 1)
        top.addWidget(add)
        middle = QWidget()
        middle_layout = QVBoxLayout(middle)
        middle_layout.setContentsMargins(0, 0, 0, 0)
        middle_layout.addLayout(top)
        middle_layout.addWidget(self.table, 1)
        middle_layout.addWidget(self.status)
        editor_scroll = QScrollArea()
        editor_scroll.setWidgetResizable(True)
        editor_scroll.setWidget(self.editor)
        pane = QWidget()
        pane_layout = QVBoxLayout(pane)
        pane_layout.setContentsMargins(0, 0, 0, 0)
        pane_layout.addWidget(self.editor_title)
        pane_layout.addWidget(editor_scroll, 1)
        pane_layout.addWidget(self.save_button, 0, Qt.AlignmentFlag.AlignRight)
        right = QSplitter(Qt.Orientation.Vertical)
        right.addWidget(middle)
        right.addWidget(pane)
        right.setStretchFactor(0, 3)
        right.setStretchFactor(1, 2)
        split = QSplitter(Qt.Orientation.Horizontal)
        split.addWidget(self.sidebar)
        split.addWidget(right)
        split.setStretchFactor(1, 1)
        split.setSizes([230, 1090])
        self.setCentralWidget(split)
        self.editor.setEnabled(False)

    def _create_menus(self) -> None:
        self.find_action = QAction(tr("&Find"), self)
        self.find_action.setShortcut(QKeySequence("Ctrl+F"))
        self.save_action = QAction(tr("&Save Card"), self)
        self.save_action.setShortcut(QKeySequence("Ctrl+S"))
        self.close_action = QAction(tr("&Close"), self)
        self.close_action.setShortcut(QKeySequence("Escape"))
        edit = self.menuBar().addMenu(tr("&Edit"))
        edit.addAction(self.card_actions.undo_action)
        edit.addSeparator()
        edit.addAction(self.find_action)
        edit.addAction(self.save_action)
        edit.addAction(self.close_action)
        self.card_actions.fill_menu(self.menuBar().addMenu(tr("&Cards")))
        self.card_actions.fill_context_menu(self.table)
        for action in (self.find_action, self.save_action, self.close_action):
            self.addAction(action)

    def _connect_signals(self) -> None:
        self.search_box.textChanged.connect(lambda _text: self._timer.start())
        self.search_box.returnPressed.connect(self.search)
        self._timer.timeout.connect(self.search)
        self.sidebar.query_chosen.connect(self._on_sidebar)
        self.table.horizontalHeader().sortIndicatorChanged.connect(self._on_sort)
        self.table.selectionModel().selectionChanged.connect(self._on_selection)
        self.editor.changed.connect(lambda: self.save_button.setEnabled(self._editing is not None))
        self.save_button.clicked.connect(self.save_card)
        self.save_action.triggered.connect(self.save_card)
        self.find_action.triggered.connect(self._on_find)
        self.close_action.triggered.connect(self.close)
        self.card_actions.changed.connect(self.after_change)
        self.database_watcher.changed.connect(self._on_database_changed)

    # Slots

    def _on_found(self, result: SearchResult) -> None:
        self.card_actions.update_undo()  # changes made elsewhere (deck list, review) count
        if self._pending is not None:
            text, self._pending = self._pending, None
            self.search_box.setText(text)
            self.search()
            return
        keep = self._editing if self._show_after is None else self._show_after
        self._show_after = None
        self.model.set_result(result)
        count = len(result.card_ids)
        self.status.setText(trn("{count} card", "{count} cards", count).format(count=number(count)))
        if keep is not None and self.select_card(keep):
            return
        if self.model.rowCount():
            self.select_rows([0])
        else:
            self._load_editor()

    def _on_search_failed(self, error: Exception) -> None:
        self._pending = None
        if not isinstance(error, RecallError):
            raise error
        self._show_after = None
        self.model.set_result(SearchResult(self.search_box.text(), (), *self._sort))
        self.status.setText(as_sentence(str(error)))
        self._load_editor()  # no card is listed: none stays in the editor

    def _on_sort(self, column: int, order: Qt.SortOrder) -> None:
        self._sort = (COLUMNS[column][0], order == Qt.SortOrder.DescendingOrder)
        self.search()

    def _on_sidebar(self, term: str, how: str) -> None:
        current = self.search_box.text().strip()
        if how and current:
            joined = f"({current}) or {term}" if how == "or" else f"{current} {term}"
            self.search(joined)
        else:
            self.search(term)

    def _on_selection(self) -> None:
        if self._editing is not None and self.save_button.isEnabled():
            self.save_card()
        self._load_editor()

    def _on_find(self) -> None:
        self.search_box.setFocus()
        self.search_box.selectAll()

    def _on_database_changed(self) -> None:
        # Written elsewhere (or by this process, which moves the stamp too): what is on
        # screen is read again; the editor only when its card changed, so a field being
        # read keeps its cursor, and never over unsaved edits.
        self.model.reload()
        stored = self._stored_content()
        if stored is None or stored == self._editing_content:
            return
        if self.save_button.isEnabled():
            self.status.setText(i18n.tr(CHANGED_WHILE_EDITING))
        else:
            self._load_editor()

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        self.database_watcher.start()

    def closeEvent(self, event: QCloseEvent) -> None:
        self.save_card()
        self.tasks.wait()
        self.database_watcher.timer.stop()  # shown again, it searches anew
        super().closeEvent(event)


def column_index(key: str) -> int:
    """The table column showing ``key``."""
    return [name for name, _ in COLUMNS].index(key)
