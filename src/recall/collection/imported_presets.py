"""An imported deck takes the preset it used where it came from: one already here with
the same options, or a new one under its name, which the other decks that used it share."""

from __future__ import annotations

import dataclasses

from recall.core.presets import DEFAULT_PRESET_ID, Preset
from recall.storage import Transaction


def give_preset(transaction: Transaction, deck_id: int, preset: Preset) -> bool:
    """Give a deck the imported preset, unless the learner chose it another one here.

    A preset with the same options (whatever its name) is shared rather than repeated;
    otherwise a new one is made under the imported name (numbered when the name is taken).

    Returns:
        Whether the deck's preset changed.
    """
    options = transaction.options
    presets = options.deck_presets()
    current = presets.preset_id_of(deck_id)
    if current != DEFAULT_PRESET_ID:
        return False  # a preset chosen here, or on an earlier import, stays
    same = [
        preset_id
        for preset_id, stored in sorted(presets.presets.items())
        if _options(stored) == _options(preset)
    ]
    if same:
        chosen = DEFAULT_PRESET_ID if DEFAULT_PRESET_ID in same else same[0]
    else:
        taken = {stored.name.casefold() for stored in presets.presets.values()}
        name, number = preset.name, 1
        while name.casefold() in taken:
            name = f"{preset.name} (imported{f' {number}' if number > 1 else ''})"
            number += 1
        chosen = options.save_preset(None, dataclasses.replace(preset, name=name))
    if chosen == current:
        return False
    options.set_deck_preset([deck_id], chosen)
    return True


def _options(preset: Preset) -> Preset:
    """The preset without what names it or lasts a day only."""
    return dataclasses.replace(
        preset, name="", extra_new_today=0, extra_reviews_today=0, extra_until=None
    )
