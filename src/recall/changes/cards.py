"""Changes to many cards at once, each undoable: suspend, bury, flag, move, tag, forget,
set due date, delete.

Every change returns a ``Change`` holding what undo puts back (``change``), and ``Changes``
keeps them on a stack; tags are checked and rewritten by ``tags``. A change of schedule
that is not an answer (forget, set due date) is appended to the history as an entry of its
own kind, so a card's schedule stays the replay of its history; undoing it removes the
entries and replays the card.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Iterable, Sequence
from datetime import datetime, timedelta, tzinfo

from recall.changes.change import Change, ChangeError, Restore, restore
from recall.changes.tags import check_tags, with_tags
from recall.core import days, i18n, wording
from recall.core.i18n import mark, tr, trn
from recall.core.memory import NEW_CARD, CardState, ReviewKind
from recall.core.preferences import Preferences
from recall.scheduling import Schedulers
from recall.storage import Database, DeckRow

FLAG_NAMES = ("no flag", "red", "orange", "green", "blue", "pink", "turquoise", "purple")
# The flags' names as a change's label says them ("Flag red: 3 cards").
FLAG_WORDS = (
    mark("no flag"),
    mark("red"),
    mark("orange"),
    mark("green"),
    mark("blue"),
    mark("pink"),
    mark("turquoise"),
    mark("purple"),
)


def parse_due(spec: str) -> tuple[int, int]:
    """A due date as the set-due-date box takes it: ``0`` today, ``3`` in three days,
    ``3-7`` a random day from three to seven days away.

    Raises:
        ChangeError: The text is not a day count or a range of them.
    """
    match = re.fullmatch(r"\s*(\d{1,5})\s*(?:-\s*(\d{1,5})\s*)?", spec)
    if match is None:
        raise ChangeError(
            tr("{spec} is not a due date: give days from today, like 0 (today), 3, or 3-7").format(
                spec=repr(spec)
            )
        )
    low = int(match.group(1))
    high = int(match.group(2)) if match.group(2) else low
    if high < low:
        raise ChangeError(
            tr("{spec}: the range must go from fewer to more days, like 3-7").format(
                spec=repr(spec)
            )
        )
    return low, high


class Changes:
    """Bulk changes to cards, and the stack that undoes them newest first.

    Args:
        database: The collection.
        schedulers: Set due dates and replay cards whose entries an undo removes, each
            under its deck's preset.
        settings: The preferences: the day rollover hour that "bury until tomorrow" and
            due dates count by.
        zone: The learner's time zone; None is the system's.
        rng: Picks the day of a due date range; tests pass a seeded one.
    """

    def __init__(
        self,
        database: Database,
        schedulers: Schedulers,
        settings: Preferences,
        zone: tzinfo | None = None,
        rng: random.Random | None = None,
    ) -> None:
        self._database = database
        self._schedulers = schedulers
        self._settings = settings
        self._zone = zone
        self._rng = rng or random.Random()
        self._done: list[Change] = []

    @property
    def undo_label(self) -> str | None:
        """What Ctrl+Z would undo, or None when there is nothing."""
        return self._done[-1].label if self._done else None

    @property
    def newest(self) -> Change | None:
        """The change Ctrl+Z would undo, or None."""
        return self._done[-1] if self._done else None

    def push(self, change: Change) -> Change:
        """Put a change made elsewhere (an edit, a deck change) on the undo stack."""
        self._done.append(change)
        return change

    def undo(self) -> Change:
        """Undo the newest change.

        Raises:
            LookupError: Nothing to undo.
        """
        if not self._done:
            raise LookupError("nothing to undo")
        change = self._done[-1]
        with self._database.transaction() as transaction:
            restore(transaction, change.restore, self._schedulers)
        self._done.pop()
        return change

    def suspend(self, card_ids: Sequence[int], suspended: bool = True) -> Change:
        """Suspend (or unsuspend) cards; ``changed`` counts those that were not already."""
        with self._database.transaction() as transaction:
            browsing = transaction.browsing
            before = browsing.values("card_memory", ("suspended",), card_ids)
            targets = [row[0] for row in before if bool(row[1]) != suspended]
            browsing.set_suspended(targets, suspended)
        kept = tuple(row for row in before if row[0] in set(targets))
        return self.push(
            Change(
                (
                    trn("Suspend {count} card", "Suspend {count} cards", len(targets))
                    if suspended
                    else trn("Unsuspend {count} card", "Unsuspend {count} cards", len(targets))
                ).format(count=wording.number(len(targets))),
                len(targets),
                Restore(values=(("card_memory", ("suspended",), kept),)),
                tuple(targets),
            )
        )

    def bury(self, card_ids: Sequence[int], now: datetime) -> Change:
        """Keep cards out of study until the next study day begins."""
        until = days.next_rollover(now, self._settings.day_rollover_hour, self._zone)
        with self._database.transaction() as transaction:
            browsing = transaction.browsing
            before = browsing.values("card_memory", ("buried_until",), card_ids)
            browsing.set_buried(card_ids, until)
        return self.push(
            Change(
                trn("Bury {count} card", "Bury {count} cards", len(before)).format(
                    count=wording.number(len(before))
                ),
                len(before),
                Restore(values=(("card_memory", ("buried_until",), tuple(before)),)),
                tuple(card_ids),
            )
        )

    def flag(self, card_ids: Sequence[int], flag: int) -> Change:
        """Give cards a flag, 1-7, or take it away with 0."""
        if not 0 <= flag < len(FLAG_NAMES):
            raise ChangeError(
                tr("there is no flag {flag}; flags are 1 to 7, and 0 for none").format(flag=flag)
            )
        with self._database.transaction() as transaction:
            browsing = transaction.browsing
            before = browsing.values("card", ("flag",), card_ids)
            targets = [row[0] for row in before if row[1] != flag]
            browsing.set_flag(targets, flag)
        kept = tuple(row for row in before if row[0] in set(targets))
        count = len(targets)
        if flag == 0:
            label = trn(
                "Remove the flag of {count} card", "Remove the flag of {count} cards", count
            )
        else:
            label = trn("Flag {flag}: {count} card", "Flag {flag}: {count} cards", count)
        return self.push(
            Change(
                label.format(flag=i18n.tr(FLAG_WORDS[flag]), count=wording.number(count)),
                len(targets),
                Restore(values=(("card", ("flag",), kept),)),
                tuple(targets),
            )
        )

    def tag(
        self,
        card_ids: Sequence[int],
        now: datetime,
        add: Iterable[str] = (),
        remove: Iterable[str] = (),
    ) -> Change:
        """Add and remove tags; ``changed`` counts cards whose tags changed.

        Anki's tags are the note's: a card from an Anki note changes with every card of its
        note, each rendered again (``note_editing``).
        """
        adding, removing = check_tags(add), check_tags(remove)
        with self._database.transaction() as transaction:
            from recall.changes import note_editing  # loads the renderer when first needed

            browsing = transaction.browsing
            targets = note_editing.note_cards(transaction, card_ids)
            before = browsing.values("card", ("content", "updated_at", "edited"), targets)
            changes = []
            for row in before:
                content = with_tags(row[1], adding, removing)
                if json.loads(content).get("tags", []) != json.loads(row[1]).get("tags", []):
                    changes.append((row[0], content))
            changes = note_editing.rendered_again(transaction, changes)
            browsing.set_content(changes, now)
        changed = {card_id for card_id, _ in changes}
        kept = tuple(row for row in before if row[0] in changed)
        return self.push(
            Change(
                trn(
                    "Change the tags of {count} card",
                    "Change the tags of {count} cards",
                    len(changed),
                ).format(count=wording.number(len(changed))),
                len(changed),
                Restore(values=(("card", ("content", "updated_at", "edited"), kept),)),
                tuple(changed),
            )
        )

    def move(self, card_ids: Sequence[int], deck: DeckRow) -> Change:
        """Move cards to another deck, with their schedules and history.

        A card whose key the deck already uses, or used for a card deleted since, gets a
        new one (``key-2``, ...).
        """
        with self._database.transaction() as transaction:
            browsing = transaction.browsing
            cards = browsing.values("card", ("deck_id", "key", "edited", "content"), card_ids)
            memory = browsing.values("card_memory", ("deck_id",), card_ids)
            # A key of a card deleted there (moved away, too) is never used again: other
            # computers hold its deletion, which is final.
            taken = browsing.keys(deck.id) | transaction.sync_state.deleted_card_keys(deck.key)
            moves = []
            for card_id, deck_id, key, _, _ in cards:
                if deck_id == deck.id:
                    continue
                new_key, number = key, 2
                while new_key in taken:
                    new_key, number = f"{key}-{number}", number + 1
                taken.add(new_key)
                moves.append((card_id, new_key))
            browsing.move(moves, deck.id)
        moved = {card_id for card_id, _ in moves}
        return self.push(
            Change(
                trn(
                    "Move {count} card to {deck}", "Move {count} cards to {deck}", len(moved)
                ).format(count=wording.number(len(moved)), deck=deck.name),
                len(moved),
                Restore(
                    values=(
                        (
                            "card",
                            ("deck_id", "key", "edited", "content"),
                            tuple(r for r in cards if r[0] in moved),
                        ),
                        ("card_memory", ("deck_id",), tuple(r for r in memory if r[0] in moved)),
                    )
                ),
                tuple(moved),
            )
        )

    def forget(self, card_ids: Sequence[int], now: datetime) -> Change:
        """Make studied cards new again, recording a forget entry in each one's history."""
        entries = []
        forgotten = []
        with self._database.transaction() as transaction:
            for card_id in card_ids:
                card = transaction.cards.get(card_id)
                if card.memory.state is CardState.NEW:
                    continue
                entries.append(
                    transaction.browsing.add_entry(
                        card_id, ReviewKind.FORGET, now, int(card.memory.state), None
                    )
                )
                forgotten.append(card_id)
                transaction.cards.set_memory(card_id, NEW_CARD)
        return self.push(
            Change(
                trn("Forget {count} card", "Forget {count} cards", len(entries)).format(
                    count=wording.number(len(entries))
                ),
                len(entries),
                Restore(entries=tuple(entries), replay=tuple(forgotten)),
                tuple(forgotten),
            )
        )

    def set_due(self, card_ids: Sequence[int], spec: str, now: datetime) -> Change:
        """Set cards' due dates: ``0`` today, ``3`` in three days, ``3-7`` a day in between.

        Each card becomes a review card due then, with an entry in its history.
        """
        low, high = parse_due(spec)
        dues = [(card_id, self.due_in(self._rng.randint(low, high), now)) for card_id in card_ids]
        return self.set_due_dates(dues, now, "Set the due date of")

    def set_due_dates(
        self, dues: Sequence[tuple[int, datetime]], now: datetime, label: str
    ) -> Change:
        """Give each card its own due date, recorded as set-due entries: one undoable change.

        Args:
            dues: (card id, due date) pairs.
            now: When the change is made (the entries' time).
            label: The change's name before its card count ("Postpone" gives "Postpone 3
                cards").
        """
        entries = []
        card_ids = tuple(card_id for card_id, _ in dues)
        with self._database.transaction() as transaction:
            presets = transaction.options.deck_presets()
            for card_id, due in dues:
                card = transaction.cards.get(card_id)
                entries.append(
                    transaction.browsing.add_entry(
                        card_id, ReviewKind.SET_DUE, now, int(card.memory.state), due
                    )
                )
                scheduler = self._schedulers.for_deck(presets, card.deck_id)
                after = scheduler.set_due(card.seed, card.memory, due, now)
                transaction.cards.set_memory(card_id, after)
        return self.push(
            Change(
                _due_label(label, len(entries)),
                len(entries),
                Restore(entries=tuple(entries), replay=card_ids),
                card_ids,
            )
        )

    def delete(self, card_ids: Sequence[int], now: datetime) -> Change:
        """Delete cards with their history, after a backup; undo puts them back.

        Raises:
            BackupError: The backup could not be made; nothing was deleted.
        """
        from recall.safekeeping import backups

        backups.make_backup(self._database, now, note="before-delete")
        with self._database.transaction() as transaction:
            dumped = transaction.browsing.dump(card_ids)
            transaction.browsing.delete_cards(card_ids)
        count = len(dumped["card"])
        return self.push(
            Change(
                tr("Delete {cards} and {reviews}").format(
                    cards=trn("{count} card", "{count} cards", count).format(
                        count=wording.number(count)
                    ),
                    reviews=trn("{count} review", "{count} reviews", len(dumped["review"])).format(
                        count=wording.number(len(dumped["review"]))
                    ),
                ),
                count,
                Restore(cards=dumped),
                tuple(card_ids),
            )
        )

    def due_in(self, offset: int, now: datetime) -> datetime:
        """The due date ``offset`` days from ``now``: now itself for 0, else the start of
        that study day."""
        if offset == 0:
            return now
        later = now + timedelta(days=offset)
        return days.study_day(later, self._settings.day_rollover_hour, self._zone)[0]


def _due_label(label: str, count: int) -> str:
    """The label of a change of due dates: ``label`` names it before its card count."""
    shown = wording.number(count)
    if label == "Set the due date of":
        return trn(
            "Set the due date of {count} card", "Set the due date of {count} cards", count
        ).format(count=shown)
    if label == "Postpone":
        return trn("Postpone {count} card", "Postpone {count} cards", count).format(count=shown)
    if label == "Advance":
        return trn("Advance {count} card", "Advance {count} cards", count).format(count=shown)
    if label == "Spread the time away of":
        return trn(
            "Spread the time away of {count} card", "Spread the time away of {count} cards", count
        ).format(count=shown)
    return f"{label} {wording.count(count, 'card')}"
