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


def settle(transaction: Transaction, schedulers: Schedulers, seeds: dict[int, int]) -> None:
    """Give cards the seeds their keys have on every device, and replay them.

    A card here that holds such a seed but whose own keys have none yet (new to the other
    devices: moved here from those keys) gives it up for one worked out of it and its key
    (``SyncLocal.free_seed``), as the others will then be sent; a card holding it under
    keys that have it too keeps it, and the card settling takes a worked-out one.
    """
    synced = transaction.synced
    replay = set(seeds)
    for card_id, wanted in seeds.items():
        holder = synced.seed_owner(wanted)
        if holder is not None and holder != card_id:
            holder_keys = synced.card_keys([holder])[holder]
            stamped = transaction.sync.entities([("card", *holder_keys)])
            if values.SEED not in stamped.get(("card", *holder_keys), {}):
                synced.set_seed(holder, synced.free_seed(wanted, holder_keys[1]))
                replay.add(holder)
        key = synced.card_keys([card_id])[card_id][1]
        synced.set_seed(card_id, synced.free_seed(wanted, key, card_id))
    _replay(transaction, schedulers, replay)


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
