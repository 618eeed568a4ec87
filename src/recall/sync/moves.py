"""Cards moved to another deck: their deletion under the old keys names the new ones
(``moved``), and the new keys name the old (``from``), so a card held here moves with its
history, and what was done to it elsewhere before the move arrived (reviews, edits, field
by field) follows it. Sending, the new keys inherit the old keys' stamps; merging, copies
that two devices made by moving one card to two places are merged into the one the
winning moves lead to; before sending, a card under keys a card moved away from takes
new ones.
"""

from __future__ import annotations

import json
from datetime import datetime

from recall.storage import Transaction
from recall.storage.sync_local import CardColumns
from recall.storage.sync_state import Fields, Identity, OutboxRow
from recall.sync import values
from recall.sync.clock import newer


def follow(
    tx: Transaction,
    changed: dict[Identity, Fields],
    stored: dict[tuple[str, str], tuple[int, CardColumns]],
    decks: dict[str, tuple[int, str, str, int]],
    now: datetime,
) -> set[int]:
    """Put each card moved elsewhere under its new keys, with its history here (reviews
    made here before the move arrived included); ``stored`` and ``decks`` follow.

    Returns:
        The cards to replay.
    """
    replay: set[int] = set()
    for (_, deck_key, card_key), fields in changed.items():
        found = stored.get((deck_key, card_key))
        if found is None or not values.moved_away(fields):
            continue
        target = moved_to(tx, (deck_key, card_key))
        if target is None:
            continue
        there = stored.get(target) or tx.sync_local.cards([target]).get(target)
        if there is not None:
            tx.sync_local.hand_over_reviews(found[0], there[0])
            replay.add(there[0])
            continue  # the old card is deleted with the other deletions
        if target[0] not in decks:
            deck_id = tx.sync_local.add_deck(target[0], target[0], "", now)
            decks[target[0]] = (deck_id, target[0], "", 1)
        tx.sync_local.rekey_card(found[0], decks[target[0]][0], target[1])
        stored[target] = found
        del stored[(deck_key, card_key)]
        replay.add(found[0])
    return replay


def moved_to(
    tx: Transaction, identity: tuple[str, str], merged: bool = True
) -> tuple[str, str] | None:
    """Where a card deleted by a move lives now (following later moves, and copies merged
    into it unless ``merged`` is false), or None when it was not moved or was deleted for
    good.

    Every keys passed on the way lead where the first do, so the answer is remembered for
    each of them (``tx.sync_state.move_targets``, until stamped fields change): a chain of n moves
    is followed once, not once from each of its keys (n² steps)."""
    known = tx.sync_state.move_targets
    if (identity, merged) in known:
        return known[identity, merged]
    path: list[tuple[str, str]] = []
    seen = {identity}
    answer: tuple[str, str] | None = None
    while True:
        fields = tx.sync_state.entities([("card", *identity)]).get(("card", *identity), {})
        moved = fields.get(values.MOVED)
        if merged and values.MERGED in fields and values.DELETED not in fields:
            moved = fields[values.MERGED]
            if moved[2] is None:
                path.append(identity)
                break
        elif values.DELETED not in fields:
            answer = identity if path else None
            break
        elif moved is None or values.GONE in fields:
            path.append(identity)
            break
        path.append(identity)
        identity = (str(moved[2][0]), str(moved[2][1]))
        deck = tx.sync_state.entities([("deck", identity[0], "")]).get(
            ("deck", identity[0], ""), {}
        )
        if identity in seen or values.DELETED in deck:
            break
        if (identity, merged) in known:
            answer = known[identity, merged]
            break
        seen.add(identity)
    for passed in path:
        known[passed, merged] = answer
    return answer


def rekey_returned(tx: Transaction) -> int:
    """Give a new key to each card changed here that sits under keys a card was moved away
    from: keys the others hold as deleted (a move undone after it was synced), or keys
    whose card moved since the last round (the deck imported again meanwhile). Under
    those keys the next round would delete it, or would not send the move at all.

    Returns:
        How many cards got a new key.
    """
    rows = [row for row in tx.sync_state.outbox(tx.sync_state.outbox_end()) if row.kind == "card"]
    keys = tx.sync_local.card_keys(row.row_id for row in rows)
    stamped = tx.sync_state.entities(("card", *identity) for identity in keys.values())
    vacated = _vacated(tx, rows, keys)
    count = 0
    for card_id, (deck_key, card_key) in sorted(keys.items()):
        fields = stamped.get(("card", deck_key, card_key), {})
        returned = values.DELETED in fields and values.MOVED in fields
        if not returned and vacated.get((deck_key, card_key), card_id) == card_id:
            continue
        deck_id = tx.sync_local.decks([deck_key])[deck_key][0]
        taken = tx.browsing.keys(deck_id) | tx.sync_state.sent_card_keys(deck_key)
        number = 2
        while f"{card_key}-{number}" in taken:
            number += 1
        tx.browsing.move([(card_id, f"{card_key}-{number}")], deck_id)
        count += 1
    return count


