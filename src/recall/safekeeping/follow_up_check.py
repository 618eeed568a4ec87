"""Checking the follow-ups' kept summary against a recomputation from the history.

``follow_up_summary`` is derived (``storage.follow_up_summary``): triggers mark a card stale
whenever what its follow-ups are worked out from changes, and readers work the stale cards
out again. ``recall check`` holds every row not marked stale equal to its card's follow-ups
worked out from the history now (every card's on a full pass, else those the replay notes
name as changed since); a card whose rows differ is reported, and ``--repair`` stores its
rows as worked out.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from recall.core.presets import DeckPresets
from recall.storage import Transaction
from recall.storage.follow_up_summary import SummaryRow


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
    from recall.study.follow_up_summary import worked_out

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
    for _deck, row in worked_out(transaction, presets, ids):
        fresh.setdefault(row.card_id, []).append(row)
    return [card_id for card_id in ids if _sorted(kept.get(card_id)) != _sorted(fresh.get(card_id))]


def rewrite(transaction: Transaction, presets: DeckPresets, card_ids: Sequence[int]) -> None:
    """Store the rows of ``card_ids`` as their histories give them now."""
    from recall.study.follow_up_summary import worked_out

    rows = [row for _deck, row in worked_out(transaction, presets, card_ids)]
    transaction.follow_up_summary.store(card_ids, rows)


def _sorted(rows: list[SummaryRow] | None) -> list[SummaryRow]:
    return sorted(rows or [], key=lambda row: row.option)
