"""Deck options shared as presets, as Anki's: each option's default and meaning, declared once.

A preset is a plain value; ``storage`` keeps presets and which deck uses which, and a deck
uses the default preset until it is given another. ``scheduling`` builds a deck's FSRS
scheduler from its preset; ``study`` reads its limits, order and shuffle.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from recall.core import fields
from recall.core.days import StudyDays
from recall.core.fields import OptionError, option
from recall.core.i18n import mark, tr

DEFAULT_PRESET_ID = 1
PARAMETER_COUNT = 21  # FSRS-6's parameters; scheduling checks fsrs agrees
PARAMETER_BOUNDS = (  # (lowest, highest) of each, as py-fsrs's; scheduling checks fsrs agrees
    (0.001, 100.0),
    (0.001, 100.0),
    (0.001, 100.0),
    (0.001, 100.0),
    (1.0, 10.0),
    (0.001, 4.0),
    (0.001, 4.0),
    (0.001, 0.75),
    (0.0, 4.5),
    (0.0, 0.8),
    (0.001, 3.5),
    (0.001, 5.0),
    (0.001, 0.25),
    (0.001, 0.9),
    (0.0, 4.0),
    (0.0, 1.0),
    (1.0, 6.0),
    (0.0, 2.0),
    (0.0, 2.0),
    (0.0, 0.8),
    (0.1, 0.8),
)
LEECH_ACTIONS = ("suspend", "tag")
NEW_CARD_ORDERS = ("deck", "random")
# How much of its share of reviews a weekday gets from load balancing, as Anki's Easy Days.
EASY_DAY_LOADS = ("normal", "reduced", "minimum")
WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
RETENTION_WARNING = mark(
    "above 0.97 the workload grows steeply for little more memory (see the simulator)"
)


@dataclass(frozen=True)
class Preset:
    """A set of deck options that any number of decks share."""

    name: str = option("Default", mark("Name"), mark("What the preset is called."), editable=False)
    new_per_day: int = option(
        20,
        mark("New cards/day"),
        mark("New cards introduced per deck per study day."),
        low=0,
        high=9999,
    )
    reviews_per_day: int = option(
        200,
        mark("Maximum reviews/day"),
        mark("Review cards shown per deck per study day."),
        low=0,
        high=99999,
    )
    extra_new_today: int = option(
        0,
        mark("Extra new cards today"),
        mark("More new cards for today only; gone when the next study day starts."),
        low=0,
        high=9999,
    )
    extra_reviews_today: int = option(
        0,
        mark("Extra reviews today"),
        mark("More reviews for today only; gone when the next study day starts."),
        low=0,
        high=99999,
    )
    extra_until: datetime | None = option(  # noqa: RUF009 (option() is dataclasses.field)
        None, mark("Extras end"), mark("When today's extra cards stop counting."), editable=False
    )
    learning_steps: tuple[timedelta, ...] = option(
        (timedelta(minutes=1), timedelta(minutes=10)),
        mark("Learning steps"),
        mark("Delays before a new card is seen again the same day."),
        high=10,
    )
    relearning_steps: tuple[timedelta, ...] = option(
        (timedelta(minutes=10),),
        mark("Relearning steps"),
        mark("Delays before a forgotten card is seen again the same day."),
        high=10,
    )
    desired_retention: float = option(
        0.9,
        mark("Desired retention"),
        mark("Chance of remembering a card when it comes due."),
        low=0.70,
        high=0.99,
        warn_above=0.97,
        warning=RETENTION_WARNING,
    )
    maximum_interval: int = option(
        36500,
        mark("Maximum interval (days)"),
        mark("Longest gap between two reviews of a card."),
        low=1,
        high=36500,
    )
    leech_threshold: int = option(
        8, mark("Leech threshold"), mark("Lapses after which a card is a leech."), low=1, high=99
    )
    leech_action: str = option(
        "suspend",
        mark("Leech action"),
        mark("What happens to a leech: suspended, or only tagged 'leech'."),
        choices=LEECH_ACTIONS,
    )
    bury_new_siblings: bool = option(
        True,
        mark("Bury new siblings"),
        mark("A new card waits for the next study day once another card of its note was studied."),
    )
    bury_review_siblings: bool = option(
        True,
        mark("Bury review siblings"),
        mark(
            "A review card waits for the next study day once another card of its note was studied."
        ),
    )
    new_card_order: str = option(
        "deck",
        mark("New card order"),
        mark("New cards in the deck file's order, or in random order."),
        choices=NEW_CARD_ORDERS,
    )
    shuffle_choices: bool = option(
        True,
        mark("Shuffle choices"),
        mark("Show a choice card's options in a new order each time."),
    )
    load_balancing: bool = option(
        True,
        mark("Load balancing"),
        mark(
            "Pick each review's day inside its fuzz range (one to three days for the shortest "
            "intervals) by how many cards are already due then, so the days even out."
        ),
    )
    easy_monday: str = option(
        "normal",
        mark("Easy Days: Monday"),
        mark(
            "Reviews on Mondays: a normal share, reduced (about half) or minimum "
            "(only when no other day in a card's range is possible)."
        ),
        choices=EASY_DAY_LOADS,
    )
    easy_tuesday: str = option(
        "normal",
        mark("Easy Days: Tuesday"),
        mark(
            "Reviews on Tuesdays: a normal share, reduced (about half) or minimum "
            "(only when no other day in a card's range is possible)."
        ),
        choices=EASY_DAY_LOADS,
    )
    easy_wednesday: str = option(
        "normal",
        mark("Easy Days: Wednesday"),
        mark(
            "Reviews on Wednesdays: a normal share, reduced (about half) or minimum "
            "(only when no other day in a card's range is possible)."
        ),
        choices=EASY_DAY_LOADS,
    )
    easy_thursday: str = option(
        "normal",
        mark("Easy Days: Thursday"),
        mark(
            "Reviews on Thursdays: a normal share, reduced (about half) or minimum "
            "(only when no other day in a card's range is possible)."
        ),
        choices=EASY_DAY_LOADS,
    )
    easy_friday: str = option(
        "normal",
        mark("Easy Days: Friday"),
        mark(
            "Reviews on Fridays: a normal share, reduced (about half) or minimum "
            "(only when no other day in a card's range is possible)."
        ),
        choices=EASY_DAY_LOADS,
    )
    easy_saturday: str = option(
        "normal",
        mark("Easy Days: Saturday"),
        mark(
            "Reviews on Saturdays: a normal share, reduced (about half) or minimum "
            "(only when no other day in a card's range is possible)."
        ),
        choices=EASY_DAY_LOADS,
    )
    easy_sunday: str = option(
        "normal",
        mark("Easy Days: Sunday"),
        mark(
            "Reviews on Sundays: a normal share, reduced (about half) or minimum "
            "(only when no other day in a card's range is possible)."
        ),
        choices=EASY_DAY_LOADS,
    )
    type_in_from_stability: int = option(
        0,
        mark("Type-in from stability (days)"),
        mark(
            "A single-answer choice card whose memory stability has reached this many days is "
            "asked as type-in: you type the right option's text. 0 never."
        ),
        low=0,
        high=36500,
    )
    parameters: tuple[float, ...] = option(
        (),
        mark("FSRS parameters"),
        mark("The 21 numbers of the memory model; empty means FSRS's defaults."),
    )
    guess_correction: bool = option(
        False,
        mark("Guess correction"),
        mark(
            "The parameters were fitted counting a right pick on a choice card with k options "
            "as recall or a 1-in-k guess; Optimize turns it on only where that predicts later "
            "reviews better."
        ),
    )

    def __post_init__(self) -> None:
        if not self.parameters:
            return
        if len(self.parameters) != PARAMETER_COUNT:
            raise OptionError(
                tr("parameters: FSRS needs {count} numbers, got {got}").format(
                    count=PARAMETER_COUNT, got=len(self.parameters)
                )
            )
        # Checked here, every preset made (typed, fitted, stored, synced) is one fsrs accepts.
        problems = [
            tr("w{index} = {value}, FSRS takes {low} to {high}").format(
                index=index, value=f"{value:g}", low=f"{low:g}", high=f"{high:g}"
            )
            for index, (value, (low, high)) in enumerate(
                zip(self.parameters, PARAMETER_BOUNDS, strict=True)
            )
            if not low <= value <= high
        ]
        if problems:
            raise OptionError(tr("parameters: {problems}").format(problems="; ".join(problems)))

    def new_limit(self, now: datetime) -> int:
        """New cards a deck may introduce in the study day ``now`` falls in."""
        return self.new_per_day + (self.extra_new_today if self._extras_apply(now) else 0)

    def review_limit(self, now: datetime) -> int:
        """Review cards a deck may show in the study day ``now`` falls in."""
        return self.reviews_per_day + (self.extra_reviews_today if self._extras_apply(now) else 0)

    @property
    def easy_days(self) -> tuple[str, ...]:
        """Each weekday's Easy Days load ("normal", "reduced" or "minimum"), Monday first."""
        return tuple(getattr(self, f"easy_{day}") for day in WEEKDAYS)

    def warnings(self) -> list[str]:
        """Values that are allowed but probably not wanted, in words."""
        found = [fields.warning(getattr(self, item.key), item) for item in fields.describe(Preset)]
        return [text for text in found if text]

    def _extras_apply(self, now: datetime) -> bool:
        return self.extra_until is not None and now < self.extra_until