def _vacated(
    tx: Transaction, rows: list[OutboxRow], keys: dict[int, tuple[str, str]]
) -> dict[tuple[str, str], int]:
    """Keys sent before whose card has moved to others since (old keys -> that card)."""
    moved = _moved(tx, rows, keys)
    sent = tx.sync_state.entities(("card", *identity) for identity in moved)
    return {
        identity: moved[identity][0]
        for identity in moved
        if (fields := sent.get(("card", *identity))) and values.DELETED not in fields
    }


def moved_since_sent(tx: Transaction, rows: list[OutboxRow]) -> dict[Identity, list[str]]:
    """The keys of cards moved to other keys since they were last sent, as noted in the
    outbox ``rows``: old keys -> the keys the card has now."""
    cards = [row for row in rows if row.kind == "card"]
    return {
        ("card", *before): list(now)
        for before, (_, now) in _moved(
            tx, cards, tx.sync_local.card_keys(r.row_id for r in cards)
        ).items()
    }


def _moved(
    tx: Transaction, rows: list[OutboxRow], keys: dict[int, tuple[str, str]]
) -> dict[tuple[str, str], tuple[int, tuple[str, str]]]:
    """Old keys -> (the card that held them, its keys now) of cards under other keys now.

    The first change noted under a card's old keys is that of the card that held them
    when they were last sent: a card taking them later is noted after it. A card under
    that id now whose seed is not the one sent for the old keys is another card (SQLite
    gives a deleted card's id to the next one added): the card that held them was deleted.
    """
    first: dict[tuple[str, str], int] = {}
    for row in rows:
        if row.detail is not None:
            deck_key, card_key = json.loads(row.detail)
            if deck_key is not None:
                first.setdefault((deck_key, card_key), row.row_id)
    moved = {
        identity: (card_id, keys[card_id])
        for identity, card_id in first.items()
        if card_id in keys and keys[card_id] != identity
    }
    if not moved:
        return moved
    sent = tx.sync_state.entities(("card", *identity) for identity in moved)
    now = tx.sync_local.cards(now_keys for _, now_keys in moved.values())
    return {
        identity: (card_id, now_keys)
        for identity, (card_id, now_keys) in moved.items()
        if (seed := sent.get(("card", *identity), {}).get(values.SEED)) is None
        or now_keys not in now
        or now[now_keys][1][values.SEED] == seed[2]
    }


# What belongs to a card's keys rather than to the card: it stays with the keys. (A card's
# seed moves with it, but is settled on its own: the first one sent wins.)
_OF_KEYS = (
    values.DELETED,
    values.GONE,
    values.MOVED,
    values.FROM,
    values.MERGED,
    values.CONTENT + "id",
)


def inherit(
    tx: Transaction, known: dict[Identity, Fields], moved: dict[Identity, list[str]]
) -> dict[Identity, list[str]]:
    """Give each card moved here since the last round, under its new keys, the stamped
    fields of its old ones (``known`` learns them): a field the move did not change keeps
    the stamp it had, so an edit made elsewhere under the old keys meanwhile still wins
    over it.

    Returns:
        The new keys, whose every field is to be sent (with its own stamp), and the old
        keys each came from (sent with them as ``from``).
    """
    old = tx.sync_state.entities(moved)
    whole: dict[Identity, list[str]] = {}
    for before, keys in moved.items():
        after: Identity = ("card", keys[0], keys[1])
        fields = old.get(before)
        if not fields or values.gone(fields) or known.get(after):
            continue
        known[after] = {name: list(held) for name, held in fields.items() if name not in _OF_KEYS}
        whole[after] = [before[1], before[2]]
    return whole


