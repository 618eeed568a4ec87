"""Showing a card of the study session: its content read, its choices in the order shown.

Part of the study session (``StudySession`` is a ``Showing``). A card's content, parsed
from its stored JSON, is kept with the JSON it came from, so showing the same stored
content again (the card asked for again before it is answered, or after an undo) parses
nothing. The choices are shuffled anew at each showing all the same.
"""

from __future__ import annotations

import random
from datetime import datetime

from recall.content.deck_format import CARD_ADAPTER, BasicCard, ChoiceCard
from recall.core.presets import DeckPresets, Preset
from recall.storage import CardRow
from recall.study.anki_cards import ShownNotes
from recall.study.follow_ups import CardFollowUp
from recall.study.recall_prompt import asked_as_recall
from recall.study.values import FollowUpShown, StudyCard


class ParsedContent:
    """The last card content parsed, kept with the stored JSON it was parsed from.

    Parsing is a function of the JSON alone and the parsed cards are frozen, so the kept
    card is exactly what parsing the same JSON again would give.
    """

    def __init__(self) -> None:
        self._kept: tuple[str, ChoiceCard | BasicCard] | None = None

    def of(self, content: str) -> ChoiceCard | BasicCard:
        """The card the stored JSON ``content`` holds (``CARD_ADAPTER`` checks it)."""
        kept = self._kept
        if kept is not None and kept[0] == content:
            return kept[1]
        card = CARD_ADAPTER.validate_json(content)
        self._kept = (content, card)
        return card


class Showing:
    """The showing half of a study session: what the session keeps that showing reads.

    Attributes:
        rng: Shuffles the choices.
        preset: The studied deck's preset: whether choices are shuffled.
        _presets: Every deck's preset: when a card of its deck is asked as type-in.
        _notes: Renders the cards of Anki notes.
        _parsed: The last card content parsed.
        _card_decks: The deck of each card shown, for the intervals a rating would give.
    """

    rng: random.Random
    preset: Preset
    _presets: DeckPresets
    _notes: ShownNotes
    _parsed: ParsedContent
    _card_decks: dict[int, int]

    def _show(
        self,
        row: CardRow,
        now: datetime,
        order: tuple[int, ...] = (),
        follow_up: CardFollowUp | None = None,
    ) -> StudyCard:
        """The card as shown now; ``order`` keeps the choices as an earlier showing had them
        (when the card still has as many), else they are shuffled anew. With ``follow_up``,
        shown as that follow-up: every choice, the wrong option among them, and the
        follow-up's own schedule (the intervals a rating would give are its)."""
        card = self._parsed.of(row.content)
        card = self._notes.shown(row.id, row.content, card, row.deck_id)
        if isinstance(card, ChoiceCard) and sorted(order) != list(range(len(card.choices))):
            order = ()
        if isinstance(card, ChoiceCard) and not order:
            count = len(card.choices)
            shuffled = card.shuffle and self.preset.shuffle_choices
            order = tuple(self.rng.sample(range(count), count) if shuffled else range(count))
        self._card_decks[row.id] = row.deck_id
        if follow_up is None:
            # The card's own deck's preset says when it is asked as type-in, as it schedules it.
            threshold = self._presets.of_deck(row.deck_id).type_in_from_stability
            memory, as_recall, shown_as = (
                row.memory,
                asked_as_recall(card, row.memory, threshold),
                None,
            )
        else:
            memory = follow_up.follow_up.memory
            as_recall = False  # a follow-up shows the option picked before among its choices
            shown_as = FollowUpShown(
                option=follow_up.option, picks=follow_up.follow_up.picks, why=follow_up.why
            )
        return StudyCard(
            card_id=row.id,
            seed=row.seed,
            card=card,
            memory=memory,
            order=order,
            shown_at=now,
            as_recall=as_recall,
            follow_up=shown_as,
        )
