"""Statistics figures against hand-computed values on small fixed histories."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from recall import stats
from recall.changes import decks as deck_changes
from recall.collection import browse, importing, opening
from recall.collection.custom_study import CustomStudy, SessionRequest
from recall.content.deck_format import parse_deck
from recall.core import days
from recall.core.memory import CardState, MemoryState, Rating, ReviewKind
from recall.core.preferences import Preferences
from recall.scheduling import Scheduler, Schedulers
from recall.stats import report
from recall.stats.local_time import day_date, day_number, local_time
from recall.stats.schedules import collect_forecast, collect_schedules
from recall.storage import Database
from recall.storage.records import NewReview
from recall.storage.statistics import LocalTime
from recall.study.custom import SessionKind
from recall.study.session import StudySession
from tests.conftest import DATA

BERLIN = ZoneInfo("Europe/Berlin")
SETTINGS = Preferences()


def at(text: str) -> datetime:
    """A Berlin wall-clock time ("2026-03-29 04:30") as aware UTC."""
    return datetime.fromisoformat(text).replace(tzinfo=BERLIN).astimezone(UTC)


@pytest.fixture
def tiny(database: Database) -> dict[str, int]:
    """The tiny deck (a choice card q1 and a basic card b1) with a third card added; ids."""
    deck = json.loads((DATA / "decks" / "tiny.json").read_text())
    extra = {
        "id": "q2",
        "type": "choice",
        "question": "Three plus three?",
        "choices": [{"text": "5"}, {"text": "6", "correct": True}, {"text": "9"}],
    }
    deck["cards"].append(extra)
    importing.import_deck(
        database, parse_deck(json.dumps(deck), "tiny.json"), at("2026-01-01 12:00")
    )
    with database.reading() as transaction:
        row = transaction.decks.by_key("tiny")
        assert row is not None
        return {key: value.id for key, value in transaction.cards.keys(row.id).items()}


def add(
    database: Database,
    card: int,
    when: datetime,
    rating: Rating,
    state: CardState = CardState.REVIEW,
    picked: tuple[str, ...] | None = None,
    proposed: Rating | None = None,
    duration_ms: int = 4000,
) -> None:
    with database.transaction() as transaction:
        transaction.history.add(
            NewReview.rated(
                card_id=card,
                reviewed_at=when,
                rating=rating,
                duration_ms=duration_ms,
                state_before=state,
                picked=picked,
                proposed=proposed,
            )
        )


def collect(database: Database, now: datetime, period: int | None = None) -> stats.Statistics:
    return stats.collect(database, SETTINGS, now, "tiny", period, zone=BERLIN)


# The study day and local time


def test_the_offset_segments_follow_berlin_into_summer_time() -> None:
    local = local_time(at("2026-03-20 12:00"), at("2026-04-05 12:00"), 4, BERLIN)
    assert [offset for _, offset in local.offsets] == [3_600_000_000, 7_200_000_000]
    change = datetime(2026, 3, 29, 1, 0, tzinfo=UTC)
    assert local.offsets[1][0] == int(change.timestamp() * 1_000_000)


@pytest.mark.parametrize(
    "wall",
    [
        "2026-03-28 03:59",
        "2026-03-28 04:00",
        "2026-03-29 01:30",
        "2026-03-29 03:30",
        "2026-03-29 04:30",
        "2026-10-25 02:30",
        "2026-10-25 03:59",
        "2026-10-25 04:00",
    ],
)
def test_day_numbers_agree_with_the_study_day(wall: str) -> None:
    moment = at(wall)
    local = local_time(moment - timedelta(days=3), moment + timedelta(days=3), 4, BERLIN)
    start, _ = days.study_day(moment, 4, BERLIN)
    assert day_date(day_number(moment, local, BERLIN)) == start.astimezone(BERLIN).date()


def test_one_offset_needs_no_case_expression() -> None:
    local = LocalTime(offsets=((0, 3_600_000_000),), rollover_hour=4)
    assert "CASE" not in local.day("t")


# True retention


def test_true_retention_counts_each_cards_first_review_of_the_study_day_across_dst(
    database: Database, tiny: dict[str, int]
) -> None:
    young, mature = tiny["q1"], tiny["q2"]
    # Young: learned on 20 March, then reviewed around the night summer time begins.
    add(database, young, at("2026-03-20 10:00"), Rating.GOOD, CardState.NEW)
    add(database, young, at("2026-03-28 23:00"), Rating.GOOD)  # counted: passed
    add(database, young, at("2026-03-29 03:30"), Rating.AGAIN)  # same study day: not counted
    add(database, young, at("2026-03-29 04:30"), Rating.AGAIN)  # a new study day: failed
    add(database, young, at("2026-03-29 04:40"), Rating.GOOD, CardState.RELEARNING)  # relearning
    # Mature: 30 days since its previous review.
    add(database, mature, at("2026-02-27 09:00"), Rating.GOOD, CardState.NEW)
    add(database, mature, at("2026-03-29 09:00"), Rating.GOOD)  # passed
    add(database, mature, at("2026-03-29 09:30"), Rating.AGAIN)  # second of the day: not counted

    figures = collect(database, at("2026-03-29 20:00"))

    table = {row.window: row for row in figures.retention}
    today = table["today"]
    assert (today.young.passed, today.young.failed) == (0, 1)
    assert (today.mature.passed, today.mature.failed) == (1, 0)
    yesterday = table["yesterday"]
    assert (yesterday.young.passed, yesterday.young.failed) == (1, 0)
    assert (yesterday.mature.passed, yesterday.mature.failed) == (0, 0)
    everything = table["all time"].all
    assert (everything.passed, everything.failed) == (2, 1)
    assert everything.rate == pytest.approx(2 / 3)
    assert stats.to_json(figures)["true_retention"]["all"] == {
        "passed": 2,
        "failed": 1,
        "rate": pytest.approx(2 / 3),
    }
    # Reviews by kind: two of new cards, one relearning; a review card is young or mature by
    # the time since its previous review, so the 09:30 one (30 minutes on) is young.
    kinds = stats.to_json(figures)["reviews"]["by_kind"]
    assert kinds == {"learning": 2, "young": 4, "mature": 1, "relearning": 1}


def test_a_fixed_offset_would_have_put_the_0430_review_on_the_day_before(
    database: Database, tiny: dict[str, int]
) -> None:
    """Guards the test above: in winter time 04:30 summer time is 03:30, before the rollover."""
    moment = at("2026-03-29 04:30")
    winter_only = LocalTime(offsets=((0, 3_600_000_000),), rollover_hour=4)
    dst_aware = local_time(moment - timedelta(days=2), moment, 4, BERLIN)
    assert day_number(moment, dst_aware, BERLIN) == day_number(
        at("2026-03-29 12:00"), dst_aware, BERLIN
    )
    naive_day = (int(moment.timestamp() * 1_000_000) + 3_600_000_000 - 4 * 3_600_000_000) // (
        86_400_000_000
    )
    assert day_date(naive_day) == day_date(day_number(moment, dst_aware, BERLIN)) - timedelta(
        days=1
    )
    assert winter_only.offsets != dst_aware.offsets


# Streaks, today, calendar


def test_streaks_with_gaps(database: Database, tiny: dict[str, int]) -> None:
    card = tiny["q1"]
    for wall in (
        "2026-01-01 10:00",
        "2026-01-02 10:00",
        "2026-01-03 23:00",
        "2026-01-04 02:00",  # before 4 am: still 3 January's study day
        "2026-01-06 10:00",
        "2026-01-07 10:00",
        "2026-01-09 10:00",
        "2026-01-10 10:00",
    ):
        add(database, card, at(wall), Rating.GOOD)

    in_the_morning = collect(database, at("2026-01-11 09:00"))  # nothing yet today
    assert (in_the_morning.streak.current, in_the_morning.streak.longest) == (2, 3)
    same_evening = collect(database, at("2026-01-10 22:00"))
    assert same_evening.streak.current == 2
    assert same_evening.today.reviews == 1
    two_days_later = collect(database, at("2026-01-12 09:00"))
    assert (two_days_later.streak.current, two_days_later.streak.longest) == (0, 3)
    calendar = dict(two_days_later.calendar)
    assert len(two_days_later.calendar) == 365
    assert calendar[datetime(2026, 1, 3).date()] == 2
    assert calendar[datetime(2026, 1, 4).date()] == 0
    assert sum(calendar.values()) == 8


def test_today_counts_cards_time_right_answers_and_again(
    database: Database, tiny: dict[str, int]
) -> None:
    add(database, tiny["q1"], at("2026-01-05 03:00"), Rating.GOOD)  # the day before
    add(database, tiny["q1"], at("2026-01-05 08:00"), Rating.AGAIN, duration_ms=6000)
    add(database, tiny["q1"], at("2026-01-05 08:10"), Rating.GOOD, CardState.RELEARNING)
    add(database, tiny["b1"], at("2026-01-05 09:00"), Rating.EASY, duration_ms=2000)

    today = collect(database, at("2026-01-05 12:00")).today

    assert (today.cards, today.reviews, today.correct, today.again) == (2, 3, 2, 1)
    assert today.time_ms == 12_000


def test_today_in_words_agrees_with_one_card_and_one_day(
    database: Database, tiny: dict[str, int]
) -> None:
    add(database, tiny["q1"], at("2026-01-05 08:00"), Rating.GOOD, duration_ms=65_000)

    figures = collect(database, at("2026-01-05 12:00"))

    assert report.today_reading(figures) == (
        "Today you studied 1 card in 1 min 5 s, 100% right, 0 Again. Streak: 1 day (longest 1)."
    )
    assert report.reviews_reading(figures) == "1 review so far, 1.0 a day, 1 min 5 s in all."


def _cram(database: Database, card_ids: tuple[int, ...], when: datetime) -> None:
    """Cram these cards once each, as the window's cram session does, from ``when`` on."""
    finder = browse.Finder(database, Scheduler(), SETTINGS, BERLIN)
    custom = CustomStudy(database, Schedulers(), finder)
    queue = custom.build(SessionRequest(SessionKind.CRAM, card_ids=card_ids), when)
    session = StudySession(database, Schedulers(), "", zone=BERLIN, custom=queue)
    for _ in card_ids:
        shown = session.next_card(when)
        assert shown is not None
        when += timedelta(seconds=5)
        session.record(session.reveal(shown, when), Rating.AGAIN, when)


