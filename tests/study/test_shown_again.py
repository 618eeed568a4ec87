"""The card shown again while nothing changed: kept from the last showing, not read again.

A session keeps the row and the parsed content of the card it showed last; asked for the
next card again while the database's stamp holds, it shows that card from them. What it
shows must be exactly what reading the row again shows, and a change made elsewhere must
be shown at once.
"""

from __future__ import annotations

import dataclasses
import sqlite3
from pathlib import Path

from recall.scheduling import Schedulers
from recall.storage import Database
from recall.study.follow_ups import card_follow_ups
from recall.study.values import FollowUpShown, StudyCard
from tests.conftest import Clock
from tests.study import test_follow_ups
from tests.study.test_study import right_position, session_for


def _commit_elsewhere(path: Path) -> None:
    """A commit by another connection that changes nothing the session reads."""
    connection = sqlite3.connect(path, isolation_level=None)
    try:
        connection.execute("CREATE TABLE IF NOT EXISTS scratch (x INTEGER)")
        connection.execute("INSERT INTO scratch VALUES (1)")
    finally:
        connection.close()


def _sitting(
    database: Database, schedulers: Schedulers, clock: Clock, read_again: bool
) -> list[StudyCard]:
    """Each card shown three times, then answered; with ``read_again``, another connection
    commits before each showing, so the session reads the row again every time."""
    session = session_for(database, schedulers)
    shown: list[StudyCard] = []
    for turn in range(6):
        for _ in range(3):
            if read_again:
                _commit_elsewhere(database.path)
            showing = session.next_card(clock())
            assert showing is not None
            shown.append(showing)
        card = shown[-1]
        position = right_position(card)
        if turn % 3 == 2:
            position = (position + 1) % len(card.order)
        clock.advance(seconds=6)
        graded = session.answer_choice(card, {card.order[position]}, clock())
        session.record(graded, graded.proposed, clock.advance(seconds=2))
    return shown


def test_a_card_shown_again_from_what_was_kept_is_the_card_read_again(
    bundled: Database, tmp_path: Path, schedulers: Schedulers, clock: Clock
) -> None:
    """The same cards, choices in the same order, schedules and times: kept or read."""
    copy = tmp_path / "copy.sqlite3"
    source, target = sqlite3.connect(bundled.path), sqlite3.connect(copy)
    try:
        source.backup(target)
    finally:
        source.close()
        target.close()
    other = Database(copy)
    try:
        kept = _sitting(bundled, schedulers, Clock(clock()), read_again=False)
        read = _sitting(other, schedulers, Clock(clock()), read_again=True)
    finally:
        other.close()
    assert kept == read
    assert len({card.card_id for card in kept}) == 6  # six cards, each shown three times
    assert len({card.order for card in kept}) > 1  # shuffled anew at each showing


def test_a_card_changed_elsewhere_after_it_was_shown_is_shown_as_changed(
    bundled: Database, schedulers: Schedulers, clock: Clock
) -> None:
    session = session_for(bundled, schedulers)
    shown = session.next_card(clock())
    assert shown is not None
    connection = sqlite3.connect(bundled.path, isolation_level=None)
    try:
        connection.execute(
            "UPDATE card SET content = json_set(content, '$.question', 'Changed?') WHERE id = ?",
            (shown.card_id,),
        )
    finally:
        connection.close()
    again = session.next_card(clock())
    assert again is not None
    assert again.card_id == shown.card_id
    assert getattr(again.card, "question", None) == "Changed?"
    assert getattr(shown.card, "question", None) != "Changed?"


def test_a_follow_up_is_shown_as_its_card_with_the_follow_ups_schedule(
    database: Database, clock: Clock
) -> None:
    """The follow-up shown is the card as shown plainly, with the follow-up's schedule and
    wrong option in place of the card's own schedule, never asked as type-in."""
    test_follow_ups.make_deck(database, clock)
    session = test_follow_ups.picked_twice(database, clock)
    shown = test_follow_ups.study_until_follow_up(session, clock)
    assert shown.follow_up is not None
    with database.reading() as transaction:
        items = card_follow_ups(
            transaction,
            Schedulers(fuzz=False),
            transaction.options.deck_presets(),
            card_ids=[shown.card_id],
        )
    (item,) = [item for item in items if item.option == shown.follow_up.option]
    plain = session.show(shown.card_id, shown.shown_at)
    expected = dataclasses.replace(
        plain,
        memory=item.follow_up.memory,
        order=shown.order,
        as_recall=False,
        follow_up=FollowUpShown(option=item.option, picks=item.follow_up.picks, why=item.why),
    )
    assert shown == expected
    assert shown.memory != plain.memory  # the follow-up's own schedule, not the card's
