"""Item analysis of every deck reads its answers counted by SQL and its cards as plain JSON,
not card by card as models: on a generated collection (several decks and a subdeck, basic
cards among the choice cards, select-all cards, picks of texts a card no longer has, a text
picked twice in one answer, answers without picks, cram and follow-up answers and schedule
changes, answers at the same moment, cards stored as a sync merge stores them) it gives
exactly what ``analyse_card`` gives over each card's whole history and model."""

from __future__ import annotations

import json
import random
from datetime import UTC, datetime, timedelta

from recall.collection import importing
from recall.content.deck_format import CARD_ADAPTER, ChoiceCard, parse_deck
from recall.core.memory import CardState, Rating, ReviewKind
from recall.stats import item_analysis, item_analysis_json
from recall.stats.item_analysis import CardAnalysis, ItemAnalysis
from recall.storage import Database, Transaction
from recall.storage.records import NewReview

START = datetime(2026, 1, 1, 12, tzinfo=UTC)
DECKS = (("langs", "Langs"), ("verbs", "Langs::Verbs"), ("other", "Other"))
SUBTREES = {"langs": ("langs", "verbs"), "verbs": ("verbs",), "other": ("other",)}
"""Each deck and its subdecks, in the order the analysis goes through them."""
GONE = "An option the card no longer has"
TEXTS = (
    "",
    ' "quoted", a back\\slash',
    " \u00fcber \U0001f600 \u2028 \x7f \x01 a\ttab",
    "<b>&amp;</b>",
)
"""Ends of option texts: what JSON escapes, and what it writes as it is."""


def _deck(key: str, name: str, rng: random.Random) -> str:
    cards: list[dict[str, object]] = []
    for index in range(24):
        if index % 7 == 3:
            cards.append({"id": f"b{index}", "type": "basic", "front": "F?", "back": "B."})
            continue
        count = rng.randint(2, 5)
        right = set(rng.sample(range(count), rng.randint(1, min(2, count))))
        choices = [
            {"text": f"{key} {index} option {option}{TEXTS[index % 4]}", "correct": option in right}
            for option in range(count)
        ]
        cards.append({"id": f"c{index}", "type": "choice", "question": "Q?", "choices": choices})
    deck = {"format": "recall-deck", "version": 1, "id": key, "name": name, "cards": cards}
    return json.dumps(deck)


def _picks(texts: list[str], rng: random.Random) -> tuple[str, ...] | None:
    roll = rng.random()
    if roll < 0.05:
        return None
    if roll < 0.1:
        return (GONE,)
    if roll < 0.15:
        text = rng.choice(texts)
        return (text, text)  # the same text twice counts once
    if roll < 0.25:
        return ()
    return tuple(rng.sample(texts, rng.randint(1, min(2, len(texts)))))


def _install(database: Database) -> set[int]:
    """The generated collection; the ids of the cards stored as a sync merge stores them."""
    rng = random.Random(20261204)
    for key, name in DECKS:
        importing.import_deck(database, parse_deck(_deck(key, name, rng), key), START)
    kinds = [ReviewKind.ANSWER] * 12 + [ReviewKind.CRAM, ReviewKind.FOLLOW_UP]
    with database.transaction() as transaction:
        reviews: list[NewReview] = []
        deck_keys = transaction.decks.keys()
        for deck_id in deck_keys:
            for row in transaction.cards.of_deck(deck_id):
                card = CARD_ADAPTER.validate_json(row.content)
                texts = [c.text for c in card.choices] if isinstance(card, ChoiceCard) else []
                moment = START
                for _ in range(rng.choice([0, 1, 2, 5, 12, 30])):
                    if rng.random() > 0.1:  # else at the same moment as the one before
                        moment += timedelta(hours=rng.randint(1, 200))
                    picked = _picks(texts, rng) if texts else None
                    reviews.append(
                        NewReview(
                            card_id=row.id,
                            reviewed_at=moment,
                            rating=rng.choice(list(Rating)),
                            duration_ms=2000,
                            state_before=rng.choice(list(CardState)),
                            picked=picked,
                            correct=rng.random() < 0.7,
                            kind=rng.choice(kinds),
                        )
                    )
        for review in reviews[::9]:  # changes by hand, with and without picks
            reviews.append(
                NewReview(
                    card_id=review.card_id,
                    reviewed_at=review.reviewed_at + timedelta(minutes=1),
                    rating=Rating.AGAIN,
                    duration_ms=0,
                    state_before=CardState.REVIEW,
                    picked=review.picked,
                    correct=False,
                    kind=ReviewKind.FORGET,
                )
            )
        rng.shuffle(reviews)  # the ids need not follow the order the answers happened in
        for review in reviews:
            transaction.history.add(review)
        return _store_as_synced(transaction, deck_keys)