def test_cram_answers_today_are_counted_apart_and_change_no_other_figure(
    database: Database, tiny: dict[str, int]
) -> None:
    add(database, tiny["q1"], at("2026-01-05 08:00"), Rating.GOOD, CardState.NEW)
    add(database, tiny["q2"], at("2026-01-05 08:10"), Rating.AGAIN, CardState.NEW)
    now = at("2026-01-05 12:00")
    before = collect(database, now)
    _cram(database, (tiny["q1"],), at("2026-01-04 09:00"))  # yesterday: not today's
    _cram(database, (tiny["q1"], tiny["q2"]), at("2026-01-05 09:00"))

    after = collect(database, now)

    assert (before.today.cram, after.today.cram) == (0, 2)
    expected = stats.to_json(before)
    expected["today"]["cram_answers"] = 2
    # Retention, the review counts, FSRS's figures: all as they were without the cram answers.
    assert stats.to_json(after) == expected
    assert report.today_reading(after) == (
        "Today you studied 2 cards in 8 s, 50% right, 1 Again. 2 cram answers besides, which "
        "move no due date. Streak: 1 day (longest 1)."
    )
    assert stats.to_json(collect(database, at("2026-01-06 12:00")))["today"]["cram_answers"] == 0


# Forecast and card counts


def test_forecast_counts_cards_due_per_study_day(database: Database, tiny: dict[str, int]) -> None:
    now = at("2026-01-05 12:00")
    dues = {
        "q1": at("2026-01-05 20:00"),  # today
        "q2": at("2026-01-07 03:00"),  # before 4 am: 6 January's study day
        "b1": at("2026-01-02 10:00"),  # overdue
    }
    with database.transaction() as transaction:
        for key, due in dues.items():
            transaction.cards.set_memory(
                tiny[key],
                MemoryState(CardState.REVIEW, None, 10.0, 5.0, due, due - timedelta(days=10)),
            )

    figures = collect(database, now, 30)

    assert len(figures.forecast.days) == 30
    assert len(collect(database, now, None).forecast.days) == 365  # all time: a year ahead
    assert figures.forecast.days[:3] == (1, 1, 0)
    assert sum(figures.forecast.days) == 2
    assert figures.forecast.overdue == 1
    assert figures.forecast.cumulative[:3] == (2, 3, 3)
    assert figures.cards.young == 3
    assert figures.distributions.interval.average == pytest.approx(10.0)
    assert figures.distributions.stability.cards == 3


