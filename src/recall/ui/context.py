"""What the main window's parts share, handed to each of them: no global app object."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, tzinfo

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QWidget

from recall.scheduling import Schedulers
from recall.storage import Database
from recall.ui.operations import Operations
from recall.ui.prompts import Prompts
from recall.ui.tasks import TaskRunner


@dataclass(frozen=True)
class WindowContext:
    """The collection, the clock and the window's services every action works with.

    Attributes:
        database: The open collection.
        schedulers: The FSRS schedulers by preset.
        clock: Now, as aware UTC (tests pass a fixed clock).
        zone: The learner's time zone; None for the computer's.
        prompts: Message boxes and questions (tests answer them).
        operations: Runs a change off the window's thread, one at a time, with progress.
        tasks: Runs a read off the window's thread.
    """

    database: Database
    schedulers: Schedulers
    clock: Callable[[], datetime]
    zone: tzinfo | None
    prompts: Prompts
    operations: Operations
    tasks: TaskRunner


class WindowPart(QObject):
    """A part of the main window (its transfers, options, safekeeping, sync, collection
    actions): the context's services as its own attributes, and the window it acts for."""

    def __init__(self, context: WindowContext, window: QWidget) -> None:
        super().__init__(window)
        self._context = context
        self._database = context.database
        self._schedulers = context.schedulers
        self._clock = context.clock
        self._zone = context.zone
        self._prompts = context.prompts
        self._operations = context.operations
        self._tasks = context.tasks
        self._window = window
