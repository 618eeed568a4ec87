"""The statistics in words: a one-line reading per section, the terminal report, and JSON."""

from __future__ import annotations

import math
from typing import Any

from recall.core import i18n
from recall.core.i18n import mark, tr, trn
from recall.core.wording import duration, number, percent
from recall.stats.figures import (
    KINDS,
    Coming,
    Histogram,
    Retention,
    RetentionRow,
    Schedules,
    Statistics,
)

RATING_NAMES = (mark("Again"), mark("Hard"), mark("Good"), mark("Easy"))
"""The ratings' names: English in JSON, translated where shown (``i18n.tr``)."""
# The true retention table's rows (``RETENTION_WINDOWS``) as a reader sees them.
WINDOW_NAMES = {
    "today": mark("Today"),
    "yesterday": mark("Yesterday"),
    "last 7 days": mark("Last 7 days"),
    "last 30 days": mark("Last 30 days"),
    "last year": mark("Last year"),
    "all time": mark("All time"),
}
# The same rows, and the follow-up states, as the terminal report writes them.
WINDOW_WORDS = {
    "today": mark("today"),
    "yesterday": mark("yesterday"),
    "last 7 days": mark("last 7 days"),
    "last 30 days": mark("last 30 days"),
    "last year": mark("last year"),
    "all time": mark("all time"),
}
FOLLOW_UP_STATES = {
    "persisting": mark("persisting"),
    "fading": mark("fading"),
    "faded": mark("faded"),
}


def period_name(stats: Statistics) -> str:
    """The period as the readings name it."""
    if stats.whole_history:
        return tr("so far")
    days = stats.period_days
    names = {1: tr("today"), 7: tr("this week"), 30: tr("this month"), 91: tr("these 3 months")}
    if days in names:
        return names[days]
    return tr("this year") if days == 365 else tr("over {days} days").format(days=days)


def window_name(window: str) -> str:
    """A row of the true retention table as shown: "Last 7 days"."""
    return i18n.tr(WINDOW_NAMES.get(window, window.capitalize()))


def today_reading(stats: Statistics) -> str:
    """Section 1: today's work and the streak."""
    today, streak = stats.today, stats.streak
    run = trn(
        "Streak: {count} day (longest {longest}).",
        "Streak: {count} days (longest {longest}).",
        streak.current,
    ).format(count=number(streak.current), longest=streak.longest)
    cram = (
        " "
        + trn(
            "{count} cram answer besides, which move no due date.",
            "{count} cram answers besides, which move no due date.",
            today.cram,
        ).format(count=number(today.cram))
        if today.cram
        else ""
    )
    if not today.reviews:
        return tr("No reviews yet today.") + f"{cram} {run}"
    studied = trn(
        "Today you studied {count} card in {time}, {right} right, {again} Again.",
        "Today you studied {count} cards in {time}, {right} right, {again} Again.",
        today.cards,
    ).format(
        count=number(today.cards),
        time=duration(today.time_ms),
        right=percent(today.share_correct),
        again=today.again,
    )
    return f"{studied}{cram} {run}"


def forecast_reading(stats: Statistics | Schedules | Coming) -> str:
    """Section 2: what is coming."""
    forecast = stats.forecast
    total = sum(forecast.days)
    tomorrow = forecast.days[1] if len(forecast.days) > 1 else 0
    figures = {
        "count": number(total),
        "days": len(forecast.days),
        "tomorrow": tomorrow,
        "overdue": forecast.overdue,
    }
    if forecast.overdue:
        return trn(
            "{count} card comes due in the next {days} days, {tomorrow} of them tomorrow; "
            "{overdue} overdue.",
            "{count} cards come due in the next {days} days, {tomorrow} of them tomorrow; "
            "{overdue} overdue.",
            total,
        ).format(**figures)
    return trn(
        "{count} card comes due in the next {days} days, {tomorrow} of them tomorrow.",
        "{count} cards come due in the next {days} days, {tomorrow} of them tomorrow.",
        total,
    ).format(**figures)


def calendar_reading(stats: Statistics) -> str:
    """Section 3: how many days of the last year had reviews."""
    studied = sum(1 for _, reviews in stats.calendar if reviews)
    return tr("You studied on {studied} of the last {days} days.").format(
        studied=studied, days=len(stats.calendar)
    )


def reviews_reading(stats: Statistics) -> str:
    """Section 4: reviews over the period."""
    totals = stats.totals
    if not totals.reviews:
        return tr("No reviews {period}.").format(period=period_name(stats))
    average = totals.reviews / stats.period_days
    return trn(
        "{count} review {period}, {average} a day, {time} in all.",
        "{count} reviews {period}, {average} a day, {time} in all.",
        totals.reviews,
    ).format(
        count=number(totals.reviews),
        period=period_name(stats),
        average=f"{average:.1f}",
        time=duration(totals.time_ms),
    )