def test_card_counts_split_young_and_mature_by_interval(
    database: Database, tiny: dict[str, int]
) -> None:
    now = at("2026-01-05 12:00")
    with database.transaction() as transaction:
        transaction.cards.set_memory(
            tiny["q1"],
            MemoryState(
                CardState.REVIEW, None, 40.0, 5.0, now + timedelta(days=25), now - timedelta(days=5)
            ),
        )
        transaction.cards.set_memory(
            tiny["q2"],
            MemoryState(CardState.LEARNING, 0, 1.0, 5.0, now, now - timedelta(minutes=5)),
        )
    cards = collect(database, now).cards
    assert (cards.new, cards.learning, cards.young, cards.mature) == (1, 1, 0, 1)


# Ratings


def test_ratings_count_how_often_the_proposed_rating_was_changed(
    database: Database, tiny: dict[str, int]
) -> None:
    card = tiny["b1"]
    add(database, card, at("2026-01-05 08:00"), Rating.GOOD)  # an older review: no proposal
    add(database, card, at("2026-01-05 08:01"), Rating.GOOD, proposed=Rating.GOOD)
    add(database, card, at("2026-01-05 08:02"), Rating.EASY, proposed=Rating.GOOD)
    add(database, card, at("2026-01-05 08:03"), Rating.HARD, proposed=Rating.GOOD)
    add(database, card, at("2026-01-05 08:04"), Rating.AGAIN, proposed=Rating.GOOD)

    ratings = collect(database, at("2026-01-05 12:00")).ratings

    assert ratings.counts == (1, 1, 2, 1)
    assert (ratings.proposed_known, ratings.changed, ratings.raised, ratings.lowered) == (
        4,
        3,
        1,
        2,
    )


