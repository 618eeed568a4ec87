"""Every setting Recall has, with its default and what it means, declared once."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import timedelta


@dataclass(frozen=True)
class Settings:
    """Scheduling, queue and grading settings.

    Each field's ``metadata["help"]`` says what it does; the defaults are FSRS's and Anki's.
    """

    desired_retention: float = field(
        default=0.9, metadata={"help": "Chance of remembering a card when it comes due."}
    )
    learning_steps: tuple[timedelta, ...] = field(
        default=(timedelta(minutes=1), timedelta(minutes=10)),
        metadata={"help": "Delays before a new card is seen again the same day."},
    )
    relearning_steps: tuple[timedelta, ...] = field(
        default=(timedelta(minutes=10),),
        metadata={"help": "Delays before a forgotten card is seen again the same day."},
    )
    maximum_interval_days: int = field(
        default=36500, metadata={"help": "Longest gap between two reviews of a card."}
    )
    fuzz: bool = field(
        default=True,
        metadata={"help": "Spread review intervals by a few percent so cards do not clump."},
    )
    new_cards_per_day: int = field(
        default=20, metadata={"help": "New cards introduced per deck per study day."}
    )
    day_rollover_hour: int = field(
        default=4, metadata={"help": "Local hour at which a new study day begins."}
    )
    learn_ahead: timedelta = field(
        default=timedelta(minutes=20),
        metadata={"help": "How early a learning card may be shown when nothing else is left."},
    )
    slow_answer_factor: float = field(
        default=2.0,
        metadata={"help": "A right answer this many times slower than typical is rated Hard."},
    )
    fast_answer_factor: float = field(
        default=0.5,
        metadata={"help": "A right answer this many times faster than typical is rated Easy."},
    )
    timing_sample_size: int = field(
        default=5,
        metadata={"help": "Right answers a deck needs before timing can change a rating."},
    )

    leech_threshold: int = field(
        default=8,
        metadata={"help": "Times a card in review is forgotten before it counts as a leech."},
    )
    leech_action: str = field(
        default="suspend",
        metadata={"help": "What a leech gets besides the tag 'leech': 'suspend' or 'tag' only."},
    )

    def is_leech(self, lapses: int) -> bool:
        """Whether a card forgotten ``lapses`` times becomes a leech now (as Anki: at the
        threshold, then again every half threshold)."""
        if lapses < self.leech_threshold or self.leech_threshold <= 0:
            return False
        step = max(1, self.leech_threshold // 2)
        return (lapses - self.leech_threshold) % step == 0

    play_sounds_automatically: bool = field(
        default=True,
        metadata={"help": "Play a card's sounds when it is shown, the answer's when revealed."},
    )
    skip_question_sounds_on_replay: bool = field(
        default=False,
        metadata={"help": "When the answer's sounds are replayed, leave the question's out."},
    )

    def new_cards_left(self, introduced_today: int) -> int:
        """How many more new cards a deck may introduce today."""
        return max(0, self.new_cards_per_day - introduced_today)
