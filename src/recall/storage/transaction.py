"""One unit of work: a thin object handing out the query objects of one transaction."""

from __future__ import annotations

import sqlite3

from recall.storage.browsing import Browsing
from recall.storage.cards import CardQueries
from recall.storage.checks import CheckQueries
from recall.storage.decks import DeckQueries
from recall.storage.history import HistoryQueries
from recall.storage.options import OptionQueries
from recall.storage.queue import QueueQueries
from recall.storage.sql import Sql
from recall.storage.statistics import StatisticsQueries
from recall.storage.sync_local import SyncLocal
from recall.storage.sync_state import SyncState


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
        statistics: The statistics' grouped reads of the history and the schedules.
        sync: Sync's own state (this device, the outbox, stamps, files read).
        synced: Decks, cards and reviews named by their keys, as sync reads and writes them.
    """

    def __init__(self, connection: sqlite3.Connection) -> None:
        self.sql = Sql(connection)
        self.decks = DeckQueries(self.sql)
        self.cards = CardQueries(self.sql)
        self.queue = QueueQueries(self.sql)
        self.history = HistoryQueries(self.sql)
        self.checks = CheckQueries(self.sql)
        self.options = OptionQueries(self.sql)
        self.browsing = Browsing(self.sql)
        self.statistics = StatisticsQueries(self.sql)
        self.sync = SyncState(self.sql)
        self.synced = SyncLocal(self.sql)
