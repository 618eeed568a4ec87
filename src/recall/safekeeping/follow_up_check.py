"""Checking the follow-ups' kept summary against a recomputation from the history.

``follow_up_summary`` is derived (``storage.follow_up_summary``): triggers mark a card stale
whenever what its follow-ups are worked out from changes, and readers work the stale cards
out again. ``recall check`` holds every row not marked stale equal to its card's follow-ups
worked out from the history now (every card's on a full pass, else those the replay notes
name as changed since); a card whose rows differ is reported, and ``--repair`` stores its
rows as worked out.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Sequence

from recall.core.presets import DeckPresets
from recall.scheduling import Scheduler, Schedulers
from recall.scheduling.follow_ups import Standing, follow_ups
from recall.storage import Transaction
from recall.storage.follow_up_summary import ACTIVE, FADED, WAITING, SummaryRow
from recall.storage.times import to_micros

_CHUNK = 500
_STANDINGS = {Standing.ACTIVE: ACTIVE, Standing.WAITING: WAITING, Standing.FADED: FADED}


def recomputed(
    transaction: Transaction, presets: DeckPresets, card_ids: Sequence[int]
) -> list[SummaryRow]:
    """The rows of some cards as their histories give them, worked out here from the
    entries and the rules (``scheduling.follow_ups``), apart from the study layer that
    writes the table: every follow-up but an active one whose option the card's text no
    longer marks wrong, due with fuzz and without."""
    found: list[SummaryRow] = []
    ordered = sorted(card_ids)
    fuzzed: dict[int, Scheduler] = {}
    plain: dict[int, Scheduler] = {}
    with_fuzz, without = Schedulers(fuzz=True), Schedulers(fuzz=False)
    for start in range(0, len(ordered), _CHUNK):
        for card in transaction.follow_ups.picked_cards(None, ordered[start : start + _CHUNK]):
            choices = json.loads(card.content).get("choices") or []
            notes = {
                str(choice["text"]): str(choice.get("why") or "")
                for choice in choices
                if isinstance(choice, dict) and "text" in choice and not choice.get("correct")
            }
            if card.deck_id not in fuzzed:
                fuzzed[card.deck_id] = with_fuzz.for_deck(presets, card.deck_id)
                plain[card.deck_id] = without.for_deck(presets, card.deck_id)
            wrong = set(notes)
            unfuzzed = {
                item.option: item
                for item in follow_ups(card.history, wrong, plain[card.deck_id], card.seed)
            }
            for item in follow_ups(card.history, wrong, fuzzed[card.deck_id], card.seed):
                if item.standing is Standing.ACTIVE and item.option not in wrong:
                    continue
                last_pick = to_micros(item.last_pick)
                assert last_pick is not None
                found.append(
                    SummaryRow(
                        card_id=card.card_id,
                        option=item.option,
                        standing=_STANDINGS[item.standing],
                        picks=item.picks,
                        last_pick=last_pick,
                        answers=item.answers,
                        picked_lately=item.picked_lately,
                        why=notes.get(item.option, ""),
                        state=int(item.memory.state),
                        step=item.memory.step,
                        stability=item.memory.stability,
                        difficulty=item.memory.difficulty,
                        due=to_micros(item.memory.due),
                        due_unfuzzed=to_micros(unfuzzed[item.option].memory.due),
                        last_review=to_micros(item.memory.last_review),
                    )
                )
    return found


def wrong_summaries(
    transaction: Transaction, presets: DeckPresets, noted: Collection[int] | None
) -> list[int]:
    """The cards whose kept rows differ from their follow-ups worked out from the history.

    Args:
        transaction: Where the summary and the histories are read.
        presets: The deck presets the follow-ups are scheduled by.
        noted: Only these cards (those changed since the last check), or None for every
            card that has follow-ups or may have them.
    """
    queries = transaction.follow_up_summary
    stale = set(queries.stale())
    kept: dict[int, list[SummaryRow]] = {}
    for _deck, row in queries.rows():
        kept.setdefault(row.card_id, []).append(row)
    candidates = set(queries.picked()) | set(kept)
    if noted is not None:
        candidates &= set(noted)
    ids = sorted(candidates - stale)
    fresh: dict[int, list[SummaryRow]] = {}
    for row in recomputed(transaction, presets, ids):
        fresh.setdefault(row.card_id, []).append(row)
    return [card_id for card_id in ids if _sorted(kept.get(card_id)) != _sorted(fresh.get(card_id))]


def rewrite(transaction: Transaction, presets: DeckPresets, card_ids: Sequence[int]) -> None:
    """Store the rows of ``card_ids`` as their histories give them now."""
    transaction.follow_up_summary.store(card_ids, recomputed(transaction, presets, card_ids))


def _sorted(rows: list[SummaryRow] | None) -> list[tuple[object, ...]]:
    # Read back, a flag is an integer; compared as the values it stands for.
    return sorted(
        (tuple(row._replace(picked_lately=bool(row.picked_lately))) for row in rows or []),
        key=lambda row: str(row[1]),
    )
