"""An exam's forecast for a deck: the share remembered on the day, the answers a day a target
needs, and what skipping today costs. Plain values, for the window and the command line.

The share remembered on the exam day is the mean FSRS retrievability then over the deck's
cards (its subdecks included), each by its own deck's preset, counted in study days as
scheduling counts them; a card never studied counts 0, and the share over the studied cards
alone is given beside it. The answers a day come from simulating the days until the exam
(``exam_simulation``): the fewest answers a study day with which the simulated share
reaches the target.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

from recall.core import deck_tree, wording
from recall.core.days import StudyDays
from recall.core.errors import RecallError, UnknownDeckError
from recall.core.i18n import tr, trn
from recall.core.memory import CardState
from recall.core.progress import Cancelled, Progress, never_cancelled, no_progress
from recall.scheduling import Schedulers, exam
from recall.stats import exam_simulation
from recall.stats.exam_simulation import ExamCard
from recall.storage import Database

DEFAULT_TARGET = 0.9
_SEARCH_STEPS = 20  # halvings of the answers-a-day range: enough for 80,000 cards


class ExamDateError(RecallError):
    """An exam day or target the forecast cannot use; the message says which and why."""


@dataclass(frozen=True)
class ExamForecast:
    """What the days until an exam hold for a deck.

    Attributes:
        deck: The deck's name.
        exam: The exam's day.
        days_left: Study days before the exam, today included (0 on the exam's day).
        cards: Cards in the deck and its subdecks.
        studied: Of them, those studied at least once.
        share: Expected share of the cards remembered on the exam day if nothing more is
            studied (the mean retrievability then; new cards count 0).
        share_studied: The same over the studied cards only (None if none is).
        target: The share asked for.
        reviews_per_day: Answers a study day (learning steps included) that reach the target
            in the simulation; None when even answering every due and new card does not.
        planned_share: The simulated share on the exam day with that many answers a day
            (with no limit when the target is out of reach).
        share_if_skipped: The same plan with today left out (today's due cards wait for
            tomorrow).
    """

    deck: str
    exam: date
    days_left: int
    cards: int
    studied: int
    share: float
    share_studied: float | None
    target: float
    reviews_per_day: int | None
    planned_share: float
    share_if_skipped: float

    @property
    def skipping_costs(self) -> float:
        """Points of share the exam day loses if today is skipped (0.02 is two points)."""
        return max(0.0, self.planned_share - self.share_if_skipped)

    def reading(self) -> list[str]:
        """The figures in words, one line each, as the window and ``recall forecast`` say them."""
        day = wording.long_day(self.exam)
        if self.days_left == 0:
            when = tr("Exam on {day}: today.").format(day=day)
        else:
            when = trn(
                "Exam on {day}: {count} study day left, today included.",
                "Exam on {day}: {count} study days left, today included.",
                self.days_left,
            ).format(day=day, count=wording.number(self.days_left))
        expect = {
            "share": wording.percent(self.share),
            "count": wording.number(self.cards),
        }
        if self.share_studied is not None:
            remember = trn(
                "If you study nothing more, you can expect to remember {share} of the {count} "
                "card on the day ({studied_share} of the {studied} studied; new cards count as "
                "forgotten).",
                "If you study nothing more, you can expect to remember {share} of the {count} "
                "cards on the day ({studied_share} of the {studied} studied; new cards count as "
                "forgotten).",
                self.cards,
            ).format(
                **expect,
                studied_share=wording.percent(self.share_studied),
                studied=trn("{count} card", "{count} cards", self.studied).format(
                    count=wording.number(self.studied)
                ),
            )
        else:
            remember = trn(
                "If you study nothing more, you can expect to remember {share} of the {count} "
                "card on the day (none is studied yet; new cards count as forgotten).",
                "If you study nothing more, you can expect to remember {share} of the {count} "
                "cards on the day (none is studied yet; new cards count as forgotten).",
                self.cards,
            ).format(**expect)
        lines = [when, remember]
        if self.days_left == 0:
            return lines
        target = wording.percent(self.target)
        if self.reviews_per_day is None:
            lines.append(
                tr(
                    "{target} is out of reach: studying every due and new card each day gives "
                    "about {share}."
                ).format(target=target, share=wording.percent(self.planned_share))
            )
        else:
            lines.append(
                trn(
                    "To remember {target}, study about {count} card a day (learning steps "
                    "included, new cards after the due ones): about {share} on the day.",
                    "To remember {target}, study about {count} cards a day (learning steps "
                    "included, new cards after the due ones): about {share} on the day.",
                    self.reviews_per_day,
                ).format(
                    target=target,
                    count=wording.number(self.reviews_per_day),
                    share=wording.percent(self.planned_share),
                )
            )
        skipped = wording.percent(self.share_if_skipped)
        if self.skipping_costs < 0.0005:
            # New cards learned later are fresher on the day: skipping may cost nothing.
            lines.append(
                tr(
                    "Skipping today leaves about {share}: it costs nothing measurable on the day."
                ).format(share=skipped)
            )
        else:
            lines.append(
                tr("Skipping today leaves about {share}: {points} points less on the day.").format(
                    share=skipped, points=f"{self.skipping_costs * 100:.1f}"
                )
            )
        return lines

    def as_json(self) -> dict[str, Any]:
        """The figures as JSON values (``recall forecast --json``)."""
        return {
            "deck": self.deck,
            "exam": self.exam.isoformat(),
            "days_left": self.days_left,
            "cards": self.cards,
            "studied": self.studied,
            "share_remembered": round(self.share, 4),
            "share_remembered_of_studied": (
                None if self.share_studied is None else round(self.share_studied, 4)
            ),
            "target": self.target,
            "reviews_per_day": self.reviews_per_day,
            "planned_share": round(self.planned_share, 4),
            "share_if_today_skipped": round(self.share_if_skipped, 4),
            "skipping_today_costs": round(self.skipping_costs, 4),
        }


def exam_cards(
    database: Database, schedulers: Schedulers, deck_key: str
) -> tuple[str, list[ExamCard], StudyDays]:
    """A deck's name, its cards (its subdecks' too) each with its preset's scheduler, and
    how moments fall into study days.

    Raises:
        UnknownDeckError: No deck has that id.
    """
    with database.reading() as transaction:
        deck = transaction.decks.by_key(deck_key)
        if deck is None:
            raise UnknownDeckError(deck_key)
        presets = transaction.options.deck_presets()
        cards: list[ExamCard] = []
        for inside in deck_tree.subtree(transaction.browsing.decks(), deck):
            scheduler = schedulers.for_deck(presets, inside.id)
            cards += [
                ExamCard(row.seed, row.memory, scheduler, row.position)
                for row in transaction.cards.of_deck(inside.id)
            ]
    return deck.name, cards, presets.days


def forecast(
    database: Database,
    schedulers: Schedulers,
    deck_key: str,
    exam_day: date,
    now: datetime,
    target: float = DEFAULT_TARGET,
    progress: Progress = no_progress,
    cancelled: Cancelled = never_cancelled,
) -> ExamForecast:
    """The exam forecast of a deck.

    Args:
        database: The library.
        schedulers: FSRS per preset (the forecast caps as study does).
        deck_key: The deck's file id.
        exam_day: The exam's day.
        now: The current moment, aware UTC.
        target: The share of the deck to remember on the day, above 0 and at most 1.
        progress: Told how many of the simulations have run.
        cancelled: Stops the simulations with ``CancelledError``.

    Raises:
        UnknownDeckError: No deck has that id.
        ExamDateError: The exam day has passed, or the target is not a share.
    """
    if not 0 < target <= 1:
        raise ExamDateError(
            tr("the target {target} is not a share above 0 and at most 1").format(
                target=f"{target:g}"
            )
        )
    name, cards, days = exam_cards(database, schedulers, deck_key)
    days_left = exam.day_number(exam_day) - days.day_of(now)
    if days_left < 0:
        raise ExamDateError(tr("the exam day {day} has passed").format(day=exam_day.isoformat()))
    at = exam.exam_moment(exam_day, days)
    share, share_studied = exam_simulation.share_remembered(cards, at)
    studied = sum(card.memory.state is not CardState.NEW for card in cards)

    def simulated(per_day: int | None, skip_today: bool = False) -> float:
        memories = exam_simulation.simulate(
            cards, exam_day, days, now, per_day, skip_today, cancelled=cancelled
        )
        return exam_simulation.share_on_exam(cards, memories, at)

    total = _SEARCH_STEPS + 2
    progress(0, total)
    best = simulated(None)
    per_day: int | None = None
    if best >= target and cards:
        # As many answers as the run with no limit may give: that one reached the target.
        low, high = 0, len(cards) * exam_simulation.MAX_ANSWERS
        for step in range(_SEARCH_STEPS):
            if high - low <= 1:
                break
            middle = (low + high) // 2
            if simulated(middle) >= target:
                high = middle
            else:
                low = middle
            progress(step + 1, total)
        per_day = high
    planned = best if per_day is None else simulated(per_day)
    progress(total - 1, total)
    skipped = simulated(per_day, skip_today=True) if days_left > 0 else planned
    progress(total, total)
    return ExamForecast(
        deck=name,
        exam=exam_day,
        days_left=days_left,
        cards=len(cards),
        studied=studied,
        share=share,
        share_studied=share_studied,
        target=target,
        reviews_per_day=per_day,
        planned_share=planned,
        share_if_skipped=skipped,
    )
