"""Use cases on reviewing: today's queue, answering, undo, and the session summary."""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Collection
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta, tzinfo

from recall.changes import cards as card_changes
from recall.content.deck_format import CARD_ADAPTER, BasicCard, ChoiceCard
from recall.core import days, deck_tree, grading, i18n, type_answer
from recall.core.errors import DatabaseChangedError, UnknownDeckError
from recall.core.i18n import mark
from recall.core.memory import CardState, Rating, ReviewKind
from recall.core.preferences import Preferences
from recall.core.presets import DeckPresets, Preset, leech_policy
from recall.safekeeping.integrity import replay
from recall.scheduling import Scheduler, Schedulers, chosen, exam
from recall.scheduling.follow_ups import Standing
from recall.storage import CardRow, Database, DeckRow, NewReview, Transaction
from recall.study.balancing import balanced_answer
from recall.study.custom import CustomQueue
from recall.study.follow_ups import CardFollowUp, askable_before, card_follow_ups
from recall.study.queue import Today, read_today
from recall.study.recall_prompt import asked_as_recall, recall_answer, typed_option
from recall.study.values import (
    Answer,
    EarlierPick,
    FollowUpShown,
    QueueCounts,
    Recorded,
    StudyCard,
    Summary,
    elapsed_ms,
)

_TIMING_WINDOW = 50
_CHANGED = mark(
    "the database changed while this deck was open (was a backup restored from the command "
    "line?); nothing was recorded. Open the deck again from the deck list"
)  # right answers the typical answer time is taken from


