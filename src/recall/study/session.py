"""Use cases on reviewing: today's queue, answering, undo, and the session summary."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta, tzinfo

from recall.changes.change import restore
from recall.changes.tags import mark_leech
from recall.core import days, deck_tree, i18n
from recall.core.errors import DatabaseChangedError, UnknownDeckError
from recall.core.i18n import mark
from recall.core.memory import CardState, Rating, ReviewKind
from recall.core.preferences import Preferences
from recall.core.presets import DeckPresets, Preset, leech_policy
from recall.safekeeping.integrity import replay
from recall.scheduling import Scheduler, Schedulers, chosen, exam
from recall.scheduling.balance import balanced_review
from recall.scheduling.follow_ups import Standing
from recall.storage import CardRow, Database, DeckRow, Stamp, Transaction
from recall.study.anki_cards import ShownNotes
from recall.study.answering import Answering
from recall.study.balancing import KeptLoads
from recall.study.custom import CustomQueue
from recall.study.follow_up_summary import Kept
from recall.study.follow_ups import CardFollowUp, card_follow_ups
from recall.study.queue import Today, read_today
from recall.study.recording import new_review, picked_texts, recorded_answer
from recall.study.showing import ParsedContent, Showing
from recall.study.sitting import custom_summary, deck_summary
from recall.study.values import (
    Answer,
    QueueCounts,
    Recorded,
    StudyCard,
    Summary,
)

_CHANGED = mark(
    "the database changed while this deck was open (was a backup restored from the command "
    "line?); nothing was recorded. Open the deck again from the deck list"
)


@dataclass
class StudySession(Answering, Showing):
    """One sitting with one deck.

    The studied deck's preset sets the day's limits, order and shuffle, and each card is
    scheduled by its own deck's preset (as ``recall check`` replays it). Today's queue is
    kept in memory between answers (``study_queue``); whenever it is read again, so are
    the preferences, the presets and the deck's subdecks, so a change made elsewhere is
    seen at the next card.

    Args:
        database: Where cards, reviews, preferences and presets live.
        schedulers: FSRS per preset.
        deck_key: The deck file id of the deck to study.
        rng: Shuffles the choices; tests pass a seeded one.
        zone: The learner's time zone for the day rollover; None is the system's.
        learn_ahead_today: Show learning cards due later today now, not only those due
            within the learn-ahead window (what "Learn ahead" on the summary asks for).
        custom: A custom session's queue (``collection.custom_study``) to study instead of
            the deck's queue for today; ``deck_key`` is then ignored. Its cards may come from
            any deck, and in a cram session the answers leave every schedule as it was.
    """

    database: Database
    schedulers: Schedulers
    deck_key: str
    rng: random.Random = field(default_factory=random.Random)
    zone: tzinfo | None = None
    learn_ahead_today: bool = False
    custom: CustomQueue | None = None
    deck: DeckRow = field(init=False)
    deck_ids: tuple[int, ...] = field(init=False)
    preferences: Preferences = field(init=False)
    preset: Preset = field(init=False)
    scheduler: Scheduler = field(init=False)
    _presets: DeckPresets = field(init=False)
    _exams: dict[int, date] = field(default_factory=dict, init=False)
    _card_decks: dict[int, int] = field(default_factory=dict, init=False)
    _recorded: list[Recorded] = field(default_factory=list, init=False)
    _today: Today | None = field(default=None, init=False)
    _deck_keys: dict[int, str] = field(default_factory=dict, init=False)
    _loads: KeptLoads = field(default_factory=KeptLoads, init=False)
    _shown_row: tuple[Stamp, CardRow] | None = field(default=None, init=False)
    _parsed: ParsedContent = field(default_factory=ParsedContent, init=False)

    def __post_init__(self) -> None:
        self._watched = self.database.watched()
        self._notes = ShownNotes(self.database)
        with self.database.reading() as transaction:
            if self.custom is not None:
                # No deck is studied: the row only names the session on the review screen.
                self.deck = DeckRow(id=0, key="", name=self.custom.title, description="")
            else:
                deck = transaction.decks.by_key(self.deck_key)
                if deck is None:
                    raise UnknownDeckError(self.deck_key)
                self.deck = deck
            self._read_options(transaction)

    def _read_options(self, transaction: Transaction) -> None:
        """The preferences, the presets and the studied decks, as stored now."""
        self.preferences = transaction.options.preferences()
        self._presets = transaction.options.deck_presets()
        self.preset = self._presets.of_deck(self.deck.id)
        self.scheduler = self.schedulers.for_deck(self._presets, self.deck.id)
        # Studying a deck studies its subdecks too, deck by deck in name order for new cards.
        decks = transaction.browsing.decks()
        self._deck_keys = {row.id: row.key for row in decks}
        self._exams = exam.exam_dates_in_tree(decks, transaction.decks.exam_dates())
        if self.custom is not None:
            self.deck_ids = tuple(row.id for row in decks)
            return
        self.deck_ids = tuple(row.id for row in deck_tree.subtree(decks, self.deck))

    def next_card(self, now: datetime) -> StudyCard | None:
        """The card to show now, or None when the deck is done for today.

        Order: learning cards that are due, then review cards due today and follow-ups
        on misconceptions due now, by due time, within the preset's daily review limit,
        then new cards within its new-card limit (in deck order or random order, as the
        preset says), then learning cards due within the learn-ahead window.
        """
        if self.custom is not None:
            return self._next_custom(now)
        today, kept = self._today, self._shown_row
        if today is not None and kept is not None and kept[0] == today.stamp:
            follow_up, card_id = self._next_in(today, now)
            # The card whose row is kept comes next, and nothing changed since the row was
            # read (the stamp still holds): the kept row is the stored one, not read again.
            if card_id == kept[1].id and today.holds(self._watched.current(), now):
                return self._show(kept[1], now, follow_up=follow_up)
        with self._watched.reading() as transaction:
            today = self._today_in(transaction, now)
            follow_up, card_id = self._next_in(today, now)
            row = transaction.cards.get(card_id) if card_id is not None else None
            self._shown_row = None if row is None else (today.stamp, row)
        return None if row is None else self._show(row, now, follow_up=follow_up)

    def _next_in(self, today: Today, now: datetime) -> tuple[CardFollowUp | None, int | None]:
        """The follow-up to show now, if any, and the id of the card to show (None: done)."""
        follow_up = today.next_follow_up(now)
        if follow_up is not None:
            return follow_up, follow_up.card_id
        ahead = self.preferences.learn_ahead
        if self.learn_ahead_today:
            ahead = max(ahead, today.end_of_day - now)
        return None, today.next_card(now, ahead)

    def _next_custom(self, now: datetime) -> StudyCard | None:
        """The custom queue's next card that still exists (one deleted meanwhile is skipped)."""
        custom = self.custom
        assert custom is not None
        with self.database.reading() as transaction:
            while (card_id := custom.next_id(now)) is not None:
                try:
                    row = transaction.cards.get(card_id)
                except LookupError:
                    custom.pending.remove(card_id)
                    continue
                return self._show(row, now)
        return None

    def counts(self, now: datetime) -> QueueCounts:
        """Cards left today: new ones within the daily limit, and due ones.

        Due learning cards always count; due review cards count up to the review limit.
        None are left of a deck that was deleted or replaced meanwhile (the next card or
        answer says so).
        """
        if self.custom is not None:
            new, left = self.custom.counts()
            return QueueCounts(new=new, learning=0, review=left)
        today = self._today
        if today is None or not today.holds(self._watched.current(), now):
            try:
                with self._watched.reading() as transaction:
                    today = self._today_in(transaction, now)
            except DatabaseChangedError:
                return QueueCounts(new=0, learning=0, review=0)
        new, learning, review = today.counts()
        return QueueCounts(new=new, learning=learning, review=review)

    def record(self, answer: Answer, rating: Rating, now: datetime) -> Recorded:
        """Store the answer with the chosen rating and reschedule the card, in one transaction.

        Args:
            answer: The graded answer.
            rating: The rating to record (the proposed one, or the learner's choice).
            now: When the learner moved on; counts toward the session's time spent.

        Returns:
            The stored review's id and the card's new memory state.

        Raises:
            StorageError: The answer could not be saved (disk full, read-only folder,
                database busy); nothing was stored and it can be recorded again.
        """
        shown = answer.card
        card = shown.card
        picked = picked_texts(answer)
        if self.custom is not None and self.custom.cram:
            return self._record_cram(answer, rating, picked, now)
        if shown.follow_up is not None:
            return self._record_follow_up(answer, rating, picked, now)
        with self._watched.transaction() as transaction:
            # Nothing changed since the queue was read: the deck is still the one studied.
            stamp = self._watched.stamp(transaction)
            today = self._today if self._today is not None and self._today.stamp == stamp else None
            if today is None:
                self._check_deck(transaction)
            stored = self._check_card(transaction, shown, stamp)
            before = stored.memory
            scheduler = self._scheduler_of(stored.deck_id)
            exam_day, at = self._exams.get(stored.deck_id), answer.answered_at
            if exam.ahead(exam_day, scheduler.days, at):
                # Until an exam the fuzz draw's day stands, as the forecast simulates: load
                # balancing cost the exam benchmark 3-5 points on the day (docs/exam.md).
                after, balanced = scheduler.review(stored.seed, before, rating, at), None
            else:
                loads = self._loads.reader(transaction, stamp, stored)
                after, balanced = balanced_review(scheduler, stored.seed, before, rating, at, loads)
            # Cards of a deck with an exam ahead are seen shortly before it (the due date
            # chosen is kept with the answer, so replay and other computers keep it too);
            # else the day load balancing or Easy Days chose, if they chose one.
            capped = exam.capped_due(after, stored.seed, exam_day, scheduler.days, at)
            chosen_due = balanced if capped is None else capped
            after = chosen(after, chosen_due)
            review = new_review(answer, rating, picked, before.state, chosen_due=chosen_due)
            review_id = transaction.history.add(review, self._keys(today, stored))
            if before.last_review is not None and answer.answered_at <= before.last_review:
                # The clock went back (or stood still: reviews of one instant go by their
                # ids): the schedule is the replay of the history in time order, as
                # `recall check` computes it, not this answer applied last.
                after = replay(scheduler, stored, transaction.history.of_card(shown.card_id))
            transaction.cards.set_memory(shown.card_id, after)
            leech = None
            if rating is Rating.AGAIN and before.state is CardState.REVIEW:
                lapses = transaction.browsing.lapses(shown.card_id)
                policy = leech_policy(self._presets.of_deck(stored.deck_id))
                if policy.is_leech(lapses):
                    leech = mark_leech(transaction, shown.card_id, policy, answer.answered_at)
            # The answer may start, end or free a follow-up: the card's history decides.
            changed = (
                self._follow_ups_of(transaction, shown.card_id)
                if today is not None
                and leech is None
                and (shown.card_id in today.follow_up_cards or answer.earlier_picks)
                else None
            )
        if leech is None:
            self._loads.answered(before, after, stamp.after_own_commit())
        else:
            self._loads.forget()
        if self.custom is not None:
            self.custom.answered(shown.card_id, rating, after.state)
        elif today is not None and leech is None:
            today.answered(
                shown.card_id, stored.position, before.state, after, card.note, answer.answered_at
            )
            today.stamp = stamp.after_own_commit()
            if changed is not None:
                today.follow_ups_changed(shown.card_id, changed, answer.answered_at)
        else:
            self._today = None  # changed elsewhere, or a leech was marked: read it again
        recorded = recorded_answer(answer, review_id, review, after, now, leech=leech)
        self._recorded.append(recorded)
        return recorded

    def _record_cram(
        self, answer: Answer, rating: Rating, picked: tuple[str, ...] | None, now: datetime
    ) -> Recorded:
        """Store a cram answer: in the history, as a cram answer, with the schedule unchanged."""
        assert self.custom is not None
        shown = answer.card
        with self.database.transaction() as transaction:
            stored = self._check_card(transaction, shown)
            review = new_review(answer, rating, picked, stored.memory.state, ReviewKind.CRAM)
            review_id = transaction.history.add(review)
        self.custom.answered(shown.card_id, rating, stored.memory.state)
        recorded = recorded_answer(answer, review_id, review, stored.memory, now, order=())
        self._recorded.append(recorded)
        return recorded

    def _record_follow_up(
        self, answer: Answer, rating: Rating, picked: tuple[str, ...] | None, now: datetime
    ) -> Recorded:
        """Store a follow-up answer: in the history, as a follow-up answer of the card, which
        leaves the card's own schedule as it was and moves the follow-up's."""
        shown = answer.card
        assert shown.follow_up is not None
        with self._watched.transaction() as transaction:
            stamp = self._watched.stamp(transaction)
            today = self._today if self._today is not None and self._today.stamp == stamp else None
            if today is None:
                self._check_deck(transaction)
            stored = self._check_card(transaction, shown, stamp)
            option = shown.follow_up.option
            # The follow-up shown is still the card's active one: as the queue kept since
            # this session's last write says, or else as the card's history says.
            if today is None or not today.asks(shown.card_id, option):
                asked = self._active_follow_up(transaction, shown.card_id)
                if asked is None or asked.option != option:
                    raise DatabaseChangedError(i18n.tr(_CHANGED))
            review = new_review(answer, rating, picked, stored.memory.state, ReviewKind.FOLLOW_UP)
            review_id = transaction.history.add(review, self._keys(today, stored))
            # Which follow-up the card asks next is its history's to say.
            changed = self._follow_ups_of(transaction, shown.card_id)
            after = next(item.follow_up.memory for item in changed if item.option == option)
        if today is not None:
            today.follow_up_answered(shown.card_id, changed, answer.answered_at)
            today.stamp = stamp.after_own_commit()
        else:
            self._today = None  # changed elsewhere: read it again
        recorded = recorded_answer(answer, review_id, review, after, now)
        self._recorded.append(recorded)
        return recorded

    def _keys(self, today: Today | None, card: CardRow) -> tuple[str, str] | None:
        """The card's deck key and card key as this transaction reads them, when the
        queue kept holds (the decks read with it are as stored); else None."""
        deck_key = self._deck_keys.get(card.deck_id) if today is not None else None
        return None if deck_key is None else (deck_key, card.key)

    def _follow_ups_of(self, transaction: Transaction, card_id: int) -> list[CardFollowUp]:
        return card_follow_ups(transaction, self.schedulers, self._presets, card_ids=[card_id])

    def _active_follow_up(self, transaction: Transaction, card_id: int) -> CardFollowUp | None:
        for item in self._follow_ups_of(transaction, card_id):
            if item.follow_up.standing is Standing.ACTIVE:
                return item
        return None

    @property
    def can_undo(self) -> bool:
        """Whether this session has a recorded answer to take back."""
        return bool(self._recorded)

    def undo(self, now: datetime) -> StudyCard:
        """Take back the last recorded answer and show its card again, its choices in the
        order they were shown.

        The review is deleted and the card's memory state is rebuilt from its remaining
        history, so both are exactly as they were before the answer.

        Raises:
            LookupError: Nothing to undo in this session.
        """
        if not self._recorded:
            raise LookupError("nothing to undo")
        last = self._recorded.pop()
        self._today = None  # the card goes back where it was: read the queue again
        with self.database.transaction() as transaction:
            self._check_deck(transaction)
            if last.review_id not in {r.id for r in transaction.history.of_card(last.card_id)}:
                raise DatabaseChangedError(i18n.tr(_CHANGED))
            if last.leech is not None:
                restore(transaction, last.leech)
            transaction.history.delete(last.review_id)
            history = transaction.history.of_card(last.card_id)
            card = transaction.cards.get(last.card_id)
            scheduler = self._scheduler_of(card.deck_id)
            transaction.cards.set_memory(last.card_id, replay(scheduler, card, history))
            row = transaction.cards.get(last.card_id)
            asked = (
                self._active_follow_up(transaction, last.card_id)
                if last.follow_up is not None
                else None
            )
        if self.custom is not None:
            self.custom.undone(last.card_id, row.memory.state)
        again = (
            asked is not None
            and last.follow_up is not None
            and asked.option == last.follow_up.option
        )
        return self._show(row, now, last.order, asked if again else None)

    def show(self, card_id: int, now: datetime) -> StudyCard:
        """A card of this session as it is stored now, to show again (after an edit)."""
        with self.database.reading() as transaction:
            row = transaction.cards.get(card_id)
        return self._show(row, now)

    def summary(self, now: datetime) -> Summary:
        """Today's cards, answers, right answers and answer time in the deck, and the next due.

        The study day is the one ``now`` falls in, so a sitting left with Escape and one
        begun later add up (as the statistics count the day).
        """
        if self.custom is not None:
            return custom_summary(self.database, self.deck_ids, self._recorded)
        start, _ = self._study_day(now)
        return deck_summary(self.database, self.deck_ids, start, len(self._recorded))

    def _check_deck(self, transaction: Transaction) -> None:
        """Refuse to go on when the deck this session studies is no longer the stored one."""
        if self.custom is not None:
            return  # a custom session studies cards, not a deck: each card is checked
        deck = transaction.decks.by_key(self.deck_key)
        if deck is None or deck.id != self.deck.id:
            raise DatabaseChangedError(i18n.tr(_CHANGED))

    def _check_card(
        self, transaction: Transaction, shown: StudyCard, stamp: Stamp | None = None
    ) -> CardRow:
        """The stored card, refused unless it is the one on screen (a studied deck, same key).

        The row ``next_card`` read for the card shown is the stored one while the database
        is still at the stamp it was read under (``stamp``, taken in this transaction): it
        is not read again then.
        """
        kept = self._shown_row
        stored = kept[1] if kept is not None and kept[0] == stamp else None
        if stored is None or stored.id != shown.card_id:
            try:
                stored = transaction.cards.get(shown.card_id)
            except LookupError:
                raise DatabaseChangedError(i18n.tr(_CHANGED)) from None
        studied = (
            shown.card_id in self.custom.card_ids
            if self.custom is not None
            else stored.deck_id in self.deck_ids
        )
        if not studied or stored.key != shown.card.id:
            raise DatabaseChangedError(i18n.tr(_CHANGED))
        return stored

    def _study_day(self, now: datetime) -> tuple[datetime, datetime]:
        return days.study_day(now, self.preferences.day_rollover_hour, self.zone)

    def preview(self, shown: StudyCard, now: datetime) -> dict[Rating, timedelta]:
        """The intervals each rating would give the card shown, answered at ``now``."""
        deck_id = self._card_decks.get(shown.card_id, self.deck.id)
        return self._scheduler_of(deck_id).preview(shown.seed, shown.memory, now)

    def _scheduler_of(self, deck_id: int) -> Scheduler:
        """The scheduler of a card's own deck (a subdeck may have another preset)."""
        return self.schedulers.for_deck(self._presets, deck_id)

    def _today_in(self, transaction: Transaction, now: datetime) -> Today:
        """Today's queue as kept, or read again if anything but this session changed it.

        Reading it again reads the preferences, presets and subdecks again too, and
        refuses to go on if the studied deck was replaced.
        """
        stamp = self._watched.stamp(transaction)
        if self._today is not None and self._today.holds(stamp, now):
            return self._today
        self._check_deck(transaction)
        self._read_options(transaction)
        day = self._study_day(now)
        today = read_today(transaction.queue, stamp, self.deck_ids, self.preset, day, now)
        # The follow-ups due today alone are worked out, found along the kept summary.
        kept = Kept(transaction, self._presets, store=False)
        active = kept.active_cards(self.deck_ids)
        askable = kept.askable(day[1], self.schedulers.fuzz, now, self.deck_ids)
        today.add_follow_ups(askable, active, now)
        self._today = today
        return today
