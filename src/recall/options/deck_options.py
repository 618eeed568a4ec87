"""Use cases on preferences and deck presets, and rescheduling when a schedule depends on them.

A card's schedule is the replay of its history under its deck's preset. So a change to
what scheduling reads (steps, desired retention, maximum interval, FSRS parameters, or
which preset a deck uses) is applied as one step: a backup first, then, in one
transaction, the new options and every affected card's history replayed under them.
The change keeps what it replaced, so undoing it is the same step with the old values.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime, tzinfo
from pathlib import Path
from typing import Any

from recall.core import days, presets, wording
from recall.core.errors import CancelledError, RecallError, UnknownDeckError
from recall.core.i18n import tr, trn
from recall.core.memory import MemoryState, ReviewKind
from recall.core.preferences import Preferences
from recall.core.presets import DEFAULT_PRESET_ID, DeckPresets, LeechPolicy, Preset, with_changes
from recall.core.progress import Cancelled, Progress, never_cancelled, no_progress
from recall.safekeeping import backups, study_days
from recall.scheduling import Schedulers, memory_of
from recall.storage import Database, DeckRow, PresetNameError

# What only moves the due dates of cards in review: changed alone, schedules are worked out
# from the stored ones instead of replayed (Scheduler.due_again).
DUE_KEYS = ("desired_retention", "maximum_interval")
# What a scheduler is built from: changing any of these reschedules the preset's decks.
SCHEDULE_KEYS = (
    "learning_steps",
    "relearning_steps",
    "desired_retention",
    "maximum_interval",
    "parameters",
)


@dataclass(frozen=True)
class DeckOptions:
    """A deck's preset, and the presets and decks it could share one with.

    Attributes:
        preset_id: The id of the preset the deck uses.
        presets: Every preset, by id.
        decks: Every deck, by name.
        sharing: The names of the decks that use the same preset (the deck included).
    """

    deck: DeckRow
    preset_id: int
    presets: dict[int, Preset]
    decks: list[DeckRow]
    sharing: list[str]

    @property
    def preset(self) -> Preset:
        """The deck's preset."""
        return self.presets[self.preset_id]


@dataclass(frozen=True)
class OptionsChange:
    """What one change of presets did, with what it replaced.

    Attributes:
        presets_before: Each changed preset's values before the change.
        presets_after: Each changed preset's values after it.
        decks_before: Each re-assigned deck's preset id before the change.
        decks_after: Each re-assigned deck's preset id after it.
        rescheduled: Cards whose schedule was replayed under the new options.
        backup: The backup made first, when any card was rescheduled.
    """

    presets_before: dict[int, Preset] = field(default_factory=dict)
    presets_after: dict[int, Preset] = field(default_factory=dict)
    decks_before: dict[int, int] = field(default_factory=dict)
    decks_after: dict[int, int] = field(default_factory=dict)
    rescheduled: int = 0
    backup: Path | None = None

    def summary(self) -> str:
        """The change in words."""
        names = ", ".join(sorted({preset.name for preset in self.presets_after.values()}))
        parts = []
        if names:
            parts.append(tr("saved preset {presets}").format(presets=names))
        moved = [d for d, preset in self.decks_after.items() if self.decks_before[d] != preset]
        if moved:
            parts.append(
                trn(
                    "{count} deck given another preset",
                    "{count} decks given another preset",
                    len(moved),
                ).format(count=wording.number(len(moved)))
            )
        if self.rescheduled:
            parts.append(
                trn(
                    "{count} card rescheduled from their history",
                    "{count} cards rescheduled from their history",
                    self.rescheduled,
                ).format(count=wording.number(self.rescheduled))
            )
        return "; ".join(parts) or tr("nothing changed")


def preferences(database: Database) -> Preferences:
    """The learner's stored preferences."""
    with database.reading() as transaction:
        return transaction.options.preferences()


def save_preferences(database: Database, chosen: Preferences, now: datetime) -> int | None:
    """Store the preferences (every value already checked by its option).

    A new rollover hour or time zone moves the study days every review falls in, so
    every schedule is then replayed on the new ones, after a backup.

    Returns:
        How many schedules moved, or None when the study days stayed as they were.
    """
    with database.transaction() as transaction:
        transaction.options.set_preferences(chosen)
    return study_days.replay_if_outdated(database, now, Schedulers())


def moved_note(moved: int) -> str:
    """What a replay of every schedule on new study days did, in words."""
    return trn(
        "Every schedule was replayed on the new study days (a backup was made first): "
        "{count} schedule moved.",
        "Every schedule was replayed on the new study days (a backup was made first): "
        "{count} schedules moved.",
        moved,
    ).format(count=wording.number(moved))


