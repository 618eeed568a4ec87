"""Numbers, dates, options and the statistics' readings in the learner's language."""

from __future__ import annotations

from dataclasses import replace
from datetime import date

import pytest

from recall.core import fields, wording
from recall.core.fields import OptionError
from recall.core.presets import Preset
from tests.helpers.catalogs import Translations, installed


def test_units_shares_and_dates_are_worded_by_the_catalog() -> None:
    german: Translations = {
        ("unit", "h"): "Std.",
        ("unit", "min"): "Min.",
        "{percent}%": "{percent} %",
        "{day} {month}": "{day}. {month}",
        "{day} {month} {year}": "{day}. {month} {year}",
        "Mar": "März",
        "May": "Mai",
    }
    assert wording.duration(3_900_000) == "1 h 5 min"
    with installed(german):
        assert wording.duration(3_900_000) == "1 Std. 5 Min."
        assert wording.percent(0.38) == "38 %"
        assert wording.short_day(date(2026, 3, 5)) == "5. März"
        assert wording.long_day(date(2026, 5, 1)) == "1. Mai 2026"
    assert wording.short_day(date(2026, 3, 5)) == "5 Mar"  # English once it is uninstalled


def test_an_option_is_labelled_helped_and_refused_in_the_learners_language() -> None:
    german: Translations = {
        "New cards/day": "Neue Karten/Tag",
        "New cards introduced per deck per study day.": "Neue Karten pro Stapel und Lerntag.",
        "{option}: {value} is outside {range}": "{option}: {value} liegt außerhalb von {range}",
    }
    with installed(german):
        item = fields.info(Preset, "new_per_day")
        assert (item.label, item.help) == ("Neue Karten/Tag", "Neue Karten pro Stapel und Lerntag.")
        with pytest.raises(
            OptionError, match=r"^Neue Karten/Tag: 10000 liegt außerhalb von 0-9999"
        ):
            fields.replaced(Preset(), {"new_per_day": 10_000})
    assert fields.info(Preset, "new_per_day").label == "New cards/day"


def test_a_warning_reads_in_the_catalogs_words_and_order() -> None:
    german: Translations = {
        "Desired retention": "Gewünschte Behaltensrate",
        "{option} {value}: {warning}": "{option} {value}: {warning}",
        "above 0.97 the workload grows steeply for little more memory (see the simulator)": (
            "über 0,97 steigt der Aufwand steil"
        ),
    }
    preset = replace(Preset(), desired_retention=0.98)
    assert preset.warnings() == [
        "Desired retention 0.98: above 0.97 the workload grows steeply for little more memory "
        "(see the simulator)"
    ]
    with installed(german):
        assert preset.warnings() == [
            "Gewünschte Behaltensrate 0.98: über 0,97 steigt der Aufwand steil"
        ]