def test_hours_and_ratings_count_the_period_from_its_first_study_day(
    database: Database, tiny: dict[str, int]
) -> None:
    card = tiny["b1"]
    # The 7-day period ending on 10 Jan starts with the study day of 4 Jan at 4 am.
    add(database, card, at("2026-01-04 03:59"), Rating.AGAIN)  # still 3 Jan's study day
    add(database, card, at("2026-01-04 04:00"), Rating.HARD, proposed=Rating.GOOD)
    add(database, card, at("2026-01-10 22:00"), Rating.GOOD, proposed=Rating.GOOD)

    week = collect(database, at("2026-01-10 23:00"), period=7)
    assert week.ratings.counts == (0, 1, 1, 0)
    assert (week.ratings.proposed_known, week.ratings.changed) == (2, 1)
    assert [(hour.hour, hour.reviews) for hour in week.hours if hour.reviews] == [(4, 1), (22, 1)]
    whole = collect(database, at("2026-01-10 23:00"))
    assert whole.ratings.counts == (1, 1, 1, 0)
    assert sum(hour.reviews for hour in whole.hours) == 3
    assert whole.hours[3].reviews == 1


def test_hours_are_local_hours(database: Database, tiny: dict[str, int]) -> None:
    add(database, tiny["q1"], at("2026-03-28 09:15"), Rating.GOOD)  # winter time
    add(database, tiny["q1"], at("2026-03-30 09:45"), Rating.AGAIN)  # summer time
    hours = collect(database, at("2026-03-30 12:00")).hours
    assert (hours[9].reviews, hours[9].correct) == (2, 1)
    assert sum(hour.reviews for hour in hours) == 2