def leech_policy(database: Database, deck_id: int) -> LeechPolicy:
    """When a card of this deck becomes a leech and what then happens, from its preset."""
    with database.reading() as transaction:
        return presets.leech_policy(transaction.options.deck_presets().of_deck(deck_id))


def deck_options(database: Database, deck_key: str) -> DeckOptions:
    """A deck's preset and what it could share.

    Raises:
        UnknownDeckError: No deck has that id.
    """
    with database.reading() as transaction:
        deck = transaction.decks.by_key(deck_key)
        if deck is None:
            raise UnknownDeckError(deck_key)
        book = transaction.options.deck_presets()
        decks = transaction.options.decks()
    preset_id = book.preset_id_of(deck.id)
    sharing = [row.name for row in decks if book.preset_id_of(row.id) == preset_id]
    return DeckOptions(deck, preset_id, book.presets, decks, sharing)


def subdecks(decks: list[DeckRow], parent: DeckRow) -> list[DeckRow]:
    """The decks below ``parent`` in the deck tree (names starting ``parent::``)."""
    prefix = parent.name + "::"
    return [deck for deck in decks if deck.name.startswith(prefix)]


def add_preset(database: Database, name: str, copy_of: Preset | None = None) -> int:
    """Add a preset named ``name``, with default options or a copy of another's.

    Raises:
        PresetNameError: The name is empty or taken.
    """
    preset = dataclasses.replace(copy_of or Preset(), name=name.strip())
    with database.transaction() as transaction:
        return transaction.options.save_preset(None, preset)


def rename_preset(database: Database, preset_id: int, name: str) -> None:
    """Give a preset another name.

    Raises:
        PresetNameError: The name is empty or taken.
    """
    with database.transaction() as transaction:
        current = transaction.options.deck_presets().presets[preset_id]
        transaction.options.save_preset(preset_id, dataclasses.replace(current, name=name.strip()))


def delete_preset(
    database: Database,
    schedulers: Schedulers,
    preset_id: int,
    now: datetime,
    progress: Progress = no_progress,
) -> OptionsChange:
    """Remove a preset; its decks go back to the default preset and are rescheduled.

    Raises:
        PresetNameError: The default preset cannot be deleted.
    """
    if preset_id == DEFAULT_PRESET_ID:
        raise PresetNameError(tr("the default preset cannot be deleted"))
    with database.reading() as transaction:
        book = transaction.options.deck_presets()
    moved = {deck: DEFAULT_PRESET_ID for deck, chosen in book.decks.items() if chosen == preset_id}
    change = apply(database, schedulers, {}, moved, now, progress)
    with database.transaction() as transaction:
        transaction.options.delete_preset(preset_id)
    # Undoing it stores the preset again (with its id) before giving its decks back.
    return dataclasses.replace(change, presets_before={preset_id: book.presets[preset_id]})


def change_preset(
    database: Database,
    schedulers: Schedulers,
    preset_id: int,
    changes: Mapping[str, Any],
    now: datetime,
    zone: tzinfo | None = None,
    progress: Progress = no_progress,
) -> OptionsChange:
    """Change a preset's options (checked by their declarations), rescheduling if needed.

    Extra cards for today last until the next study day starts.

    Raises:
        OptionError: An unknown option or a value it cannot take; nothing changed.
    """
    with database.reading() as transaction:
        book = transaction.options.deck_presets()
        rollover = transaction.options.preferences().day_rollover_hour
    day_end = days.study_day(now, rollover, zone)[1]
    changed = with_changes(book.presets[preset_id], dict(changes), day_end)
    return apply(database, schedulers, {preset_id: changed}, {}, now, progress)


def use_preset(
    database: Database,
    schedulers: Schedulers,
    deck_ids: list[int],
    preset_id: int,
    now: datetime,
    progress: Progress = no_progress,
) -> OptionsChange:
    """Give decks a preset (and reschedule their cards under it)."""
    return apply(database, schedulers, {}, dict.fromkeys(deck_ids, preset_id), now, progress)


def undo(
    database: Database,
    schedulers: Schedulers,
    change: OptionsChange,
    now: datetime,
    progress: Progress = no_progress,
) -> OptionsChange:
    """Put back what ``change`` replaced: the presets' old values and the decks' old presets.

    Every affected card is replayed again under the old options, so each schedule is
    exactly what it was before the change.
    """
    return apply(database, schedulers, change.presets_before, change.decks_before, now, progress)