@dataclass(frozen=True)
class LeechPolicy:
    """When a card becomes a leech and what then happens to it."""

    leech_threshold: int
    leech_action: str

    def is_leech(self, lapses: int) -> bool:
        """Whether the lapse that brought the count to ``lapses`` makes the card a leech.

        As Anki: at the threshold, then again every half threshold after it (8, 12, 16...).
        """
        if lapses < self.leech_threshold or self.leech_threshold <= 0:
            return False
        return (lapses - self.leech_threshold) % max(1, self.leech_threshold // 2) == 0


def leech_policy(preset: Preset) -> LeechPolicy:
    """The leech threshold and action a deck's preset sets."""
    return LeechPolicy(leech_threshold=preset.leech_threshold, leech_action=preset.leech_action)


@dataclass(frozen=True)
class DeckPresets:
    """Every preset by id, and which decks use which (the rest use the default preset)."""

    presets: dict[int, Preset]
    decks: dict[int, int] = field(default_factory=dict)
    # How reviews fall into study days (the learner's preferences), which every deck's
    # scheduler counts elapsed time in.
    days: StudyDays = field(default_factory=StudyDays)

    def preset_id_of(self, deck_id: int) -> int:
        """The id of the preset a deck uses."""
        return self.decks.get(deck_id, DEFAULT_PRESET_ID)

    def of_deck(self, deck_id: int) -> Preset:
        """The preset a deck uses."""
        preset = self.presets.get(self.preset_id_of(deck_id))
        return Preset() if preset is None else preset

    def decks_using(self, preset_id: int, deck_ids: list[int]) -> list[int]:
        """Which of ``deck_ids`` use the preset."""
        return [deck for deck in deck_ids if self.preset_id_of(deck) == preset_id]


def with_changes(preset: Preset, changes: dict[str, Any], day_end: datetime) -> Preset:
    """A copy with checked ``changes``; extras for today last until ``day_end``.

    Raises:
        OptionError: An unknown key or a value out of range; the preset is unchanged.
    """
    changed = fields.replaced(preset, changes)
    if {"extra_new_today", "extra_reviews_today"} & changes.keys():
        changed = dataclasses.replace(changed, extra_until=day_end)
    return changed


def parse_changes(assignments: list[str]) -> dict[str, Any]:
    """``KEY=VALUE`` texts as checked option values, as the command line gives them.

    Raises:
        OptionError: Not ``KEY=VALUE``, an unknown key, or a value the option cannot take.
    """
    changes: dict[str, Any] = {}
    for assignment in assignments:
        key, sep, text = assignment.partition("=")
        if not sep:
            raise OptionError(
                tr("{text}: expected KEY=VALUE, as new_per_day=10").format(text=repr(assignment))
            )
        item = fields.info(Preset, key.strip())
        changes[item.key] = fields.parse(item, text)
    if changes.get("parameters"):
        Preset(parameters=changes["parameters"])  # the count is checked with the preset
    return changes