# Misconceptions


def test_misconceptions_rank_wrong_options_and_say_if_still_picked(
    database: Database, tiny: dict[str, int]
) -> None:
    q2 = tiny["q2"]
    add(database, q2, at("2026-01-05 10:00"), Rating.AGAIN, CardState.NEW, picked=("5",))
    add(database, q2, at("2026-01-06 10:00"), Rating.AGAIN, CardState.RELEARNING, picked=("9",))
    add(database, q2, at("2026-01-07 10:00"), Rating.AGAIN, CardState.RELEARNING, picked=("5",))
    add(database, tiny["q1"], at("2026-01-07 11:00"), Rating.AGAIN, CardState.NEW, picked=("3",))
    add(
        database,
        tiny["q1"],
        at("2026-01-08 11:00"),
        Rating.GOOD,
        CardState.RELEARNING,
        picked=("4",),
    )

    found = collect(database, at("2026-01-08 12:00")).misconceptions

    summary = [(m.card_key, m.choice, m.times, m.still) for m in found]
    # Most picked first; ties by the latest pick.
    assert summary == [("q2", "5", 2, True), ("q1", "3", 1, False), ("q2", "9", 1, False)]
    assert found[0].last == at("2026-01-07 10:00")
    assert found[0].question == "Three plus three?"
    with database.reading() as transaction:
        per_card = transaction.statistics.option_picks(q2)
    assert [(text, times) for text, times, _ in per_card] == [("5", 2), ("9", 1)]


def test_an_empty_history_gives_zeros_not_errors(database: Database, tiny: dict[str, int]) -> None:
    figures = collect(database, at("2026-01-05 12:00"), None)
    assert figures.totals.reviews == 0
    assert figures.streak.current == 0
    assert figures.retention[-1].all.rate is None
    assert figures.distributions.interval.average is None
    assert stats.text_report(figures).startswith("Statistics: Tiny deck")


def test_periods_cut_the_reviews_chart(database: Database, tiny: dict[str, int]) -> None:
    add(database, tiny["q1"], at("2026-01-05 10:00"), Rating.GOOD)
    add(database, tiny["q1"], at("2025-06-01 10:00"), Rating.GOOD)
    month = collect(database, at("2026-01-05 12:00"), 30)
    assert (len(month.reviews), month.by_week, month.totals.reviews) == (30, False, 1)
    year = collect(database, at("2026-01-05 12:00"), 365)
    assert year.by_week
    assert year.reviews[-1].day == datetime(2025, 12, 30).date()
    assert year.totals.reviews == 2
    assert sum(sum(bar.reviews) for bar in year.reviews) == 2
    everything = collect(database, at("2026-01-05 12:00"), None)
    assert everything.totals.reviews == 2


def test_an_unknown_deck_is_refused(database: Database, tmp_path: Path) -> None:
    from recall.core.errors import UnknownDeckError

    with pytest.raises(UnknownDeckError):
        stats.collect(database, SETTINGS, at("2026-01-05 12:00"), "nope")


def test_one_deck_counts_only_its_own_history(database: Database, tiny: dict[str, int]) -> None:
    opening.install_bundled_decks(database, at("2026-01-01 12:00"))
    with database.reading() as transaction:
        bundled = transaction.decks.by_key("activation-recompute")
        assert bundled is not None
        other = next(iter(transaction.cards.keys(bundled.id).values())).id
    add(database, tiny["q1"], at("2026-01-05 10:00"), Rating.GOOD, CardState.NEW)
    add(database, other, at("2026-01-05 10:05"), Rating.AGAIN, CardState.NEW, picked=("x",))
    add(database, other, at("2026-01-06 10:05"), Rating.GOOD)
    now = at("2026-01-06 12:00")

    mine = collect(database, now, None)
    everything = stats.collect(database, SETTINGS, now, None, None, zone=BERLIN)

    assert (mine.totals.reviews, everything.totals.reviews) == (1, 3)
    assert mine.today.reviews == 0
    assert everything.today.reviews == 1
    assert mine.cards.total == 3
    assert everything.cards.total == 3 + 8
    assert everything.deck_name == "All decks"