def _store_as_synced(transaction: Transaction, deck_keys: dict[int, str]) -> set[int]:
    """A few choice cards' JSON as a sync merge may store it: not written again by the model,
    so with white space at the ends of texts (which the model strips) and defaults given."""
    synced: set[int] = set()
    for deck_id in deck_keys:
        rows = [row for row in transaction.cards.of_deck(deck_id) if row.kind == "choice"]
        for row in rows[:2]:
            content = json.loads(row.content)
            # The model strips the em space and the line break, not the unit separator.
            content["question"] = "\u2003" + content["question"] + "\n\x1f"
            for choice in content["choices"]:
                choice["text"] = f" {choice['text']}\t"
                choice.setdefault("correct", False)
            stored = json.dumps(content, ensure_ascii=False, separators=(",", ":"))
            transaction.sql.run("UPDATE card SET content = ? WHERE id = ?", (stored, row.id))
            synced.add(row.id)
    return synced


def _card_by_card(database: Database, deck_key: str | None) -> ItemAnalysis:
    """Each choice card analysed over its whole history, deck by deck, cards in id order."""
    found: list[CardAnalysis] = []
    with database.reading() as transaction:
        keys = transaction.decks.keys()
        by_key = {key: deck_id for deck_id, key in keys.items()}
        wanted = sorted(keys) if deck_key is None else [by_key[k] for k in SUBTREES[deck_key]]
        for deck_id in wanted:
            for row in sorted(transaction.cards.of_deck(deck_id), key=lambda row: row.id):
                if row.kind != "choice":
                    continue
                card = CARD_ADAPTER.validate_json(row.content)
                assert isinstance(card, ChoiceCard)
                history = transaction.history.of_card(row.id)
                found.append(
                    item_analysis.analyse_card(row.id, keys[deck_id], row.key, card, history)
                )
    return ItemAnalysis(deck_key, tuple(found))


def test_every_deck_gives_what_each_card_s_history_gives(database: Database) -> None:
    synced = _install(database)
    for deck_key in (None, "langs", "verbs", "other"):
        expected = _card_by_card(database, deck_key)
        found = item_analysis.item_analysis(database, deck_key)
        assert found == expected
        entries = item_analysis_json.as_json(expected)
        assert item_analysis_json.as_json(found) == entries
        # The lines the command prints are the entries as the JSON module writes them.
        written = [json.dumps(entry, ensure_ascii=False) for entry in entries]
        assert list(item_analysis_json.json_lines(found)) == written
    # The collection holds what the comparison is about.
    cards = _card_by_card(database, None).cards
    assert len(cards) >= 50
    assert any(card.answers >= item_analysis.MIN_ANSWERS for card in cards)
    assert any(card.answers == 0 for card in cards)
    assert any(o.discrimination is not None for card in cards for o in card.options)
    assert any(card.first_right is False for card in cards)
    assert any(card.flags for card in cards)
    stored_as_synced = [card for card in cards if card.card_id in synced]
    assert len(stored_as_synced) == 6
    assert any(option.picks for card in stored_as_synced for option in card.options)
