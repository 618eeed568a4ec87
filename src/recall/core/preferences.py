"""The learner's preferences, each with its default and what it means, declared once.

They are stored in the database (so a backup carries them); ``storage`` reads and writes
them as the JSON ``fields.to_stored`` gives. What a deck studies (limits, steps, desired
retention, FSRS parameters) is in its preset: see ``presets.py``.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import time, timedelta

from recall.core import days
from recall.core.days import StudyDays
from recall.core.fields import OptionError, option
from recall.core.i18n import mark

THEMES = ("system", "light", "dark")
# "system": the language the system asks for (LANGUAGE, LANG); else one Recall ships.
LANGUAGES = ("system", "en", "de")


@dataclass(frozen=True)
class Preferences:
    """How Recall looks and behaves for this learner, whatever the deck."""

    theme: str = option(
        "system", mark("Theme"), mark("Light, dark, or follow the system's scheme."), choices=THEMES
    )
    language: str = option(
        "system",
        mark("Language"),
        mark("The language Recall is shown in; a new choice shows the next time Recall starts."),
        choices=LANGUAGES,
    )
    day_rollover_hour: int = option(
        4,
        mark("Next day starts at"),
        mark("Local hour at which a new study day begins."),
        low=0,
        high=23,
    )
    time_zone: str = option(
        "",
        mark("Time zone"),
        mark(
            "The zone study days are counted in, as Europe/Berlin; set from this computer's "
            "when the library is first opened."
        ),
    )
    learn_ahead_minutes: int = option(
        20,
        mark("Learn ahead limit (minutes)"),
        mark("How early a learning card may be shown when nothing else is left."),
        low=0,
        high=1440,
    )
    answer_time_grading: bool = option(
        True,
        mark("Grade by answer time"),
        mark("Propose Hard for a slow right answer and Easy for a fast one."),
    )
    slow_answer_factor: float = option(
        2.0,
        mark("Slow answer (times typical)"),
        mark("A right answer this many times slower than typical is rated Hard."),
        low=1.0,
        high=10.0,
    )
    fast_answer_factor: float = option(
        0.5,
        mark("Fast answer (share of typical)"),
        mark("A right answer this many times faster than typical is rated Easy."),
        low=0.05,
        high=1.0,
    )
    timing_sample_size: int = option(
        5,
        mark("Answers before timing counts"),
        mark("Right answers a deck needs before timing can change a rating."),
        low=1,
        high=1000,
    )
    show_next_intervals: bool = option(
        True,
        mark("Show next intervals on rating buttons"),
        mark("Each rating button says when the card would come back."),
    )
    play_sounds_automatically: bool = option(
        True,
        mark("Play sounds automatically"),
        mark("Play a card's sounds when it is shown, the answer's when revealed."),
    )
    skip_question_sounds_on_replay: bool = option(
        False,
        mark("Skip the question's sounds when replaying the answer"),
        mark("When the answer's sounds are replayed, leave the question's out."),
    )
    text_size: int = option(
        100,
        mark("Text size (%)"),
        mark("Size of all text, as a share of the usual size."),
        low=60,
        high=250,
    )
    backup_interval_minutes: int = option(
        30,
        mark("Back up every (minutes)"),
        mark("How often the open window backs up the database if it changed."),
        low=5,
        high=1440,
    )
    reminder_time: time | None = option(  # noqa: RUF009 (option() is dataclasses.field)
        None,
        mark("Daily reminder at"),
        mark("Local time (like 09:30) of one reminder a day when cards are due; off for none."),
    )
    minimize_to_tray: bool = option(
        False,
        mark("Minimise to the tray"),
        mark("A minimised window leaves the taskbar and waits in the tray (when there is one)."),
    )
    start_with_session: bool = option(
        False,
        mark("Start when you log in"),
        mark("Open Recall in the tray (or minimised) each time you log in to the desktop."),
    )

    # The local API for tools that write questions (docs/api.md). The preferences dialog
    # has a section of its own for them: the key is generated, never typed.
    api_enabled: bool = option(
        False,
        mark("Local API"),
        mark("Let programs on this computer add and find cards through a server on 127.0.0.1."),
        editable=False,
    )
    api_port: int = option(
        8765,
        mark("Local API port"),
        mark("The port the local API listens on; 8765 is the one AnkiConnect uses."),
        low=1024,
        high=65535,
        editable=False,
    )
    api_key: str = option(
        "",
        mark("Local API key"),
        mark("The key every request must carry; made when the API is first turned on."),
        editable=False,
    )
    api_origins: str = option(
        "",
        mark("Local API web origins"),
        mark(
            "Web pages or extensions (like chrome-extension://abc) allowed to call the API, "
            "separated by spaces; none by default."
        ),
        editable=False,
    )

    def __post_init__(self) -> None:
        if self.time_zone:
            problem = days.zone_problem(self.time_zone)
            if problem:
                raise OptionError(f"time_zone: {problem}")

    @property
    def study_days(self) -> StudyDays:
        """How reviews fall into study days: the rollover hour in the stored time zone."""
        return StudyDays(self.day_rollover_hour, self.time_zone or "UTC")

    @property
    def learn_ahead(self) -> timedelta:
        """The learn-ahead limit as a duration."""
        return timedelta(minutes=self.learn_ahead_minutes)

    @property
    def backup_interval(self) -> timedelta:
        """The automatic backup interval as a duration."""
        return timedelta(minutes=self.backup_interval_minutes)