@dataclass
class StudySession:
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

    def __post_init__(self) -> None:
        self._watched = self.database.watched()
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
        with self._watched.reading() as transaction:
            today = self._today_in(transaction, now)
            follow_up = today.next_follow_up(now)
            if follow_up is not None:
                asked = transaction.cards.get(follow_up.card_id)
                return self._show_follow_up(asked, follow_up, now)
            ahead = self.preferences.learn_ahead
            if self.learn_ahead_today:
                ahead = max(ahead, today.end_of_day - now)
            card_id = today.next_card(now, ahead)
            row = transaction.cards.get(card_id) if card_id is not None else None
        return self._show(row, now) if row is not None else None

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

    def answer_choice(self, shown: StudyCard, picked: Collection[int], now: datetime) -> Answer:
        """Grade picked options (indexes into ``card.choices``) of a choice card.

        On a card asked as type-in whose choices the learner asked for, a right choice
        proposes at most Hard (``grading.with_choices_shown``).
        """
        card = shown.card
        if not isinstance(card, ChoiceCard):
            raise TypeError("answer_choice needs a choice card")
        if not picked or any(not 0 <= index < len(card.choices) for index in picked):
            raise ValueError(f"picked options {sorted(picked)} do not fit the card")
        correct = grading.is_correct(picked, card.correct_indexes)
        typical, earlier = self._typical_and_earlier(shown, picked)
        preferences = self.preferences
        proposed = grading.propose_rating(
            correct,
            elapsed_ms(shown.shown_at, now),
            typical,
            preferences.slow_answer_factor,
            preferences.fast_answer_factor,
        )
        if shown.choices_asked:
            proposed = grading.with_choices_shown(proposed)
        return Answer(
            card=shown,
            picked=frozenset(picked),
            correct=correct,
            proposed=proposed,
            intervals=self._preview(shown, now),
            answered_at=now,
            earlier_picks=earlier,
        )

    def answer_typed(self, shown: StudyCard, typed: str, now: datetime) -> Answer:
        """Grade what was typed on a type-in card, or on a choice card asked as type-in.

        Right is Good (Hard or Easy by time, as for choices), one slip from right is Hard,
        anything else Again (``grading.propose_typed_rating``). Nothing typed on a type-in
        card reveals it as a basic card. On a choice card asked as type-in the answer is
        the right option's text, case aside, and a typed option counts as picking it.
        """
        card = shown.card
        picked: frozenset[int] = frozenset()
        if isinstance(card, ChoiceCard) and shown.as_recall:
            comparison = type_answer.compare(recall_answer(card), typed, ignore_case=True)
            option = typed_option(card, typed)
            picked = frozenset() if option is None else frozenset({option})
        elif isinstance(card, BasicCard) and card.type_answer:
            if not typed.strip():
                return self.reveal(shown, now)
            comparison = type_answer.compare(card.type_answer, typed)
        else:
            raise TypeError("answer_typed needs a type-in card or a card asked as type-in")
        typical, earlier = self._typical_and_earlier(shown, picked)
        preferences = self.preferences
        proposed = grading.propose_typed_rating(
            comparison.correct,
            comparison.one_slip,
            elapsed_ms(shown.shown_at, now),
            typical,
            preferences.slow_answer_factor,
            preferences.fast_answer_factor,
        )
        return Answer(
            card=shown,
            picked=picked,
            correct=comparison.correct,
            proposed=proposed,
            intervals=self._preview(shown, now),
            answered_at=now,
            earlier_picks=earlier,
            typed=comparison,
        )

    def show_choices(self, shown: StudyCard) -> StudyCard:
        """The card asked as type-in, shown with its choices after all ("Show choices").

        Its time runs on from when it appeared; a right choice proposes at most Hard.

        Raises:
            ValueError: The card was not asked as type-in.
        """
        if not shown.as_recall:
            raise ValueError("only a card asked as type-in can fall back to its choices")
        return dataclasses.replace(shown, as_recall=False, choices_asked=True)

    def _typical_and_earlier(
        self, shown: StudyCard, picked: Collection[int]
    ) -> tuple[float | None, tuple[EarlierPick, ...]]:
        """The deck's typical right-answer time (None when not graded by time or too few
        answers), and the wrong options picked now that earlier reviews picked too."""
        card = shown.card
        wrong: set[str] = set()
        if isinstance(card, ChoiceCard):
            wrong = {card.choices[index].text for index in picked} - {
                card.choices[index].text for index in card.correct_indexes
            }
        preferences = self.preferences
        with self.database.reading() as transaction:
            durations = transaction.queue.recent_correct_durations(self.deck_ids, _TIMING_WINDOW)
            earlier = transaction.statistics.option_picks(shown.card_id) if wrong else []
        typical = None
        if preferences.answer_time_grading:
            typical = grading.typical_duration(durations, preferences.timing_sample_size)
        picks = tuple(
            EarlierPick(choice=text, times=times, last=last)
            for text, times, last in earlier
            if text in wrong
        )
        return typical, picks

    def reveal(self, shown: StudyCard, now: datetime) -> Answer:
        """Show a basic card's back; the learner rates it, Good proposed."""
        return Answer(
            card=shown,
            picked=frozenset(),
            correct=None,
            proposed=Rating.GOOD,
            intervals=self._preview(shown, now),
            answered_at=now,
        )

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
        # A choice card asked as type-in picked nothing when what was typed is no option.
        picked = (
            tuple(card.choices[index].text for index in sorted(answer.picked))
            if isinstance(card, ChoiceCard) and (answer.picked or answer.typed is None)
            else None
        )
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
            stored = self._check_card(transaction, shown)
            before = stored.memory
            scheduler = self._scheduler_of(stored.deck_id)
            after, balanced = balanced_answer(
                transaction, scheduler, stored, rating, answer.answered_at
            )
            # Cards of a deck with an exam ahead are seen shortly before it (the due date
            # chosen is kept with the answer, so replay and other computers keep it too);
            # else the day load balancing or Easy Days chose, if they chose one.
            capped = exam.capped_due(
                after,
                stored.seed,
                self._exams.get(stored.deck_id),
                scheduler.days,
                answer.answered_at,
            )
            chosen_due = balanced if capped is None else capped
            after = chosen(after, chosen_due)
            review = _new_review(answer, rating, picked, before.state, chosen_due=chosen_due)
            review_id = transaction.history.add(review)
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
                    leech = card_changes.mark_leech(
                        transaction, shown.card_id, policy, answer.answered_at
                    )
        if self.custom is not None:
            self.custom.answered(shown.card_id, rating, after.state)
        elif today is not None and leech is None:
            today.answered(
                shown.card_id, stored.position, before.state, after, card.note, answer.answered_at
            )
            today.stamp = stamp.after_own_commit()
            if shown.card_id in today.follow_up_cards or answer.earlier_picks:
                # The answer may start, end or free a follow-up: the history decides.
                today.valid_until = min(today.valid_until, answer.answered_at)
        else:
            self._today = None  # changed elsewhere, or a leech was marked: read it again
        recorded = Recorded(
            review_id=review_id,
            card_id=shown.card_id,
            correct=review.correct,
            time_spent=max(timedelta(0), now - shown.shown_at),
            memory=after,
            leech=leech,
            order=shown.order,
        )
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
            review = _new_review(answer, rating, picked, stored.memory.state, ReviewKind.CRAM)
            review_id = transaction.history.add(review)
        self.custom.answered(shown.card_id, rating, stored.memory.state)
        recorded = Recorded(
            review_id=review_id,
            card_id=shown.card_id,
            correct=review.correct,
            time_spent=max(timedelta(0), now - shown.shown_at),
            memory=stored.memory,
        )
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
            self._check_deck(transaction)
            stored = self._check_card(transaction, shown)
            asked = self._active_follow_up(transaction, shown.card_id)
            if asked is None or asked.option != shown.follow_up.option:
                raise DatabaseChangedError(i18n.tr(_CHANGED))
            review = _new_review(answer, rating, picked, stored.memory.state, ReviewKind.FOLLOW_UP)
            review_id = transaction.history.add(review)
            after = next(
                item.follow_up.memory
                for item in self._follow_ups_of(transaction, shown.card_id)
                if item.option == asked.option
            )
        self._today = None  # which follow-up the card asks next is the history's to say
        recorded = Recorded(
            review_id=review_id,
            card_id=shown.card_id,
            correct=review.correct,
            time_spent=max(timedelta(0), now - shown.shown_at),
            memory=after,
            order=shown.order,
            follow_up=shown.follow_up,
        )
        self._recorded.append(recorded)
        return recorded

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
                card_changes.restore(transaction, last.leech)
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
        if (
            asked is not None
            and last.follow_up is not None
            and asked.option == last.follow_up.option
        ):
            return self._show_follow_up(row, asked, now, last.order)
        return self._show(row, now, last.order)

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
            return self._custom_summary()
        start, _ = self._study_day(now)
        with self.database.reading() as transaction:
            work = transaction.queue.work_since(self.deck_ids, start)
            next_due = transaction.queue.next_due(self.deck_ids)
        return Summary(
            cards=work.cards,
            answered=work.answers,
            correct=work.correct,
            time_spent=timedelta(milliseconds=work.duration_ms),
            next_due=next_due,
            sitting_answered=len(self._recorded),
        )

    def _custom_summary(self) -> Summary:
        """A custom session's own work: its cards come from any deck, so it counts itself."""
        with self.database.reading() as transaction:
            next_due = transaction.queue.next_due(self.deck_ids)
        return Summary(
            cards=len({entry.card_id for entry in self._recorded}),
            answered=len(self._recorded),
            correct=sum(1 for entry in self._recorded if entry.correct),
            time_spent=sum((entry.time_spent for entry in self._recorded), timedelta(0)),
            next_due=next_due,
            sitting_answered=len(self._recorded),
        )

    def _check_deck(self, transaction: Transaction) -> None:
        """Refuse to go on when the deck this session studies is no longer the stored one."""
        if self.custom is not None:
            return  # a custom session studies cards, not a deck: each card is checked
        deck = transaction.decks.by_key(self.deck_key)
        if deck is None or deck.id != self.deck.id:
            raise DatabaseChangedError(i18n.tr(_CHANGED))

    def _check_card(self, transaction: Transaction, shown: StudyCard) -> CardRow:
        """The stored card, refused unless it is the one on screen (a studied deck, same key)."""
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

    def _preview(self, shown: StudyCard, now: datetime) -> dict[Rating, timedelta]:
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
        every = card_follow_ups(transaction, self.schedulers, self._presets, self.deck_ids)
        active = frozenset(
            item.card_id for item in every if item.follow_up.standing is Standing.ACTIVE
        )
        today.add_follow_ups(askable_before(every, day[1], now), active, now)
        self._today = today
        return today

    def _show_follow_up(
        self, row: CardRow, item: CardFollowUp, now: datetime, order: tuple[int, ...] = ()
    ) -> StudyCard:
        """The card shown as a follow-up: every choice, the wrong option among them, and the
        follow-up's own schedule (the intervals a rating would give are its)."""
        shown = self._show(row, now, order)
        return dataclasses.replace(
            shown,
            memory=item.follow_up.memory,
            as_recall=False,  # a follow-up shows the option picked before among its choices
            follow_up=FollowUpShown(option=item.option, picks=item.follow_up.picks, why=item.why),
        )

    def _show(self, row: CardRow, now: datetime, order: tuple[int, ...] = ()) -> StudyCard:
        """The card as shown now; ``order`` keeps the choices as an earlier showing had them
        (when the card still has as many), else they are shuffled anew."""
        card = CARD_ADAPTER.validate_json(row.content)
        if isinstance(card, ChoiceCard) and sorted(order) != list(range(len(card.choices))):
            order = ()
        if isinstance(card, ChoiceCard) and not order:
            count = len(card.choices)
            shuffled = card.shuffle and self.preset.shuffle_choices
            order = tuple(self.rng.sample(range(count), count) if shuffled else range(count))
        self._card_decks[row.id] = row.deck_id
        # The card's own deck's preset says when it is asked as type-in, as it schedules it.
        threshold = self._presets.of_deck(row.deck_id).type_in_from_stability
        return StudyCard(
            card_id=row.id,
            seed=row.seed,
            card=card,
            memory=row.memory,
            order=order,
            shown_at=now,
            as_recall=asked_as_recall(card, row.memory, threshold),
        )


def _new_review(
    answer: Answer,
    rating: Rating,
    picked: tuple[str, ...] | None,
    state_before: CardState,
    kind: ReviewKind = ReviewKind.ANSWER,
    chosen_due: datetime | None = None,
) -> NewReview:
    """The history entry of a graded answer: an answer, a cram answer or a follow-up's."""
    review = NewReview.rated(
        card_id=answer.card.card_id,
        reviewed_at=answer.answered_at,
        rating=rating,
        duration_ms=answer.duration_ms,
        state_before=state_before,
        picked=picked,
        correct=answer.correct,
        proposed=answer.proposed,
        chosen_due=chosen_due,
    )
    return review if kind is ReviewKind.ANSWER else dataclasses.replace(review, kind=kind)
