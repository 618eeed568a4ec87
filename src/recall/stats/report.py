"""The statistics in words: a one-line reading per section, the terminal report, and JSON."""

from __future__ import annotations

from typing import Any

from recall.core.wording import count, duration, percent, word
from recall.stats.figures import (
    KINDS,
    Coming,
    Histogram,
    Retention,
    RetentionRow,
    Schedules,
    Statistics,
)

RATING_NAMES = ("Again", "Hard", "Good", "Easy")


def period_name(stats: Statistics) -> str:
    """The period as the readings name it."""
    if stats.whole_history:
        return "so far"
    days = stats.period_days
    return {1: "today", 7: "this week", 30: "this month", 91: "these 3 months"}.get(
        days, "this year" if days == 365 else f"over {days} days"
    )


def today_reading(stats: Statistics) -> str:
    """Section 1: today's work and the streak."""
    today, streak = stats.today, stats.streak
    run = f"Streak: {count(streak.current, 'day')} (longest {streak.longest})."
    cram = (
        f" {count(today.cram, 'cram answer')} besides, which move no due date."
        if today.cram
        else ""
    )
    if not today.reviews:
        return f"No reviews yet today.{cram} {run}"
    return (
        f"Today you studied {count(today.cards, 'card')} in {duration(today.time_ms)}, "
        f"{percent(today.share_correct)} right, {today.again} Again.{cram} {run}"
    )


def forecast_reading(stats: Statistics | Schedules | Coming) -> str:
    """Section 2: what is coming."""
    forecast = stats.forecast
    total = sum(forecast.days)
    tomorrow = forecast.days[1] if len(forecast.days) > 1 else 0
    overdue = f"; {forecast.overdue} overdue" if forecast.overdue else ""
    return (
        f"{count(total, 'card')} {word(total, 'comes', 'come')} due in the next "
        f"{len(forecast.days)} days, "
        f"{tomorrow} of them tomorrow{overdue}."
    )


def calendar_reading(stats: Statistics) -> str:
    """Section 3: how many days of the last year had reviews."""
    studied = sum(1 for _, reviews in stats.calendar if reviews)
    return f"You studied on {studied} of the last {len(stats.calendar)} days."


def reviews_reading(stats: Statistics) -> str:
    """Section 4: reviews over the period."""
    totals = stats.totals
    if not totals.reviews:
        return f"No reviews {period_name(stats)}."
    average = totals.reviews / stats.period_days
    return (
        f"{count(totals.reviews, 'review')} {period_name(stats)}, {average:.1f} a day, "
        f"{duration(totals.time_ms)} in all."
    )


def cards_reading(stats: Statistics | Schedules) -> str:
    """Section 5: where the cards are."""
    cards = stats.cards
    learning = cards.learning + cards.relearning
    return (
        f"Of {count(cards.total, 'card')}, {cards.mature} mature, {cards.young} young, "
        f"{learning} learning and {cards.new} new."
    )


def distributions_reading(stats: Statistics | Schedules) -> str:
    """Section 6: the estimated number of cards known, and the average interval."""
    known = stats.distributions.known
    interval = stats.distributions.interval.average
    tail = "" if interval is None else f"; the average interval is {interval:.1f} days"
    return f"You would get about {count(known, 'card')} right if asked all of them now{tail}."


def retention_reading(stats: Statistics) -> str:
    """Section 7: true retention of mature cards over the period (young ones if none)."""
    row = stats.period_retention
    name = period_name(stats)
    if row.mature.rate is not None:
        return f"You kept {percent(row.mature.rate)} of mature cards {name}."
    if row.young.rate is not None:
        return (
            f"You kept {percent(row.young.rate)} of young cards {name}; "
            f"no mature card came up {name}."
        )
    return "No review of a studied card yet: retention shows once cards come back."


def hours_reading(stats: Statistics) -> str:
    """Section 8: the busiest hour and the best one."""
    busy = [hour for hour in stats.hours if hour.reviews]
    if not busy:
        return f"No reviews {period_name(stats)}."
    most = max(busy, key=lambda hour: hour.reviews)
    best = max(busy, key=lambda hour: (hour.correct / hour.reviews, hour.reviews))
    if not best.correct:
        return f"You review most at {most.hour}:00; no answer was right yet."
    return (
        f"You review most at {most.hour}:00 and answer best at {best.hour}:00 "
        f"({percent(best.correct / best.reviews)} right)."
    )


def ratings_reading(stats: Statistics) -> str:
    """Section 9: how often the proposed rating was changed."""
    ratings = stats.ratings
    if not sum(ratings.counts):
        return f"No answers {period_name(stats)}."
    if not ratings.proposed_known:
        return "Older reviews did not record the rating Recall proposed; new ones will."
    share = ratings.changed / ratings.proposed_known
    return (
        f"You changed the proposed rating on {percent(share)} of answers "
        f"({ratings.raised} up, {ratings.lowered} down)."
    )


def histogram_reading(name: str, unit: str, histogram: Histogram) -> str:
    """One distribution's reading: how many cards and the average."""
    if histogram.average is None:
        return f"{name}: no studied cards yet."
    return f"{name}: {count(histogram.cards, 'card')}, average {histogram.average:.2f}{unit}."


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
        return "No follow-ups: a wrong option picked twice comes back as one."
    answers = count(figures.answers, "follow-up answer")
    return (
        f"Follow-ups: {figures.persisting} persisting, {figures.fading} fading, "
        f"{figures.faded} faded; {answers}, {figures.wrong} of them wrong."
    )


def text_report(stats: Statistics) -> str:
    """The figures for a terminal: each section's reading, then its main numbers."""
    lines = [f"Statistics: {stats.deck_name}, {period_name(stats)}", ""]
    lines += ["Today", "  " + today_reading(stats)]
    lines += ["Future due", "  " + forecast_reading(stats)]
    lines.append("  next 7 days: " + " ".join(str(n) for n in stats.forecast.days[:7]))
    lines += ["Calendar", "  " + calendar_reading(stats)]
    lines += ["Reviews", "  " + reviews_reading(stats)]
    cards = stats.cards
    lines += ["Card counts", "  " + cards_reading(stats)]
    lines.append(
        f"  new {cards.new}  learning {cards.learning}  relearning {cards.relearning}  "
        f"young {cards.young}  mature {cards.mature}  suspended {cards.suspended}"
    )
    lines += ["Distributions", "  " + distributions_reading(stats)]
    lines += ["True retention", "  " + retention_reading(stats)]
    lines.append(f"  {'':14}{'young':>8}{'mature':>8}{'all':>8}")
    for row in stats.retention:
        lines.append(
            f"  {row.window:14}{percent(row.young.rate):>8}{percent(row.mature.rate):>8}"
            f"{percent(row.all.rate):>8}"
        )
    lines += ["Hour of day", "  " + hours_reading(stats)]
    lines += ["Ratings", "  " + ratings_reading(stats)]
    lines.append(
        "  "
        + "  ".join(f"{n} {c}" for n, c in zip(RATING_NAMES, stats.ratings.counts, strict=True))
    )
    lines.append("Misconceptions")
    if not stats.misconceptions:
        lines.append("  No wrong options picked.")
    for item in stats.misconceptions[:10]:
        state = "still picking it" if item.still else "got over it"
        if item.follow_up:
            state += f"; follow-up {item.follow_up}"
        lines.append(
            f"  {item.times}x  {item.choice!r} on {item.deck_key}/{item.card_key}, "
            f"last {item.last.astimezone():%Y-%m-%d} ({state})"
        )
    lines.append("  " + follow_ups_reading(stats))
    return "\n".join(lines)