def cards_reading(stats: Statistics | Schedules) -> str:
    """Section 5: where the cards are."""
    cards = stats.cards
    learning = cards.learning + cards.relearning
    return trn(
        "Of {count} card, {mature} mature, {young} young, {learning} learning and {new} new.",
        "Of {count} cards, {mature} mature, {young} young, {learning} learning and {new} new.",
        cards.total,
    ).format(
        count=number(cards.total),
        mature=cards.mature,
        young=cards.young,
        learning=learning,
        new=cards.new,
    )


def distributions_reading(stats: Statistics | Schedules) -> str:
    """Section 6: the estimated number of cards known, and the average interval."""
    known = stats.distributions.known
    interval = stats.distributions.interval.average
    if interval is None:
        return trn(
            "You would get about {count} card right if asked all of them now.",
            "You would get about {count} cards right if asked all of them now.",
            math.floor(known + 0.5),
        ).format(count=number(known))
    return trn(
        "You would get about {count} card right if asked all of them now; the average "
        "interval is {interval} days.",
        "You would get about {count} cards right if asked all of them now; the average "
        "interval is {interval} days.",
        math.floor(known + 0.5),
    ).format(count=number(known), interval=f"{interval:.1f}")


def retention_reading(stats: Statistics) -> str:
    """Section 7: true retention of mature cards over the period (young ones if none)."""
    row = stats.period_retention
    name = period_name(stats)
    if row.mature.rate is not None:
        return tr("You kept {share} of mature cards {period}.").format(
            share=percent(row.mature.rate), period=name
        )
    if row.young.rate is not None:
        return tr(
            "You kept {share} of young cards {period}; no mature card came up {period}."
        ).format(share=percent(row.young.rate), period=name)
    return tr("No review of a studied card yet: retention shows once cards come back.")


def hours_reading(stats: Statistics) -> str:
    """Section 8: the busiest hour and the best one."""
    busy = [hour for hour in stats.hours if hour.reviews]
    if not busy:
        return tr("No reviews {period}.").format(period=period_name(stats))
    most = max(busy, key=lambda hour: hour.reviews)
    best = max(busy, key=lambda hour: (hour.correct / hour.reviews, hour.reviews))
    if not best.correct:
        return tr("You review most at {hour}:00; no answer was right yet.").format(hour=most.hour)
    return tr("You review most at {hour}:00 and answer best at {best}:00 ({share} right).").format(
        hour=most.hour, best=best.hour, share=percent(best.correct / best.reviews)
    )


def ratings_reading(stats: Statistics) -> str:
    """Section 9: how often the proposed rating was changed."""
    ratings = stats.ratings
    if not sum(ratings.counts):
        return tr("No answers {period}.").format(period=period_name(stats))
    if not ratings.proposed_known:
        return tr("Older reviews did not record the rating Recall proposed; new ones will.")
    share = ratings.changed / ratings.proposed_known
    return tr(
        "You changed the proposed rating on {share} of answers ({raised} up, {lowered} down)."
    ).format(share=percent(share), raised=ratings.raised, lowered=ratings.lowered)


def histogram_reading(name: str, unit: str, histogram: Histogram) -> str:
    """One distribution's reading: how many cards and the average."""
    if histogram.average is None:
        return tr("{name}: no studied cards yet.").format(name=name)
    return trn(
        "{name}: {count} card, average {average}.",
        "{name}: {count} cards, average {average}.",
        histogram.cards,
    ).format(name=name, count=number(histogram.cards), average=f"{histogram.average:.2f}{unit}")


def to_json(stats: Statistics) -> dict[str, Any]:
    """The figures as ``recall stats --json`` prints them."""
    cards = stats.cards
    totals = stats.totals

    def cell(value: Retention) -> dict[str, Any]:
        return {"passed": value.passed, "failed": value.failed, "rate": value.rate}

    def row(value: RetentionRow) -> dict[str, Any]:
        return {"young": cell(value.young), "mature": cell(value.mature), "all": cell(value.all)}

    return {
        "deck": stats.deck_key,
        "period_days": stats.period_days,
        "today": {
            "cards": stats.today.cards,
            "reviews": stats.today.reviews,
            "correct": stats.today.correct,
            "again": stats.today.again,
            "time_ms": stats.today.time_ms,
            "cram_answers": stats.today.cram,
        },
        "cards": {
            "new": cards.new,
            "learning": cards.learning + cards.relearning,
            "young": cards.young,
            "mature": cards.mature,
            "suspended": cards.suspended,
        },
        "reviews": {
            "total": totals.reviews,
            "correct": totals.correct,
            "again": totals.again,
            "time_ms": totals.time_ms,
            "by_kind": {
                kind: sum(bar.reviews[index] for bar in stats.reviews)
                for index, kind in enumerate(KINDS)
            },
        },
        "true_retention": row(stats.period_retention),
        "true_retention_table": {item.window: row(item) for item in stats.retention},
        "forecast": list(stats.forecast.days[:30]),
        "overdue": stats.forecast.overdue,
        "streak": {"current": stats.streak.current, "longest": stats.streak.longest},
        "known_cards": round(stats.distributions.known, 2),
        "ratings": {
            "counts": dict(zip(RATING_NAMES, stats.ratings.counts, strict=True)),
            "proposed_known": stats.ratings.proposed_known,
            "changed": stats.ratings.changed,
        },
        "hours": [
            {"hour": hour.hour, "reviews": hour.reviews, "correct": hour.correct}
            for hour in stats.hours
        ],
        "misconceptions": [
            {
                "deck": item.deck_key,
                "card": item.card_key,
                "choice": item.choice,
                "times": item.times,
                "last": item.last.isoformat(),
                "still": item.still,
                "follow_up": item.follow_up or None,
            }
            for item in stats.misconceptions
        ],
        "follow_ups": {
            "persisting": stats.follow_ups.persisting,
            "fading": stats.follow_ups.fading,
            "faded": stats.follow_ups.faded,
            "answers": stats.follow_ups.answers,
            "wrong": stats.follow_ups.wrong,
        },
    }


