"""Item analysis for deck authors: how often each option is picked, and which look wrong.

Classical item analysis compares learners who know the material with those who do not. A
Recall database has one learner (several synced devices are still one), so the groups are
that learner's answers instead: an answer is *strong* when the card was in review before it
(it had graduated from learning: the memory was there), and *weak* otherwise (the card's first
answers, its learning steps, and relearning after a lapse). An option's discrimination is the
share of strong answers that picked it minus the share of weak answers that did (the
upper-lower difference): positive for a right option that knowing brings, negative for a
distractor that only a learner who does not know yet falls for.

Flags, with the thresholds named below:

* ``never-picked``: a wrong option no answer picked, after at least ``MIN_ANSWERS`` answers.
* ``maybe-miskeyed``: a wrong option picked more often in strong answers than in weak ones
  (each group at least ``MIN_GROUP`` answers, the option picked at least ``MIN_STRONG_PICKS``
  times in strong ones): knowing the card leads to it, so it may be the right one.
* ``too-easy``: the card's first answer was right and so were at least ``EASY_SHARE`` of its
  weak answers, over at least ``EASY_MIN_ANSWERS`` answers: right at first sight.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import groupby
from operator import itemgetter
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol

from recall.content.lint_warning import HISTORY_CODES, LintWarning
from recall.core import i18n, wording
from recall.core.collector import collector_paused
from recall.core.i18n import tr, trn
from recall.core.memory import CardState, ReviewKind
from recall.stats.schedules import deck_ids_of
from recall.storage import Database

if TYPE_CHECKING:
    from recall.content.deck_format import ChoiceCard

_first = itemgetter(0)
_decode = json.JSONDecoder().raw_decode
MIN_ANSWERS = 10
"""A wrong option is flagged as never picked only once the card has this many answers."""
MIN_GROUP = 3
"""Discrimination is given only when strong and weak answers each number at least this."""
MIN_STRONG_PICKS = 2
"""A wrong option is flagged as maybe mis-keyed only when strong answers picked it this often."""
EASY_SHARE = 0.9
"""A card is too easy when at least this share of its weak answers were right, the first too."""
EASY_MIN_ANSWERS = 3
"""A card is judged too easy only once it has this many answers."""

FLAGS: dict[str, str] = HISTORY_CODES
"""Every item-analysis flag with its one-line meaning: ``recall lint`` warning codes."""


class Answer(Protocol):
    """What the analysis reads of a history entry (a ``ReviewRow`` has it)."""

    @property
    def kind(self) -> ReviewKind: ...
    @property
    def state_before(self) -> CardState: ...
    @property
    def picked(self) -> tuple[str, ...] | None: ...
    @property
    def correct(self) -> bool: ...


class OptionAnalysis(NamedTuple):
    """One option of a card and how the answers treated it (a named tuple: one is made for
    every option of every card, and a frozen dataclass takes over twice as long to make).

    Attributes:
        picks: Answers that picked it.
        share: ``picks`` over all the card's answers (None before the first).
        strong_share: Share of strong-memory answers that picked it (None without any).
        weak_share: Share of weak-memory answers that picked it (None without any).
        discrimination: ``strong_share - weak_share`` when both groups have at least
            ``MIN_GROUP`` answers, else None.
        flag: A key of ``FLAGS``, or None.
    """

    text: str
    correct: bool
    picks: int
    share: float | None
    strong_share: float | None
    weak_share: float | None
    discrimination: float | None
    flag: str | None


class CardAnalysis(NamedTuple):
    """One choice card's answers, option by option, with the card's own flag (a named tuple,
    as its options are).

    Attributes:
        answers: Answers to the card that recorded picks.
        strong: Of them, answers given when the card was in review.
        first_right: Whether the card's first answer was right (None before it).
        weak_right: Share of weak-memory answers that were right (None without any).
        flag: ``too-easy`` or None; options carry their own flags.
    """

    card_id: int
    deck_key: str
    card_key: str
    question: str
    answers: int
    strong: int
    first_right: bool | None
    weak_right: float | None
    options: tuple[OptionAnalysis, ...]
    flag: str | None

    @property
    def flags(self) -> tuple[str, ...]:
        """The card's flag and its options', in option order."""
        found = [self.flag] if self.flag else []
        return (*found, *(option.flag for option in self.options if option.flag))


@dataclass(frozen=True)
class ItemAnalysis:
    """Every choice card of a deck (or all decks) with its analysis, in deck file order."""

    deck_key: str | None
    cards: tuple[CardAnalysis, ...]

    @property
    def flagged(self) -> tuple[CardAnalysis, ...]:
        """The cards that carry at least one flag."""
        return tuple(card for card in self.cards if card.flags)


def analyse_card(
    card_id: int, deck_key: str, card_key: str, card: ChoiceCard, reviews: Sequence[Answer]
) -> CardAnalysis:
    """Analyse one choice card's answers (its history, oldest first) against its options.

    Answers' picks are texts; a text the card no longer has (its deck changed) is ignored,
    and so are schedule changes made by hand.
    """
    answers = [r for r in reviews if r.kind == ReviewKind.ANSWER and r.picked is not None]
    strong = [r for r in answers if r.state_before == CardState.REVIEW]
    weak = [r for r in answers if r.state_before != CardState.REVIEW]
    tally = _Tally(
        answers=len(answers),
        strong=len(strong),
        weak=len(weak),
        weak_right=sum(1 for r in weak if r.correct),
        strong_picks=_counted(strong),
        weak_picks=_counted(weak),
    )
    first_right = answers[0].correct if answers else None
    choices = [(choice.text, choice.correct) for choice in card.choices]
    return _analysis(card_id, deck_key, card_key, card.question, choices, first_right, tally)


def item_analysis(database: Database, deck_key: str | None = None) -> ItemAnalysis:
    """Analyse every choice card of a deck and its subdecks (None: every deck).

    The answers are counted by SQL per card and picks (``HistoryQueries.picked_groups``),
    so each card's figures are sums over its few kinds of answer, equal to ``analyse_card``
    over its history. The garbage collector waits meanwhile (``core.collector``): its full
    passes over the analyses made so far took a fifth of the time at 100,000 cards.

    Args:
        database: Where the cards and their history are.
        deck_key: The deck's file id, or None.

    Raises:
        UnknownDeckError: ``deck_key`` names no deck.
    """
    found: list[CardAnalysis] = []
    with collector_paused(), database.reading() as transaction:
        deck_ids, _name = deck_ids_of(transaction, deck_key)
        keys = transaction.decks.keys()
        wanted = sorted(keys) if deck_ids is None else deck_ids
        tallies = {
            card_id: _tallied(groups)
            for card_id, groups in groupby(transaction.history.picked_groups(deck_ids), _first)
        }
        for deck_id in wanted:
            for card_id, card_key, content, first in transaction.history.choice_cards(deck_id):
                question, choices = _question_and_choices(content)
                tally = tallies.get(card_id, _UNANSWERED)
                first_right = None if first is None else bool(first)
                found.append(
                    _analysis(
                        card_id, keys[deck_id], card_key, question, choices, first_right, tally
                    )
                )
    return ItemAnalysis(deck_key, tuple(found))


class _Tally(NamedTuple):
    """A card's answers counted: all, strong and weak ones, the weak ones right, and how
    many of the strong and of the weak ones picked each text (``_counted``)."""

    answers: int
    strong: int
    weak: int
    weak_right: int
    strong_picks: Mapping[str, int]
    weak_picks: Mapping[str, int]


_UNANSWERED = _Tally(0, 0, 0, 0, {}, {})


def _tallied(groups: Iterable[tuple[int, str, int, int, int]]) -> _Tally:
    """A card's tally from its answers grouped by picks: ``(card id, picked JSON, answers,
    strong ones, weak ones right)``."""
    answers = strong = weak_right = 0
    strong_picks: dict[str, int] = {}
    weak_picks: dict[str, int] = {}
    for _card_id, picked, times, strong_times, right in groups:
        answers += times
        strong += strong_times
        weak_right += right
        weak_times = times - strong_times
        for text in set(_loads(picked)):  # an answer picking a text twice counts once
            if strong_times:
                strong_picks[text] = strong_picks.get(text, 0) + strong_times
            if weak_times:
                weak_picks[text] = weak_picks.get(text, 0) + weak_times
    return _Tally(answers, strong, answers - strong, weak_right, strong_picks, weak_picks)


def _question_and_choices(content: str) -> tuple[str, list[tuple[str, bool]]]:
    """A stored choice card's question and its options (text, right), as ``ChoiceCard`` has them.

    The content was read as the model when it was stored, and written as the model writes
    it (defaults left out, texts stripped), so its plain JSON gives the model's values at a
    fraction of the validation's cost. Only a sync merge stores the JSON as it came (checked
    by the model, not rewritten): a text with white space at an end, which the model strips,
    is read through the model.
    """
    card = _loads(content)
    question: str = card["question"]
    choices = [(choice["text"], choice.get("correct", False)) for choice in card["choices"]]
    # str.strip takes off every character the model's stripping does, and a few more.
    stripped = question == question.strip()
    for text, _correct in choices:
        stripped = stripped and text == text.strip()
    if not stripped:
        from recall.content.deck_format import CARD_ADAPTER, ChoiceCard

        model = CARD_ADAPTER.validate_json(content)
        assert isinstance(model, ChoiceCard)
        return model.question, [(choice.text, choice.correct) for choice in model.choices]
    return question, choices


def _loads(text: str) -> Any:
    """``json.loads(text)``, quicker for JSON as Recall stores it (nothing around it): a card's
    picks are read in a third of the time, its content in two thirds."""
    try:
        value, end = _decode(text)
        if end == len(text):
            return value
    except ValueError:
        pass
    return json.loads(text)  # with white space around it, or not JSON: as json.loads has it


def _analysis(
    card_id: int,
    deck_key: str,
    card_key: str,
    question: str,
    choices: Iterable[tuple[str, bool]],
    first_right: bool | None,
    tally: _Tally,
) -> CardAnalysis:
    """One card's analysis from its question and options (text, right), its tally and whether
    its first answer was right."""
    answers, strong, weak, weak_right, strong_picks, weak_picks = tally
    # Each option's figures, written out in the loop: it runs for every option of every card.
    discriminating = min(strong, weak) >= MIN_GROUP
    options = []
    for text, correct in choices:
        strong_count = strong_picks.get(text, 0)
        weak_count = weak_picks.get(text, 0)
        picks = strong_count + weak_count  # every answer is either strong or weak
        strong_share = strong_count / strong if strong else None
        weak_share = weak_count / weak if weak else None
        discrimination = None
        if discriminating and strong_share is not None and weak_share is not None:
            discrimination = strong_share - weak_share
        flag = None
        if not correct and picks == 0 and answers >= MIN_ANSWERS:
            flag = "never-picked"
        elif (
            not correct
            and discrimination is not None
            and discrimination > 0
            and strong_count >= MIN_STRONG_PICKS
        ):
            flag = "maybe-miskeyed"
        share = picks / answers if answers else None
        options.append(
            OptionAnalysis(
                text, correct, picks, share, strong_share, weak_share, discrimination, flag
            )
        )
    weak_right_share = weak_right / weak if weak else None
    easy = (
        first_right is True
        and answers >= EASY_MIN_ANSWERS
        and weak_right_share is not None
        and weak_right_share >= EASY_SHARE
    )
    return CardAnalysis(
        card_id,
        deck_key,
        card_key,
        question,
        answers,
        strong,
        first_right,
        weak_right_share,
        tuple(options),
        "too-easy" if easy else None,
    )


def text_lines(analysis: ItemAnalysis, shown: int = 10) -> list[str]:
    """The flagged cards for a terminal, after the statistics: one line per flag."""
    lines = [tr("Item analysis (whole history)")]
    flagged = analysis.flagged
    if not flagged:
        cards = len(analysis.cards)
        lines.append(
            "  "
            + trn(
                "No flags on {count} choice card.", "No flags on {count} choice cards.", cards
            ).format(count=wording.number(cards))
        )
    for card in flagged[:shown]:
        for code in card.flags:
            meaning = i18n.tr(FLAGS[code])
            lines.append(f"  {card.deck_key}/{card.card_key}: {meaning} [{code}]")
    if len(flagged) > shown:
        more = len(flagged) - shown
        lines.append(
            "  "
            + trn(
                "... and {count} more card (recall lint --history)",
                "... and {count} more cards (recall lint --history)",
                more,
            ).format(count=wording.number(more))
        )
    return lines


def warnings(analysis: ItemAnalysis, deck_key: str) -> list[LintWarning]:
    """The flags of one deck's cards as ``recall lint`` warnings, card by card."""
    found: list[LintWarning] = []
    for card in analysis.cards:
        if card.deck_key != deck_key:
            continue
        if card.flag == "too-easy":
            found.append(
                LintWarning(
                    "too-easy",
                    card.card_key,
                    "question",
                    f"right at the first answer and in {_percent(card.weak_right)} of the answers "
                    "while learning: make the wrong options more tempting, or drop the card",
                )
            )
        for index, option in enumerate(card.options):
            if option.flag is None:
                continue
            quoted = _quote(option.text)
            if option.flag == "never-picked":
                message = (
                    f"the wrong option {quoted} was never picked in {card.answers} answers: "
                    "replace it with a mistake learners make"
                )
            else:
                message = (
                    f"the wrong option {quoted} was picked in {_percent(option.strong_share)} "
                    f"of answers when the card was known, {_percent(option.weak_share)} when "
                    "not: check that it is really wrong"
                )
            found.append(LintWarning(option.flag, card.card_key, f"choices[{index}]", message))
    return found


def _counted(answers: Iterable[Answer]) -> Counter[str]:
    """How many answers picked each text (an answer picking a text twice counts once)."""
    counts: Counter[str] = Counter()
    for answer in answers:
        if answer.picked is not None:
            counts.update(set(answer.picked))
    return counts


def _percent(value: float | None) -> str:
    return "no" if value is None else f"{value:.0%}"


def _quote(text: str, limit: int = 40) -> str:
    return repr(text if len(text) <= limit else text[: limit - 1] + "…")
