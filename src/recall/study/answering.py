"""Grading an answer on the card shown: picked choices, typed text or a revealed back, with
the rating proposed and the intervals each rating would give.

Part of the study session (``StudySession`` is an ``Answering``): nothing here writes;
``StudySession.record`` stores the rating chosen.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Collection
from datetime import datetime, timedelta

from recall.content.deck_format import BasicCard, ChoiceCard
from recall.core import grading, type_answer
from recall.core.memory import Rating
from recall.core.preferences import Preferences
from recall.storage import Database
from recall.study.recall_prompt import recall_answer, typed_option
from recall.study.values import Answer, EarlierPick, StudyCard, elapsed_ms

_TIMING_WINDOW = 50  # right answers the typical answer time is taken from


class Answering:
    """The grading half of a study session: what the session keeps that grading reads.

    Attributes:
        database: Where the deck's answer times and the card's earlier picks are read.
        preferences: Answer-time grading and its factors, as the session last read them.
        deck_ids: The studied decks, whose answers give the typical answer time.
        preview: The intervals each rating would give the card shown at a time.
    """

    database: Database
    preferences: Preferences
    deck_ids: tuple[int, ...]
    preview: Callable[[StudyCard, datetime], dict[Rating, timedelta]]

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
            intervals=self.preview(shown, now),
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
            intervals=self.preview(shown, now),
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
            intervals=self.preview(shown, now),
            answered_at=now,
        )
