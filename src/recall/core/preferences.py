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
        "system", "Theme", "Light, dark, or follow the system's scheme.", choices=THEMES
    )
    language: str = option(
        "system",
        mark("Language"),
        mark("The language Recall is shown in; a new choice shows the next time Recall starts."),
        choices=LANGUAGES,
    )
    day_rollover_hour: int = option(
        4, "Next day starts at", "Local hour at which a new study day begins.", low=0, high=23
    )
    time_zone: str = option(
        "",
        "Time zone",
        "The zone study days are counted in, as Europe/Berlin; set from this computer's "
        "when the library is first opened.",
    )
    learn_ahead_minutes: int = option(
        20,
        "Learn ahead limit (minutes)",
        "How early a learning card may be shown when nothing else is left.",
        low=0,
        high=1440,
    )
    answer_time_grading: bool = option(
        True,
        "Grade by answer time",
        "Propose Hard for a slow right answer and Easy for a fast one.",
    )
    slow_answer_factor: float = option(
        2.0,
        "Slow answer (times typical)",
        "A right answer this many times slower than typical is rated Hard.",
        low=1.0,
        high=10.0,
    )
    fast_answer_factor: float = option(
        0.5,
        "Fast answer (share of typical)",
        "A right answer this many times faster than typical is rated Easy.",
        low=0.05,
        high=1.0,
    )
    timing_sample_size: int = option(
        5,
        "Answers before timing counts",
        "Right answers a deck needs before timing can change a rating.",
        low=1,
        high=1000,
    )
    show_next_intervals: bool = option(
        True,
        "Show next intervals on rating buttons",
        "Each rating button says when the card would come back.",
    )
    play_sounds_automatically: bool = option(
        True,
        "Play sounds automatically",
        "Play a card's sounds when it is shown, the answer's when revealed.",
    )
    skip_question_sounds_on_replay: bool = option(
        False,
        "Skip the question's sounds when replaying the answer",
        "When the answer's sounds are replayed, leave the question's out.",
    )
    text_size: int = option(
        100, "Text size (%)", "Size of all text, as a share of the usual size.", low=60, high=250
    )
    backup_interval_minutes: int = option(
        30,
        "Back up every (minutes)",
        "How often the open window backs up the database if it changed.",
        low=5,
        high=1440,
    )
    reminder_time: time | None = option(  # noqa: RUF009 (option() is dataclasses.field)
        None,
        "Daily reminder at",
        "Local time (like 09:30) of one reminder a day when cards are due; off for none.",
    )
    minimize_to_tray: bool = option(
        False,
        "Minimise to the tray",
        "A minimised window leaves the taskbar and waits in the tray (when there is one).",
    )
    start_with_session: bool = option(
        False,
        "Start when you log in",
        "Open Recall in the tray (or minimised) each time you log in to the desktop.",
    )

    # The local API for tools that write questions (docs/api.md). The preferences dialog
    # has a section of its own for them: the key is generated, never typed.
    api_enabled: bool = option(
        False,
        "Local API",
        "Let programs on this computer add and find cards through a server on 127.0.0.1.",
        editable=False,
    )
    api_port: int = option(
        8765,
        "Local API port",
        "The port the local API listens on; 8765 is the one AnkiConnect uses.",
        low=1024,
        high=65535,
        editable=False,
    )
    api_key: str = option(
        "",
        "Local API key",
        "The key every request must carry; made when the API is first turned on.",
        editable=False,
    )
    api_origins: str = option(
        "",
        "Local API web origins",
        "Web pages or extensions (like chrome-extension://abc) allowed to call the API, "
        "separated by spaces; none by default.",
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
