"""Use case: fit a preset's FSRS parameters to the history of its decks, and say what happened.

As Anki does, fitted parameters are applied only if they predict the learner's own history
better (a lower log loss on the same training items); applying them reschedules every card
of the preset's decks from its history, after a backup, undoably.

Where the decks hold choice cards, the fit is also made with a guess term (a right pick on
a k-option card is recall or a 1-in-k guess, ``scheduling.guessing``) and both fits are
judged on later reviews; the guess model is adopted only where it predicts them better, and
then its parameters are the ones fitted, judged and applied, with the preset's
``guess_correction`` on.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta, tzinfo
from typing import Any

from recall.core.days import StudyDays
from recall.core.i18n import tr
from recall.core.memory import CardState, ReviewKind
from recall.options import deck_options
from recall.scheduling import Schedulers, guessing, parameter_health
from recall.scheduling.fitting import CardHistory, evaluate, walks
from recall.scheduling.optimize import DayRatings, Optimized, optimize
from recall.scheduling.parameters import DEFAULT_PARAMETERS
from recall.storage import CardRow, Database, ReviewRow

FEW_REVIEWS = 400  # below this a fit can move a lot as more reviews come in
Progress = Callable[[int, int], None]


@dataclass(frozen=True)
class OptimizeReport:
    """What optimizing a preset found, and whether the fitted parameters were applied."""

    preset_id: int
    preset_name: str
    result: Optimized
    applied: bool
    asked_to_apply: bool
    change: deck_options.OptionsChange | None = None
    health: parameter_health.Health | None = None
    guesses: guessing.Comparison | None = None

    @property
    def guess_correction(self) -> bool:
        """Whether the fit counts a right pick as recall or a guess (and ``result`` is that
        fit's)."""
        return self.guesses is not None and self.guesses.adopted

    def words(self, in_window: bool = False) -> str:
        """The outcome in one or two sentences.

        Args:
            in_window: Say how the deck options window applies a better fit not yet
                applied (Use Fitted, then Save).
        """
        result = self.result
        if result.before is None or result.after is None:
            return tr(
                "Nothing to fit yet in preset {preset}: no card has a review on a later day "
                "than its first. Keep studying; the parameters stay as they are."
            ).format(preset=repr(self.preset_name))
        figures = {"reviews": f"{result.reviews:,}", "cards": f"{result.cards:,}"}
        if result.kept_defaults:
            return tr(
                "Only {reviews} reviews of {cards} cards to learn from: fsrs-rs-python leaves "
                "out outliers and then keeps FSRS's default parameters when too few reviews "
                "remain. Your current parameters stay."
            ).format(**figures)
        figures["before"] = f"{result.before.log_loss:.3f}"
        figures["after"] = f"{result.after.log_loss:.3f}"
        if not result.better:
            text = tr(
                "Fitted to {reviews} reviews of {cards} cards: log loss {before} -> {after}; "
                "your current parameters already fit best, kept."
            ).format(**figures)
        elif self.applied:
            moved = self.change.rescheduled if self.change else 0
            text = tr(
                "Fitted to {reviews} reviews of {cards} cards: log loss {before} -> {after}, "
                "applied ({moved} cards rescheduled from their history)."
            ).format(**figures, moved=f"{moved:,}")
        elif in_window:
            text = tr(
                "Fitted to {reviews} reviews of {cards} cards: log loss {before} -> {after}: a "
                "better fit. Use Fitted, then Save, to apply them."
            ).format(**figures)
        else:
            text = tr(
                "Fitted to {reviews} reviews of {cards} cards: log loss {before} -> {after}: a "
                "better fit, not applied yet."
            ).format(**figures)
        if result.reviews < FEW_REVIEWS:
            text += " " + tr(
                "Only {reviews} reviews: a fit on so few can change a lot as you study more."
            ).format(reviews=figures["reviews"])
        if self.guesses is not None:
            text += " " + self.guesses.words()
        if self.health is not None:
            text += " " + self.health.words()
        return text

    def to_json(self) -> dict[str, Any]:
        """The report as the command line's ``--json`` prints it."""
        result = self.result

        def fit(value: Any) -> dict[str, float] | None:
            return (
                None
                if value is None
                else {"log_loss": value.log_loss, "rmse_bins": value.rmse_bins}
            )

        return {
            "preset": self.preset_name,
            "reviews": result.reviews,
            "cards": result.cards,
            "items": result.items,
            "before": fit(result.before),
            "after": fit(result.after),
            "better": result.better,
            "applied": self.applied,
            "parameters": list(result.fitted),
            "guess_correction": self.guess_correction,
            "guesses": None if self.guesses is None else self.guesses.to_json(),
            "health": None if self.health is None else self.health.to_json(),
            "message": self.words(),
        }


def optimize_preset(
    database: Database,
    schedulers: Schedulers,
    preset_id: int,
    now: datetime,
    apply: bool,
    zone: tzinfo | None = None,
    progress: Progress | None = None,
    decks: list[int] | None = None,
) -> OptimizeReport:
    """Fit the preset's parameters to its decks' history; apply them if asked and better.

    Args:
        database: The database.
        schedulers: Builds schedulers for rescheduling when the fit is applied.
        preset_id: The preset to fit.
        now: The time (names the backup made before applying).
        apply: Store the fitted parameters if they fit better.
        zone: The learner's time zone, for the rescheduling's extras of today (training
            counts the study days of the stored preferences, as the replay does).
        progress: Called with (done, total) while rescheduling.
        decks: Fit to these decks' history instead of the decks using the preset now
            (the options window adds the deck it is about to give the preset).
    """
    with database.reading() as transaction:
        book = transaction.options.deck_presets()
        if decks is None:
            decks = [
                deck.id
                for deck in transaction.options.decks()
                if book.preset_id_of(deck.id) == preset_id
            ]
        cards = list(_histories(transaction.history.per_card, decks, book.days))
    histories = [card.reviews for card in cards]
    preset = book.presets[preset_id]
    result = optimize(histories, preset.parameters)
    health = guesses = None
    if not result.kept_defaults:
        health = parameter_health.check(histories)
        guesses = guessing.compare(cards, start=result.fitted)
    if guesses is not None and guesses.adopted:
        result = _with_guesses(result, cards, preset.parameters, guesses.fitted)
    change = None
    if apply and result.better:
        change = deck_options.change_preset(
            database,
            schedulers,
            preset_id,
            {
                "parameters": result.fitted,
                "guess_correction": guesses is not None and guesses.adopted,
            },
            now,
            zone,
            progress or (lambda _done, _total: None),
        )
    return OptimizeReport(
        preset_id=preset_id,
        preset_name=preset.name,
        result=result,
        applied=change is not None,
        asked_to_apply=apply,
        change=change,
        health=health,
        guesses=guesses,
    )


def _with_guesses(
    result: Optimized,
    cards: list[CardHistory],
    current: tuple[float, ...],
    fitted: tuple[float, ...],
) -> Optimized:
    """The fit under the guess model: its parameters, and the current and fitted ones both
    judged under its likelihood on the same answers."""
    prepared = walks(cards)
    answers = (0, sum(len(card.ranks) for card in prepared))
    return dataclasses.replace(
        result,
        before=evaluate(prepared, current or DEFAULT_PARAMETERS, guessing=True, span=answers),
        after=evaluate(prepared, fitted, guessing=True, span=answers),
        fitted=fitted,
    )


def day_number(moment: datetime, rollover_hour: int, zone: tzinfo | None) -> int:
    """The study day a moment falls in, as a day count (days start at the rollover hour)."""
    local = moment.astimezone(zone)
    return (local - timedelta(hours=rollover_hour)).date().toordinal()


def _histories(
    per_card: Callable[[int], Iterator[tuple[CardRow, list[ReviewRow]]]],
    decks: list[int],
    days: StudyDays,
) -> Iterator[CardHistory]:
    """Each card's (study day, rating) pairs and the chance of guessing it right, for cards
    whose history starts when it was new.

    The study days are those the replay counts elapsed time in (the stored rollover hour
    and time zone), so the parameters are fitted on the gaps the scheduler is then given.
    """
    for deck_id in decks:
        for card, history in per_card(deck_id):
            if not history or history[0].state_before is not CardState.NEW:
                continue
            # Schedule changes made by hand (forget, set due date) are left out, as Anki
            # leaves its manual reschedules out of training.
            reviews: DayRatings = [
                (days.day_of(review.reviewed_at), int(review.rating))
                for review in history
                if review.kind is ReviewKind.ANSWER and review.rating is not None
            ]
            yield CardHistory(reviews, guessing.guess_chance(card.kind, card.content))
