"""One unit of work: a thin object handing out the query objects of one transaction."""

from __future__ import annotations

import sqlite3
from functools import cached_property
from typing import TYPE_CHECKING

from recall.storage.cards import CardQueries
from recall.storage.checks import CheckQueries
from recall.storage.decks import DeckQueries
from recall.storage.history import HistoryQueries
from recall.storage.options import OptionQueries
from recall.storage.queue import QueueQueries
from recall.storage.sql import Sql
from recall.storage.verification import VerificationQueries

if TYPE_CHECKING:
    from recall.storage.browsing import BrowsingQueries
    from recall.storage.follow_up_summary import FollowUpSummaryQueries
    from recall.storage.follow_ups import FollowUpQueries
    from recall.storage.note_types import NoteTypeQueries
    from recall.storage.statistics import StatisticsQueries
    from recall.storage.study_days import StudyDayQueries
    from recall.storage.sync_local import SyncLocalQueries
    from recall.storage.sync_media import SyncMediaQueries
    from recall.storage.sync_state import SyncStateQueries


class Transaction:
    """The database as one transaction sees it. Made by ``Database.transaction``/``reading``.

    Each concern has its own small query object; all of them share the transaction's
    connection, so a use case composes reads and writes that commit or roll back together.

    Attributes:
        decks: Decks and the deck list's counts.
        cards: Cards and their schedules.
        queue: Today's queue of a deck.
        history: The review history.
        checks: The consistency queries ``recall check`` runs.
        options: Preferences, deck presets and which deck uses which.
        browsing: The card browser's searches, rows and bulk changes.
        follow_ups: The cards follow-ups on misconceptions are worked out from.
        statistics: The statistics' grouped reads of the history and the schedules.
        sync: Sync's own state (this device, the outbox, stamps, files read).
        synced: Decks, cards and reviews named by their keys, as sync reads and writes them.
        verification: What check verified last, and the cards changed since.
        study_days: The answers counted by study day, kept for the statistics.
        note_types: Anki note types by key.
    """

    def __init__(self, connection: sqlite3.Connection) -> None:
        self.sql = Sql(connection)

    # Each query object is made on first use: a unit of work uses one or two of them, and
    # making all of them was a fifth of reading the next card. The browser's and the
    # statistics' modules are imported then too, not at start.

    @cached_property
    def decks(self) -> DeckQueries:
        """Decks and the deck list's counts."""
        return DeckQueries(self.sql)

    @cached_property
    def cards(self) -> CardQueries:
        """Cards and their schedules."""
        return CardQueries(self.sql)

    @cached_property
    def queue(self) -> QueueQueries:
        """Today's queue of a deck."""
        return QueueQueries(self.sql)

    @cached_property
    def history(self) -> HistoryQueries:
        """The review history."""
        return HistoryQueries(self.sql)

    @cached_property
    def checks(self) -> CheckQueries:
        """The consistency queries ``recall check`` runs."""
        return CheckQueries(self.sql)

    @cached_property
    def options(self) -> OptionQueries:
        """Preferences, deck presets and which deck uses which."""
        return OptionQueries(self.sql)

    @cached_property
    def verification(self) -> VerificationQueries:
        """What check verified last, and the cards changed since."""
        return VerificationQueries(self.sql)

    @cached_property
    def browsing(self) -> BrowsingQueries:
        """The card browser's searches, rows and bulk changes."""
        from recall.storage.browsing import BrowsingQueries

        return BrowsingQueries(self.sql)

    @cached_property
    def follow_ups(self) -> FollowUpQueries:
        """The cards follow-ups on misconceptions are worked out from."""
        from recall.storage.follow_ups import FollowUpQueries

        return FollowUpQueries(self.sql)

    @cached_property
    def follow_up_summary(self) -> FollowUpSummaryQueries:
        """Each card's follow-ups as kept, and the cards whose summary is stale."""
        from recall.storage.follow_up_summary import FollowUpSummaryQueries

        return FollowUpSummaryQueries(self.sql)

    @cached_property
    def statistics(self) -> StatisticsQueries:
        """The statistics' grouped reads of the history and the schedules."""
        from recall.storage.statistics import StatisticsQueries

        return StatisticsQueries(self.sql)

    @cached_property
    def study_days(self) -> StudyDayQueries:
        """The answers counted by study day, kept for the statistics."""
        from recall.storage.study_days import StudyDayQueries

        return StudyDayQueries(self.sql)

    @cached_property
    def sync_state(self) -> SyncStateQueries:
        """Sync's own state: this device, the outbox, stamps, files read."""
        from recall.storage.sync_state import SyncStateQueries

        return SyncStateQueries(self.sql)

    @cached_property
    def sync_local(self) -> SyncLocalQueries:
        """Decks, cards and reviews named by their keys, as sync reads and writes them."""
        from recall.storage.sync_local import SyncLocalQueries

        return SyncLocalQueries(self.sql)

    @cached_property
    def note_types(self) -> NoteTypeQueries:
        """Anki note types by key, which imported cards show their note through."""
        from recall.storage.note_types import NoteTypeQueries

        return NoteTypeQueries(self.sql)

    @cached_property
    def sync_media(self) -> SyncMediaQueries:
        """Media files that merged cards name and that have not arrived yet."""
        from recall.storage.sync_media import SyncMediaQueries

        return SyncMediaQueries(self.sql)
