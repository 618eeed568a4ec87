"""The statistics' readings in the learner's language: whole sentences, the language's plurals."""

from __future__ import annotations

from recall import stats
from recall.core.memory import Rating
from recall.stats import report
from recall.storage import Database
from tests.helpers.catalogs import Translations, installed
from tests.stats.test_stats import add, at, collect, tiny

__all__ = ["tiny"]  # the fixture, shared with the statistics' own tests

GERMAN: Translations = {
    "Today you studied {count} card in {time}, {right} right, {again} Again.": (
        "Heute hast du {count} Karte in {time} gelernt, {right} richtig, {again}-mal Nochmal.",
        "Heute hast du {count} Karten in {time} gelernt, {right} richtig, {again}-mal Nochmal.",
    ),
    "Streak: {count} day (longest {longest}).": (
        "Serie: {count} Tag (längste {longest}).",
        "Serie: {count} Tage (längste {longest}).",
    ),
    "{percent}%": "{percent} %",
    ("unit", "min"): "Min.",
    ("unit", "s"): "Sek.",
    "Statistics: {deck}, {period}": "Statistik: {deck}, {period}",
    "so far": "bisher",
}


def test_todays_reading_takes_the_form_its_count_asks_for(
    database: Database, tiny: dict[str, int]
) -> None:
    add(database, tiny["q1"], at("2026-01-05 08:00"), Rating.GOOD, duration_ms=65_000)
    one = collect(database, at("2026-01-05 12:00"))
    add(database, tiny["b1"], at("2026-01-05 09:00"), Rating.AGAIN, duration_ms=5_000)
    two = collect(database, at("2026-01-05 12:00"))

    with installed(GERMAN):
        assert report.today_reading(one) == (
            "Heute hast du 1 Karte in 1 Min. 5 Sek. gelernt, 100 % richtig, 0-mal Nochmal. "
            "Serie: 1 Tag (längste 1)."
        )
        assert report.today_reading(two).startswith("Heute hast du 2 Karten in 1 Min. 10 Sek.")
        assert stats.text_report(two).startswith("Statistik: Tiny deck, bisher")
    assert report.today_reading(one).startswith("Today you studied 1 card in 1 min 5 s")