def apply(
    database: Database,
    schedulers: Schedulers,
    presets: Mapping[int, Preset],
    decks: Mapping[int, int],
    now: datetime,
    progress: Progress = no_progress,
    cancelled: Cancelled = never_cancelled,
) -> OptionsChange:
    """Store new preset values and deck assignments, and reschedule every affected card.

    A deck is affected when what its scheduler is built from changes. When any is, a
    backup is made first; then one transaction stores the options and the replayed
    schedules, so a failure leaves everything as it was.

    Args:
        database: The database.
        schedulers: Builds the scheduler of each preset.
        presets: New values of presets, by id.
        decks: New preset ids, by deck id.
        now: The time, for the backup's name.
        progress: Called with (cards done, cards to do) while replaying.
        cancelled: Checked while replaying; once true, everything is rolled back.

    Returns:
        What was done, with the values it replaced.

    Raises:
        CancelledError: ``cancelled()`` turned true; nothing was changed (the backup
            made first stays).
    """
    with database.reading() as transaction:
        before = transaction.options.deck_presets()
        every_deck = [deck.id for deck in transaction.options.decks()]
    after = DeckPresets(
        presets={**before.presets, **presets}, decks={**before.decks, **decks}, days=before.days
    )
    affected = [
        deck
        for deck in every_deck
        if _schedule_of(before.of_deck(deck)) != _schedule_of(after.of_deck(deck))
    ]
    backup = None
    if affected:
        backup = backups.make_backup(database, now, "before-new-options")
    rescheduled = 0
    with database.transaction() as transaction:
        options = transaction.options
        for preset_id, preset in presets.items():
            options.save_preset(preset_id, preset)
        by_preset: dict[int, list[int]] = {}
        for deck_id, preset_id in decks.items():
            by_preset.setdefault(preset_id, []).append(deck_id)
        for preset_id, deck_ids in by_preset.items():
            options.set_deck_preset(deck_ids, preset_id)
        total = options.card_count(affected)
        done = 0
        for deck_id in affected:
            scheduler = schedulers.for_deck(after, deck_id)
            changed: list[tuple[int, MemoryState]] = []
            only_due = _only_due_dates(before.of_deck(deck_id), after.of_deck(deck_id))
            cards = transaction.history.schedules_and_histories(deck_id=deck_id)
            for card_id, seed, _deck, stored, history in cards:
                # A due date set by hand is kept by a replay: those cards replay. So do
                # cards last answered Easy: from learning, Easy's interval may have been held
                # longer than Good's, which their stability alone does not give. And cards
                # whose last answer's due date was chosen (load balancing, Easy Days): the
                # replay keeps that day, as the history holds it.
                if (
                    only_due
                    and all(entry[3] == ReviewKind.ANSWER for entry in history)
                    and not (history and history[-1][2] == 4)
                    and not (history and history[-1][4] is not None)
                ):
                    memory = memory_of(stored)
                    again = scheduler.due_again(seed, memory)
                    if again != memory:
                        changed.append((card_id, again))
                else:
                    replayed = scheduler.replay_raw(seed, history)
                    if replayed != stored:
                        changed.append((card_id, memory_of(replayed)))
                done += 1
                if done % 500 == 0:
                    if cancelled():
                        raise CancelledError(tr("the options change was stopped; nothing changed"))
                    progress(done, total)
            if cancelled():
                raise CancelledError(tr("the options change was stopped; nothing changed"))
            transaction.cards.set_memories(changed)
            rescheduled += len(changed)
        progress(total, total)
    return OptionsChange(
        presets_before={key: before.presets.get(key, Preset()) for key in presets},
        presets_after=dict(presets),
        decks_before={deck: before.preset_id_of(deck) for deck in decks},
        decks_after=dict(decks),
        rescheduled=rescheduled,
        backup=backup,
    )


def _only_due_dates(before: Preset, after: Preset) -> bool:
    """Whether the two presets schedule alike but for how far review cards are due."""
    return all(
        getattr(before, key) == getattr(after, key) for key in SCHEDULE_KEYS if key not in DUE_KEYS
    )


def _schedule_of(preset: Preset) -> tuple[Any, ...]:
    return tuple(getattr(preset, key) for key in SCHEDULE_KEYS)


class PresetError(RecallError):
    """A preset that cannot be found by the name or id given."""


def find_preset(book: Mapping[int, Preset], name_or_id: str) -> int:
    """The id of the preset with that name (or that id).

    Raises:
        PresetError: No preset has that name or id; the message lists them.
    """
    for preset_id, preset in book.items():
        if preset.name == name_or_id or str(preset_id) == name_or_id:
            return preset_id
    names = ", ".join(repr(preset.name) for preset in book.values())
    raise PresetError(
        tr("there is no preset {preset}; the presets are: {presets}").format(
            preset=repr(name_or_id), presets=names
        )
    )