def forward(tx: Transaction, changed: dict[Identity, Fields]) -> None:
    """Carry what was done under a card's old keys to where it lives now: each field of
    keys a card was moved away from wins over that field of its new keys when it was
    stamped later (last writer wins per field, whichever keys it was written under).
    The new keys join ``changed`` when one of their fields changed."""
    targets: dict[Identity, list[Identity]] = {}
    for identity, fields in changed.items():
        if values.moved_away(fields):
            found = moved_to(tx, (identity[1], identity[2]))
            if found is not None:
                targets.setdefault(("card", *found), []).append(identity)
    if not targets:
        return
    stored = tx.sync_state.entities(targets)
    updates: list[tuple[Identity, Fields]] = []
    for target, sources in targets.items():
        fields = changed.get(target) or stored.get(target) or {}
        if values.gone(fields):
            continue
        touched = False
        for source in sources:
            for name, held in changed[source].items():
                if name in (*_OF_KEYS, values.SEED) or not newer(
                    int(held[0]), str(held[1]), held[2], fields.get(name)
                ):
                    continue
                fields[name] = list(held)
                touched = True
        if touched:
            changed[target] = fields
            updates.append((target, fields))
    tx.sync_state.put_entities(updates)


def _tops(
    nodes: list[tuple[str, str]], parents: dict[tuple[str, str], tuple[str, str]]
) -> dict[tuple[str, str], tuple[str, str]]:
    """The keys each of ``nodes`` came from by the moves before it (its parents' parent...),
    each node of the way looked at once however many share it. Keys moved in a circle
    (only files written by hand make one) all come from the least of the circle."""
    top: dict[tuple[str, str], tuple[str, str]] = {}
    for start in nodes:
        path: list[tuple[str, str]] = []
        on_path: set[tuple[str, str]] = set()
        node = start
        while True:
            if node in top:
                found = top[node]
                break
            if node in on_path:
                found = min(path[path.index(node) :])
                break
            path.append(node)
            on_path.add(node)
            if node not in parents:
                found = node
                break
            node = parents[node]
        for passed in path:
            top[passed] = found
    return top


def settle_copies(tx: Transaction, changed: dict[Identity, Fields]) -> None:
    """Make one card of the copies two devices made by moving one card to two places
    while apart: the card lives where the winning moves lead from the keys it had before
    any of them (at each keys the move with the greater stamp, then device, wins). Each
    other copy is marked ``merged`` into it (so its history and what was done to it
    follow it); if the winning moves end in a deletion, every copy is deleted. The marks
    are worked out again from the moves whenever one arrives (a copy's keys can turn out
    to be where the card lives, when a later move to the same keys wins); marks that
    change are put in ``changed``."""
    involved = [
        (deck, card)
        for (_, deck, card), fields in changed.items()
        if values.FROM in fields or values.MOVED in fields
    ]
    if not involved:
        return
    parents = tx.sync_state.moved_from()
    stamps = tx.sync_state.entities(("card", *node) for node in {*parents, *parents.values()})

    def moved_away(node: tuple[str, str]) -> bool:
        fields = stamps.get(("card", *node), {})
        return values.DELETED in fields and values.MOVED in fields

    # A move counts once its old keys' deletion is here (a file can arrive in parts).
    parents = {child: parent for child, parent in parents.items() if moved_away(parent)}
    children: dict[tuple[str, str], list[tuple[str, str]]] = {}
    for child, parent in sorted(parents.items()):
        children.setdefault(parent, []).append(child)
    top = _tops(involved, parents)
    roots = {root for root in top.values() if root in children}
    updates: list[tuple[Identity, Fields]] = []
    for root in sorted(roots):
        final = moved_to(tx, root, merged=False)
        stamp, device, _ = stamps[("card", *root)][values.MOVED]
        nodes, todo = set(), [root]
        while todo:
            node = todo.pop()
            if node not in nodes:
                nodes.add(node)
                todo += children.get(node, [])
        for identity, fields in sorted(tx.sync_state.entities(("card", *n) for n in nodes).items()):
            copy = values.DELETED not in fields and (identity[1], identity[2]) != final
            mark = [stamp, device, None if final is None else list(final)]
            if copy and fields.get(values.MERGED) != mark:
                fields[values.MERGED] = mark
            elif not copy and values.MERGED in fields:
                del fields[values.MERGED]
            else:
                continue
            changed[identity] = fields
            updates.append((identity, fields))
    tx.sync_state.put_entities(updates)