def follow_ups_reading(stats: Statistics) -> str:
    """The follow-ups on misconceptions in one sentence: how many persist, fade, faded."""
    figures = stats.follow_ups
    if not (figures.persisting or figures.fading or figures.faded):
        return tr("No follow-ups: a wrong option picked twice comes back as one.")
    return trn(
        "Follow-ups: {persisting} persisting, {fading} fading, {faded} faded; {count} "
        "follow-up answer, {wrong} of them wrong.",
        "Follow-ups: {persisting} persisting, {fading} fading, {faded} faded; {count} "
        "follow-up answers, {wrong} of them wrong.",
        figures.answers,
    ).format(
        persisting=figures.persisting,
        fading=figures.fading,
        faded=figures.faded,
        count=number(figures.answers),
        wrong=figures.wrong,
    )


def text_report(stats: Statistics) -> str:
    """The figures for a terminal: each section's reading, then its main numbers."""
    heading = tr("Statistics: {deck}, {period}")
    lines = [heading.format(deck=stats.deck_name, period=period_name(stats)), ""]
    lines += [tr("Today"), "  " + today_reading(stats)]
    lines += [tr("Future due"), "  " + forecast_reading(stats)]
    days = " ".join(str(n) for n in stats.forecast.days[:7])
    lines.append("  " + tr("next 7 days: {counts}").format(counts=days))
    lines += [tr("Calendar"), "  " + calendar_reading(stats)]
    lines += [tr("Reviews"), "  " + reviews_reading(stats)]
    cards = stats.cards
    lines += [tr("Card counts"), "  " + cards_reading(stats)]
    lines.append(
        "  "
        + tr(
            "new {new}  learning {learning}  relearning {relearning}  young {young}  "
            "mature {mature}  suspended {suspended}"
        ).format(
            new=cards.new,
            learning=cards.learning,
            relearning=cards.relearning,
            young=cards.young,
            mature=cards.mature,
            suspended=cards.suspended,
        )
    )
    lines += [tr("Distributions"), "  " + distributions_reading(stats)]
    lines += [tr("True retention"), "  " + retention_reading(stats)]
    young, mature, every = tr("young"), tr("mature"), tr("all")
    lines.append(f"  {'':14}{young:>8}{mature:>8}{every:>8}")
    for row in stats.retention:
        lines.append(
            f"  {i18n.tr(WINDOW_WORDS.get(row.window, row.window)):14}{percent(row.young.rate):>8}"
            f"{percent(row.mature.rate):>8}{percent(row.all.rate):>8}"
        )
    lines += [tr("Hour of day"), "  " + hours_reading(stats)]
    lines += [tr("Ratings"), "  " + ratings_reading(stats)]
    lines.append(
        "  "
        + "  ".join(
            f"{i18n.tr(n)} {c}" for n, c in zip(RATING_NAMES, stats.ratings.counts, strict=True)
        )
    )
    lines.append(tr("Misconceptions"))
    if not stats.misconceptions:
        lines.append("  " + tr("No wrong options picked."))
    for item in stats.misconceptions[:10]:
        if item.follow_up:
            state = (
                tr("still picking it; follow-up {state}")
                if item.still
                else tr("got over it; follow-up {state}")
            ).format(state=i18n.tr(FOLLOW_UP_STATES.get(item.follow_up, item.follow_up)))
        else:
            state = tr("still picking it") if item.still else tr("got over it")
        lines.append(
            "  "
            + tr("{times}x  {choice} on {card}, last {day} ({state})").format(
                times=item.times,
                choice=repr(item.choice),
                card=f"{item.deck_key}/{item.card_key}",
                day=f"{item.last.astimezone():%Y-%m-%d}",
                state=state,
            )
        )
    lines.append("  " + follow_ups_reading(stats))
    return "\n".join(lines)
