"""Cards carried over from before seeds: each given a seed of its own before it is first sent.

A card's seed seeds its interval fuzz and names it in ``recall export-reviews``; sync
carries it so every computer schedules and exports the card the same. The upgrade that
added seeds gave each existing card its id, and ids are numbered by each database: two
computers' carried-over cards would claim the same seeds for different cards. So before a
computer first sends its cards, each that still has its id as seed draws a random one and
is replayed from its history (its due date may move by the fuzz, a day or so).
"""

from __future__ import annotations

from recall.scheduling import Schedulers, memory_of
from recall.storage import Transaction
from recall.sync import values

# When a card's seed was sent, and by which device: which of two claims came first.
Stamp = tuple[int, str]
# Above this many cards, every card is read in one pass instead of one by one.
_LOOK_UP_AT_MOST = 2_000


def reseed_carried_over(transaction: Transaction, schedulers: Schedulers) -> int:
    """Give every card whose seed is its id a random one, and replay it.

    Returns:
        How many cards were given a seed.
    """
    carried = set(transaction.cards.carried_over())
    if not carried:
        return 0
    transaction.cards.reseed(sorted(carried))
    _replay(transaction, schedulers, carried)
    return len(carried)


def settle(
    transaction: Transaction, schedulers: Schedulers, seeds: dict[int, tuple[int, Stamp]]
) -> None:
    """Give cards the seeds their keys have on every device (with the stamp each was sent
    at), and replay them (``claim``)."""
    replay = set(seeds)
    for card_id, (wanted, stamp) in seeds.items():
        deck, key = transaction.sync_local.card_keys([card_id])[card_id]
        transaction.sync_local.set_seed(
            card_id, claim(transaction, wanted, (deck, key), stamp, card_id, replay)
        )
    _replay(transaction, schedulers, replay)


def claim(
    transaction: Transaction,
    wanted: int,
    keys: tuple[str, str],
    stamp: Stamp,
    owner: int | None,
    replay: set[int],
) -> int:
    """The seed a card (``owner``, or one being added, by its ``keys``: deck and card) takes
    when its keys were sent ``wanted`` at ``stamp``.

    Two cards here can want one seed: a card moved to another deck and one made again
    under its old keys, or two that drew one random seed. The one whose keys were sent it
    first keeps it (a card whose keys were never sent it counts as last); the other takes
    one worked out of it and its own key (``SyncLocalQueries.free_seed``), as every device works
    it out, and is replayed (added to ``replay``).
    """
    synced = transaction.sync_local
    holder = synced.seed_owner(wanted)
    if holder is not None and holder != owner:
        holder_keys = synced.card_keys([holder])[holder]
        fields = transaction.sync_state.entities([("card", *holder_keys)]).get(
            ("card", *holder_keys)
        )
        held = (fields or {}).get(values.SEED)
        # Of two sent it at one stamp by one device (a buggy writer), the lesser keys keep
        # it: every device settles the same, whichever card it read first.
        first = held is not None and (
            held[2] == wanted
            and (int(held[0]), str(held[1]), holder_keys[1], holder_keys[0])
            < (*stamp, keys[1], keys[0])
        )
        if not first:
            synced.set_seed(holder, synced.free_seed(wanted, holder_keys[1]))
            replay.add(holder)
    return synced.free_seed(wanted, keys[1], owner)


def _replay(transaction: Transaction, schedulers: Schedulers, cards: set[int]) -> None:
    presets = transaction.options.deck_presets()
    only = None if len(cards) > _LOOK_UP_AT_MOST else cards
    memories = []
    for card_id, seed, deck_id, schedule, history in transaction.history.schedules_and_histories(
        only
    ):
        if card_id not in cards:
            continue
        memory = schedulers.for_deck(presets, deck_id).replay_raw(seed, history)
        if memory != schedule:
            memories.append((card_id, memory_of(memory)))
    transaction.cards.set_memories(memories)