def test_a_deck_counts_its_subdecks_history_too(database: Database, tiny: dict[str, int]) -> None:
    opening.install_bundled_decks(database, at("2026-01-01 12:00"))
    with database.reading() as transaction:
        tiny_deck = transaction.decks.by_key("tiny")
        bundled = transaction.decks.by_key("activation-recompute")
        assert tiny_deck is not None
        assert bundled is not None
        other = next(iter(transaction.cards.keys(bundled.id).values())).id
    deck_changes.rename_deck(database, bundled.id, "Tiny deck::Inside", at("2026-01-02 12:00"))
    add(database, tiny["q1"], at("2026-01-05 10:00"), Rating.GOOD, CardState.NEW)
    add(database, other, at("2026-01-05 10:05"), Rating.AGAIN, CardState.NEW, picked=("x",))
    now = at("2026-01-06 12:00")

    parent = collect(database, now, None)
    child = stats.collect(database, SETTINGS, now, "activation-recompute", None, zone=BERLIN)

    assert (parent.totals.reviews, child.totals.reviews) == (2, 1)
    assert (parent.cards.total, child.cards.total) == (3 + 8, 8)
    assert [pick.choice for pick in parent.misconceptions] == ["x"]
    assert parent.deck_name == "Tiny deck"


def test_the_schedules_alone_agree_with_the_full_statistics(
    database: Database, tiny: dict[str, int]
) -> None:
    now = at("2026-01-05 12:00")
    with database.transaction() as transaction:
        transaction.cards.set_memory(
            tiny["q1"],
            MemoryState(CardState.REVIEW, None, 12.0, 6.0, now + timedelta(days=3), now),
        )
    add(database, tiny["q1"], now - timedelta(hours=1), Rating.GOOD, CardState.NEW)
    for period in (30, None):
        full = collect(database, now, period)
        quick = collect_schedules(database, SETTINGS, now, "tiny", period, zone=BERLIN)
        assert (quick.forecast, quick.cards, quick.distributions) == (
            full.forecast,
            full.cards,
            full.distributions,
        )
        assert (quick.deck_name, quick.today_date) == ("Tiny deck", full.today_date)
        first = collect_forecast(database, SETTINGS, now, "tiny", period, zone=BERLIN)
        assert (first.forecast, first.today_date) == (full.forecast, full.today_date)
    assert quick.forecast.days[3] == 1


def test_changes_made_by_hand_are_not_reviews_and_suspended_cards_are_counted_apart(
    database: Database, tiny: dict[str, int]
) -> None:
    now = at("2026-01-05 12:00")
    add(database, tiny["q1"], at("2026-01-05 09:00"), Rating.GOOD, CardState.NEW)
    with database.transaction() as transaction:
        # A forget from the card browser: an entry of the history, not an answer.
        transaction.browsing.add_entry(
            tiny["q1"], ReviewKind.FORGET, at("2026-01-05 10:00"), int(CardState.LEARNING), None
        )
        due = now + timedelta(days=2)
        transaction.cards.set_memory(
            tiny["q2"], MemoryState(CardState.REVIEW, None, 5.0, 5.0, due, now)
        )
        transaction.sql.run("UPDATE card_memory SET suspended = 1 WHERE card_id = ?", (tiny["q2"],))

    figures = collect(database, now, 30)

    assert (figures.totals.reviews, figures.today.reviews, figures.ratings.counts) == (
        1,
        1,
        (0, 0, 1, 0),
    )
    assert figures.cards.suspended == 1
    assert figures.cards.young == 0
    assert sum(figures.forecast.days) == 0  # a suspended card is not coming due
