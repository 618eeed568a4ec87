"""Gathering the statistics: a few grouped queries, then sums over their (few) groups."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date, datetime, timedelta, tzinfo

from recall.core import days
from recall.core.memory import Rating
from recall.core.preferences import Preferences
from recall.scheduling import Schedulers
from recall.stats.figures import (
    RETENTION_DAYS,
    RETENTION_WINDOWS,
    DayReviews,
    FollowUpFigures,
    HourCount,
    Misconception,
    Ratings,
    Retention,
    RetentionRow,
    Statistics,
    Streak,
    Today,
    Totals,
)
from recall.stats.local_time import day_date, day_number, local_time
from recall.stats.schedules import deck_ids_of, forecast_length, read_schedules
from recall.storage import Database
from recall.storage.statistics import (
    KIND_MATURE,
    KIND_YOUNG,
    AnswerGroup,
    DayGroup,
    LocalTime,
)
from recall.storage.study_days import local_key
from recall.storage.times import to_micros
from recall.study.follow_up_summary import Kept, bring_up_to_date

CALENDAR_DAYS = 365
WEEKLY_FROM_DAYS = 92
"""Periods longer than this draw one reviews bar per week instead of per day."""
MISCONCEPTIONS_SHOWN = 50


def collect(
    database: Database,
    settings: Preferences,
    now: datetime,
    deck_key: str | None = None,
    period_days: int | None = 30,
    zone: tzinfo | None = None,
    forecast_days: int | None = None,
    schedulers: Schedulers | None = None,
) -> Statistics:
    """Every figure of the statistics for one deck (or all) over a period ending today.

    Args:
        database: Where the history is.
        settings: For the day rollover hour and FSRS's forgetting curve.
        now: The current time, aware UTC.
        deck_key: Only this deck (its file id); None for every deck.
        period_days: Study days the period covers, today included; None for all time.
        zone: The learner's time zone; None is the system's.
        forecast_days: Days ahead the forecast covers; defaults to the period's length
            (a year for all time; at least 30, at most 365).
        schedulers: Accepted as before; the follow-ups' standings come from the kept
            summary (``study.follow_up_summary``), which no fuzz setting changes.

    Raises:
        UnknownDeckError: ``deck_key`` names no deck.
    """
    hour = settings.day_rollover_hour
    today_start, today_end = days.study_day(now, hour, zone)
    with database.reading() as transaction:
        # The first review of all (the head of the time index) bounds the offsets needed.
        first = min(transaction.statistics.first_review() or now, now)
    calendar_start = today_start - timedelta(days=CALENDAR_DAYS + 1)
    farthest = today_start + timedelta(days=max(CALENDAR_DAYS, forecast_days or 0) + 1)
    local = local_time(min(first, calendar_start), farthest, hour, zone)
    # The answers counted by study day, counted again where answers changed since.
    _bring_counts_up_to_date(database, local, local_key(local, _us(first), _us(now)))
    bring_up_to_date(database)  # the follow-ups' kept summary
    with database.reading() as transaction:
        deck_ids, deck_name = deck_ids_of(transaction, deck_key)
        queries = transaction.statistics
        today_number = day_number(now, local, zone)
        # The days' groups, and the period's hours and ratings, summed from those counts.
        since_day = None if period_days is None else today_number - max(1, period_days) + 1
        groups, answers = transaction.study_days.groups(since_day, deck_ids)
        if period_days is None:
            span = today_number - min((group.day for group in groups), default=today_number) + 1
        else:
            span = max(1, period_days)
        period_first = today_number - span + 1
        today_cards = queries.cards_reviewed(today_start, today_end, deck_ids)
        today_cram = queries.cram_answers(today_start, today_end, deck_ids)
        ahead = forecast_length(period_days, forecast_days)
        schedules = read_schedules(
            queries, local, now, today_number, ahead, settings, zone, deck_ids
        )
        picks = queries.wrong_picks(deck_ids, limit=MISCONCEPTIONS_SHOWN)
        kept = Kept(transaction, transaction.options.deck_presets(), store=False)
        # Counted in SQL; only the misconceptions shown have their follow-ups read.
        standings = kept.standing_counts(deck_ids)
        standing = kept.standings([pick.card_id for pick in picks])
        follow_up_answers, follow_up_wrong = transaction.follow_ups.answers(deck_ids)
    in_period = [group for group in groups if group.day >= period_first]
    # What the seven retention figures count, picked out once instead of in each.
    firsts = [g for g in groups if g.first_of_day and g.kind in (KIND_YOUNG, KIND_MATURE)]
    return Statistics(
        now=now,
        today_date=day_date(today_number),
        deck_key=deck_key,
        deck_name=deck_name,
        period_days=span,
        whole_history=period_days is None,
        today=_today(groups, today_number, today_cards, today_cram),
        streak=_streak({group.day for group in groups}, today_number),
        forecast=schedules.forecast,
        calendar=_calendar(groups, today_number),
        reviews=_review_bars(in_period, period_first, today_number, span > WEEKLY_FROM_DAYS),
        by_week=span > WEEKLY_FROM_DAYS,
        totals=_totals(in_period),
        cards=schedules.cards,
        distributions=schedules.distributions,
        retention=tuple(
            _retention(firsts, name, today_number, window)
            for name, window in zip(RETENTION_WINDOWS, RETENTION_DAYS, strict=True)
        ),
        period_retention=_retention(
            firsts, "period", today_number, None if period_days is None else span
        ),
        hours=_hours(answers),
        ratings=_ratings(answers),
        misconceptions=tuple(
            Misconception(
                deck_key=pick.deck_key,
                card_id=pick.card_id,
                card_key=pick.card_key,
                question=pick.question,
                choice=pick.choice,
                times=pick.times,
                last=pick.last,
                still=pick.still,
                follow_up=standing.get((pick.card_id, pick.choice), ""),
            )
            for pick in picks
        ),
        follow_ups=FollowUpFigures(
            persisting=standings["persisting"],
            fading=standings["fading"],
            faded=standings["faded"],
            answers=follow_up_answers,
            wrong=follow_up_wrong,
        ),
    )


def _bring_counts_up_to_date(database: Database, local: LocalTime, key: str) -> None:
    """Count again what is stale: read and counted in a read transaction, so answering in
    the meantime never waits for it, then stored in a short write transaction; if answers
    changed in between, again, and at the third time under the write lock."""
    for _attempt in range(2):
        with database.reading() as transaction:
            recount = transaction.study_days.recount(local, key)
            if recount is None:
                return
            counted = transaction.study_days.count(local, recount)
        with database.transaction() as transaction:
            if transaction.study_days.store(recount, counted):
                return
    with database.transaction() as transaction:
        transaction.study_days.bring_up_to_date(local, key)


def _us(moment: datetime) -> int:
    value = to_micros(moment)
    assert value is not None
    return value


def _today(groups: Iterable[DayGroup], today: int, cards: int, cram: int) -> Today:
    todays = [group for group in groups if group.day == today]
    totals = _totals(todays)
    return Today(
        cards=cards,
        reviews=totals.reviews,
        time_ms=totals.time_ms,
        correct=totals.correct,
        again=totals.again,
        cram=cram,
    )


def _totals(groups: Iterable[DayGroup]) -> Totals:
    reviews = correct = again = time_ms = 0
    for group in groups:
        reviews += group.reviews
        correct += group.reviews if group.correct else 0
        again += group.reviews if group.rating == Rating.AGAIN else 0
        time_ms += group.time_ms
    return Totals(reviews=reviews, correct=correct, again=again, time_ms=time_ms)


def _streak(studied: set[int], today: int) -> Streak:
    current = 0
    day = today if today in studied else today - 1
    while day in studied:
        current += 1
        day -= 1
    longest = run = 0
    previous = None
    for day in sorted(studied):
        run = run + 1 if previous == day - 1 else 1
        longest = max(longest, run)
        previous = day
    return Streak(current=current, longest=longest)


def _calendar(groups: Iterable[DayGroup], today: int) -> tuple[tuple[date, int], ...]:
    per_day = [0] * CALENDAR_DAYS
    first = today - CALENDAR_DAYS + 1
    for group in groups:
        if group.day >= first and group.day <= today:
            per_day[group.day - first] += group.reviews
    return tuple((day_date(first + index), count) for index, count in enumerate(per_day))


def _review_bars(
    groups: Iterable[DayGroup], first: int, today: int, weekly: bool
) -> tuple[DayReviews, ...]:
    width = 7 if weekly else 1
    bars = (today - first) // width + 1
    # Bars end at today: the oldest bar may reach before the period (a partial week).
    start = today - bars * width + 1
    reviews = [[0, 0, 0, 0] for _ in range(bars)]
    time_ms = [[0, 0, 0, 0] for _ in range(bars)]
    for group in groups:
        index = (group.day - start) // width
        if 0 <= index < bars:
            reviews[index][group.kind] += group.reviews
            time_ms[index][group.kind] += group.time_ms
    return tuple(
        DayReviews(
            day=day_date(start + index * width),
            reviews=(r[0], r[1], r[2], r[3]),
            time_ms=(t[0], t[1], t[2], t[3]),
        )
        for index, (r, t) in enumerate(zip(reviews, time_ms, strict=True))
    )


def _retention(
    groups: Iterable[DayGroup], name: str, today: int, window: int | None
) -> RetentionRow:
    """True retention: each review card's first review of a study day, Again failing it."""
    last = today - 1 if name == "yesterday" else today
    first = None if window is None else last - window + 1
    cells = {KIND_YOUNG: [0, 0], KIND_MATURE: [0, 0]}
    for group in groups:
        if group.kind not in cells or not group.first_of_day or group.day > last:
            continue
        if first is not None and group.day < first:
            continue
        cells[group.kind][0 if group.rating > Rating.AGAIN else 1] += group.reviews
    young, mature = cells[KIND_YOUNG], cells[KIND_MATURE]
    return RetentionRow(window=name, young=Retention(*young), mature=Retention(*mature))


def _hours(answers: Iterable[AnswerGroup]) -> tuple[HourCount, ...]:
    reviews, correct = [0] * 24, [0] * 24
    for answer in answers:
        reviews[answer.hour] += answer.reviews
        correct[answer.hour] += answer.reviews if answer.correct else 0
    return tuple(HourCount(hour, reviews[hour], correct[hour]) for hour in range(24))


def _ratings(answers: Iterable[AnswerGroup]) -> Ratings:
    counts = [0, 0, 0, 0]
    known = changed = raised = 0
    for answer in answers:
        given, proposed, count = answer.rating, answer.proposed, answer.reviews
        counts[given - 1] += count
        if proposed is not None:
            known += count
            if proposed != given:
                changed += count
                raised += count if given > proposed else 0
    return Ratings(
        counts=(counts[0], counts[1], counts[2], counts[3]),
        proposed_known=known,
        changed=changed,
        raised=raised,
    )
