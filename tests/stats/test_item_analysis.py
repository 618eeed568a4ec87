"""Item analysis on a hand-made history: pick shares, discrimination signs and each flag."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest

from recall.core.errors import UnknownDeckError
from recall.stats import item_analysis, item_analysis_json
from recall.stats.item_analysis import CardAnalysis, ItemAnalysis, OptionAnalysis
from recall.storage import Database
from tests.helpers import item_history

START = datetime(2026, 1, 1, 12, tzinfo=UTC)


@pytest.fixture
def analysis(database: Database) -> ItemAnalysis:
    item_history.install(database, START)
    return item_analysis.item_analysis(database, "items")


def card(analysis: ItemAnalysis, key: str) -> CardAnalysis:
    return next(found for found in analysis.cards if found.card_key == key)


def test_shares_are_picks_over_answers_in_each_memory_group(analysis: ItemAnalysis) -> None:
    france = card(analysis, "france")
    assert (france.answers, france.strong, france.first_right) == (10, 6, False)
    shares = {o.text: (o.picks, o.share, o.strong_share, o.weak_share) for o in france.options}
    assert shares == {
        "Paris": (6, 0.6, 5 / 6, 1 / 4),
        "Lyon": (2, 0.2, 0.0, 2 / 4),
        "Nice": (2, 0.2, 1 / 6, 1 / 4),
        "Bern": (0, 0.0, 0.0, 0.0),
    }


def test_discrimination_is_positive_for_the_right_option_negative_for_distractors(
    analysis: ItemAnalysis,
) -> None:
    options = {o.text: o for o in card(analysis, "france").options}
    assert options["Paris"].discrimination == pytest.approx(5 / 6 - 1 / 4)
    assert options["Lyon"].discrimination == pytest.approx(-0.5)
    assert options["Nice"].discrimination == pytest.approx(1 / 6 - 1 / 4)
    assert options["Bern"].discrimination == 0.0


def test_each_flag_falls_on_its_card(analysis: ItemAnalysis) -> None:
    flags = {found.card_key: found.flags for found in analysis.cards}
    assert flags == {
        "france": ("never-picked",),
        "planet": ("maybe-miskeyed",),
        "sum": ("too-easy",),
        "unseen": (),
    }
    bern = card(analysis, "france").options[3]
    assert (bern.text, bern.flag) == ("Bern", "never-picked")
    jupiter = card(analysis, "planet").options[1]
    assert (jupiter.text, jupiter.flag) == ("Jupiter", "maybe-miskeyed")
    assert jupiter.discrimination == pytest.approx(3 / 4 - 1 / 4)
    assert [found.card_key for found in analysis.flagged] == ["france", "planet", "sum"]


def test_a_card_without_answers_has_no_shares_and_no_flag(analysis: ItemAnalysis) -> None:
    unseen = card(analysis, "unseen")
    assert unseen.answers == 0
    assert unseen.first_right is None
    assert all(o.share is None and o.discrimination is None for o in unseen.options)


def test_thresholds_hold_back_flags_until_enough_answers(database: Database) -> None:
    """One answer fewer on 'france' (9) and its never-picked option is not flagged yet."""
    ids = item_history.install(database, START)
    with database.transaction() as transaction:
        last = transaction.history.of_card(ids["france"])[-1]
        transaction.history.delete(last.id)
    found = card(item_analysis.item_analysis(database, "items"), "france")
    assert found.answers == item_analysis.MIN_ANSWERS - 1
    assert found.flags == ()


def test_warnings_name_the_card_option_and_code(analysis: ItemAnalysis) -> None:
    warnings = item_analysis.warnings(analysis, "items")
    assert [(w.code, w.card_id, w.field) for w in warnings] == [
        ("never-picked", "france", "choices[3]"),
        ("maybe-miskeyed", "planet", "choices[1]"),
        ("too-easy", "sum", "question"),
    ]
    assert "'Bern' was never picked in 10 answers" in warnings[0].message
    assert "75% of answers when the card was known, 25% when not" in warnings[1].message


def test_as_json_rounds_and_keeps_every_option(analysis: ItemAnalysis) -> None:
    (france, *_rest) = item_analysis_json.as_json(analysis)
    assert france["card"] == "france"
    assert france["answers"] == 10
    options = france["options"]
    assert isinstance(options, list)
    assert options[0] == {
        "text": "Paris",
        "correct": True,
        "picks": 6,
        "share": 0.6,
        "strong_share": 0.833,
        "weak_share": 0.25,
        "discrimination": 0.583,
        "flag": None,
    }


def test_the_printed_lines_are_the_entries_as_the_json_module_writes_them(
    analysis: ItemAnalysis,
) -> None:
    flags = {flag for card in analysis.cards for flag in card.flags}
    assert flags == set(item_analysis.FLAGS)  # each flag is written
    entries = item_analysis_json.as_json(analysis)
    written = [json.dumps(entry, ensure_ascii=False) for entry in entries]
    assert list(item_analysis_json.json_lines(analysis)) == written


def test_each_option_s_figures_are_written_as_the_json_module_writes_them() -> None:
    """An option's figures are written once per set of them: the same set on another option
    (another text), rounding to a negative zero, and thirds are written as JSON does."""
    figures = (1 / 3, 2 / 3, 0.0005, -0.0004, 0.0, 1.0, 0.1 + 0.2, None)
    options = [
        OptionAnalysis(text, n % 2 == 0, n, share, share, None, share, "never-picked")
        for text in ("an option", 'an "other" one')
        for n, share in enumerate(figures)
    ]
    card = CardAnalysis(1, "deck", "card", "Q?", 3, 1, True, -0.0004, tuple(options), None)
    analysis = ItemAnalysis("deck", (card, card._replace(card_key="c2", weak_right=None)))
    entries = item_analysis_json.as_json(analysis)
    written = [json.dumps(entry, ensure_ascii=False) for entry in entries]
    assert list(item_analysis_json.json_lines(analysis)) == written
    assert '"weak_right": -0.0' in written[0]
    assert '"share": -0.0' in written[0]


def test_an_unknown_deck_is_refused(database: Database) -> None:
    with pytest.raises(UnknownDeckError):
        item_analysis.item_analysis(database, "nothing")
