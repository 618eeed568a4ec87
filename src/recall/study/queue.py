"""Today's queue of a study session, kept in memory between answers.

A study session reads its queue once (the learning cards, the first review cards due today
up to the day's review limit, the first new cards up to the new-card limit, and how many
cards of each kind were answered today) and then answers "which card next" and "how many
are left" from memory. Its own answers change what it keeps, exactly as reading it again
would; anything else makes it read again:

- any change committed by another connection, of this process (an import, the browser's
  bulk actions, a deck option change, the task runner) or of another (``recall suspend``):
  the stamp of the session's watched connection (``storage.watched``) changes;
- an undo, or an answer that made a card a leech: the session drops what it keeps;
- the study day ending, a buried card coming back, or the preset's extra cards for today
  running out: what it keeps is only valid before the first of these times.

Follow-ups on misconceptions (``follow_ups``) due now come among the review cards, in
order of their due times, within the day's review limit: a follow-up answer counts as a
review. After one is answered, or a card with one is answered, the card's follow-ups are
worked out again from its history and put in place of those kept (``follow_ups_changed``),
as reading the queue again would find them; it is read again when a follow-up due later
today comes due.

Cards of one note (siblings) are not shown back to back: once one is answered, the
preset's sibling burying keeps its new and review siblings out of today's queue. Nothing
of a schedule changes; the queue reads them away from today's answers, so undoing the
answer brings them back.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from recall.core.memory import CardState, MemoryState
from recall.core.presets import Preset
from recall.scheduling.follow_ups import Standing
from recall.storage.queue import Queued, QueueQueries
from recall.storage.times import from_micros, to_micros
from recall.storage.watched import Stamp
from recall.study.askable import AskableFollowUps
from recall.study.follow_ups import CardFollowUp, askable_before

_LEARNING = (CardState.LEARNING, CardState.RELEARNING)


@dataclass
class Today:
    """What a session keeps of today's queue, and until when it holds.

    Attributes:
        stamp: The database as it was read (then as the session's own answers left it).
        loaded_at: When it was read; a clock gone back before it reads again.
        end_of_day: The end of the study day it was read in.
        valid_until: The end of the day, or earlier: when a buried card comes back or the
            preset's extra cards for today run out.
        new_left: New cards the limit still allows today.
        reviews_left: Review cards the limit still allows today.
        learning: Every learning and relearning card that may be studied, due or not, in
            the queue's order.
        reviews: The first ``reviews_left`` review cards due today, in the queue's order.
        reviews_complete: Whether ``reviews`` holds every review card due today.
        new: The ids of the first ``new_left`` new cards, in the order they are shown.
        notes: The note of each card of ``reviews`` and ``new`` that has one.
        bury_new: An answer buries its new siblings until the next study day.
        bury_reviews: An answer buries its review siblings until the next study day.
        follow_up_cards: The cards with an active follow-up, asked today or not:
            answering one works its follow-ups out again.
        askable: The follow-ups that may be asked today, soonest due first (by card
            after that). Those due at ``follow_ups_at`` may be shown; the others come due
            later today, when the queue is read again. All count as review cards left
            today, as learning cards due later today count.
        follow_ups_at: When the follow-ups were last found due.
    """

    stamp: Stamp
    loaded_at: datetime
    end_of_day: datetime
    valid_until: datetime
    new_left: int
    reviews_left: int
    learning: list[Queued]
    reviews: list[Queued]
    reviews_complete: bool
    new: list[int] = field(default_factory=list)
    notes: dict[int, str] = field(default_factory=dict)
    bury_new: bool = False
    bury_reviews: bool = False
    follow_up_cards: set[int] = field(default_factory=set)
    askable: AskableFollowUps = field(default_factory=lambda: AskableFollowUps.of(()))
    follow_ups_at: datetime | None = None

    def holds(self, stamp: Stamp, now: datetime) -> bool:
        """Whether this is still today's queue for the database at ``stamp`` at ``now``."""
        return stamp == self.stamp and self.loaded_at <= now < self.valid_until

    def next_card(self, now: datetime, learn_ahead: timedelta) -> int | None:
        """The id of the card to show now, in the session's order (see ``StudySession``)."""
        if self.learning and self.learning[0].due < now:
            return self.learning[0].card_id
        if self.reviews_left > 0 and self.reviews:
            return self.reviews[0].card_id
        if self.new_left > 0 and self.new:
            return self.new[0]
        if self.learning and self.learning[0].due < now + learn_ahead:
            return self.learning[0].card_id
        return None

    def next_follow_up(self, now: datetime) -> CardFollowUp | None:
        """The follow-up to show now instead of ``next_card``'s card, if any: after the due
        learning cards, among the review cards by due time, within the review limit."""
        first = self.askable.first()
        if first is None or self.reviews_left <= 0:
            return None
        if self.follow_ups_at is None or _order(first)[0] > self.follow_ups_at:
            return None  # due later today: the queue is read again then
        if self.learning and self.learning[0].due < now:
            return None
        if self.reviews and self.reviews[0].due < _order(first)[0]:
            return None
        return first

    def asks(self, card_id: int, option: str) -> bool:
        """Whether a follow-up of the card on ``option`` is one that may be asked today."""
        return any(item.option == option for item in self.askable.of_card(card_id))

    def add_follow_ups(self, items: AskableFollowUps, cards: set[int], now: datetime) -> None:
        """Keep the askable follow-ups due before the end of the day: those due now to
        show, and the time the next of the others comes due, when the queue is read again.

        Args:
            items: The follow-ups that may be asked today, soonest due first.
            cards: The cards with an active follow-up, askable or not.
            now: The time the queue is read at.
        """
        self.follow_up_cards = set(cards)
        self.askable = items
        self._due_from(now)

    def follow_ups_changed(
        self, card_id: int, items: Sequence[CardFollowUp], now: datetime
    ) -> None:
        """Put a card's follow-ups, as its history gives them after an answer, in place of
        those kept, as reading the queue again at ``now`` would find them.

        The other cards' follow-ups stay as they were read: only an answer changes a
        card's follow-ups (each answered card's are put in place), and one that comes due
        or whose card comes back from burying ends what is kept (``valid_until``). Each
        is found and placed by bisection, so an answer costs no walk of the others.

        Args:
            card_id: The answered card.
            items: Its follow-ups (active, waiting and faded), worked out from its history.
            now: When it was answered.
        """
        self.follow_up_cards.discard(card_id)
        if any(item.follow_up.standing is Standing.ACTIVE for item in items):
            self.follow_up_cards.add(card_id)
        # After those of the same time and card: one card's follow-ups keep the order its
        # history gives them, as the queue's sort does when it is read.
        self.askable.replace_card(card_id, askable_before(items, self.end_of_day, now))
        self._due_from(now)

    def follow_up_answered(
        self, card_id: int, items: Sequence[CardFollowUp], now: datetime
    ) -> None:
        """Apply a recorded follow-up answer: it counts towards the review limit, and the
        card's follow-ups are as its history now gives them (``follow_ups_changed``)."""
        self.reviews_left = max(0, self.reviews_left - 1)
        self._set_reviews(self.reviews)
        self.follow_ups_changed(card_id, items, now)

    def _due_from(self, now: datetime) -> None:
        """Those due at ``now`` may be shown; what is kept holds until the next comes due."""
        self.follow_ups_at = now
        later = self.askable.first_due_after(to_micros(now) or 0)
        if later is not None:
            self.valid_until = min(self.valid_until, from_micros(later) or self.valid_until)

    def counts(self) -> tuple[int, int, int]:
        """New, learning and review cards left today (learning cards due today count in full);
        follow-ups due today count as review cards, within the review limit."""
        learning = bisect.bisect_left(self.learning, self.end_of_day, key=lambda queued: queued.due)
        reviews = len(self.reviews)
        follow_ups = len(self.askable)
        if follow_ups:
            reviews = min(self.reviews_left, reviews + follow_ups)
        return len(self.new), learning, reviews

    def answered(
        self,
        card_id: int,
        position: int,
        before: CardState,
        after: MemoryState,
        note: str = "",
        now: datetime | None = None,
    ) -> None:
        """Apply one recorded answer, as reading the queue again would find it.

        Args:
            card_id: The answered card.
            position: Its position in its deck file (the queue's order after the due time).
            before: Its state before the answer.
            after: Its schedule after the answer.
            note: Its note; its siblings (cards of the same note) wait for the next study
                day, as the preset says.
            now: When it was answered.
        """
        if note and (self.bury_new or self.bury_reviews):
            self._bury_siblings(card_id, note, now)
        self.learning = [queued for queued in self.learning if queued.card_id != card_id]
        self.new = [new_id for new_id in self.new if new_id != card_id]
        kept = [queued for queued in self.reviews if queued.card_id != card_id]
        if before is CardState.NEW:
            self.new_left = max(0, self.new_left - 1)
            del self.new[self.new_left :]
        if before is CardState.REVIEW:
            self.reviews_left = max(0, self.reviews_left - 1)
        if after.due is None:
            self._set_reviews(kept)
            return
        queued = Queued(due=after.due, position=position, card_id=card_id)
        # Due again today, a review card belongs in the list if the list holds every due
        # review or it comes before the last one kept; otherwise it is beyond the limit.
        due_today = after.state is CardState.REVIEW and after.due < self.end_of_day
        if after.state in _LEARNING:
            bisect.insort(self.learning, queued)
        elif due_today and (self.reviews_complete or (kept and queued < kept[-1])):
            bisect.insort(kept, queued)
        self._set_reviews(kept)

    def _bury_siblings(self, card_id: int, note: str, now: datetime | None) -> None:
        siblings = {other for other, of in self.notes.items() if of == note and other != card_id}
        if not siblings:
            return
        new = [new_id for new_id in self.new if new_id not in siblings or not self.bury_new]
        reviews = [
            queued
            for queued in self.reviews
            if queued.card_id not in siblings or not self.bury_reviews
        ]
        # A list cut at the day's limit has more cards behind it: read it again for them.
        if now is not None and (
            (len(new) < len(self.new) and len(self.new) >= self.new_left)
            or (len(reviews) < len(self.reviews) and not self.reviews_complete)
        ):
            self.valid_until = min(self.valid_until, now)
        self.new, self.reviews = new, reviews

    def _set_reviews(self, reviews: list[Queued]) -> None:
        if len(reviews) > self.reviews_left:
            del reviews[self.reviews_left :]
            self.reviews_complete = False
        self.reviews = reviews


def read_today(
    queue: QueueQueries,
    stamp: Stamp,
    deck_ids: Sequence[int],
    preset: Preset,
    day: tuple[datetime, datetime],
    now: datetime,
) -> Today:
    """Read today's queue of the decks, under the studied deck's preset.

    Args:
        queue: The queue queries of the transaction ``stamp`` was taken in.
        stamp: The database's stamp in that transaction.
        deck_ids: The studied deck and its subdecks, in the order new cards come.
        preset: The studied deck's preset: the day's limits and the new-card order.
        day: The start and the end of the study day ``now`` falls in.
        now: The time it is read at.
    """
    start_of_day, end_of_day = day
    introduced = queue.introduced_since(deck_ids, start_of_day)
    reviewed = queue.answered_since(deck_ids, start_of_day, CardState.REVIEW)
    reviewed += queue.follow_ups_answered_since(deck_ids, start_of_day)
    new_left = max(0, preset.new_limit(now) - introduced)
    reviews_left = max(0, preset.review_limit(now) - reviewed)
    bury_new, bury_reviews = preset.bury_new_siblings, preset.bury_review_siblings
    studied = queue.notes_answered_since(start_of_day) if bury_new or bury_reviews else ()
    reviews = queue.reviews_due(
        deck_ids, end_of_day, now, reviews_left + 1, studied if bury_reviews else ()
    )
    new = queue.new_cards(
        deck_ids, now, new_left, preset.new_card_order == "random", studied if bury_new else ()
    )
    ends = [end_of_day, queue.next_unburied(now)]
    if preset.extra_until is not None and now < preset.extra_until:
        ends.append(preset.extra_until)
    kept = reviews[:reviews_left]
    notes = (
        queue.notes_of([queued.card_id for queued in kept] + new)
        if bury_new or bury_reviews
        else {}
    )
    return Today(
        stamp=stamp,
        loaded_at=now,
        end_of_day=end_of_day,
        valid_until=min(end for end in ends if end is not None),
        new_left=new_left,
        reviews_left=reviews_left,
        learning=queue.learning(deck_ids, now),
        reviews=kept,
        reviews_complete=len(reviews) <= reviews_left,
        new=new,
        notes=notes,
        bury_new=bury_new,
        bury_reviews=bury_reviews,
    )


def _order(item: CardFollowUp) -> tuple[datetime, int]:
    """Where a follow-up comes among those that may be asked: by due time, then card."""
    due = item.due
    assert due is not None, "a follow-up that may be asked is due"
    return due, item.card_id
