"""A hybrid logical clock: stamps that follow the wall clock and never go backwards.

A stamp is an integer of UTC microseconds. Each change made here gets the later of the
wall clock at the change and one more than the last stamp made or seen; each stamp read
from another device moves the clock up to it. So a change made after seeing another
device's change always has the later stamp, whatever the two wall clocks say, and a
device whose clock runs ahead cannot make its old changes win forever: the others'
clocks catch up with its stamps as soon as they read them. Two equal stamps are ordered
by the id of the device that made them, and two values one device stamped alike (a buggy
writer) by their canonical JSON: a total order, so every device keeps the same value
whatever order the events arrive in.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any


@dataclass
class Clock:
    """This device's clock.

    Attributes:
        value: The last stamp made or seen.
    """

    value: int

    def tick(self, physical: int) -> int:
        """A stamp for a change made at wall-clock time ``physical`` (UTC microseconds)."""
        self.value = max(physical, self.value + 1)
        return self.value

    def observe(self, stamp: int) -> None:
        """Move the clock up to a stamp read from another device."""
        self.value = max(self.value, stamp)


def canonical(value: Any) -> str:
    """A value as the tie-break compares it: JSON with sorted keys."""
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def newer(stamp: int, device: str, value: Any, than: list[Any] | None) -> bool:
    """Whether (``stamp``, ``device``, ``value``) wins over a stored ``[stamp, device,
    value]``: the later stamp, then the greater device id, then the greater value."""
    if than is None:
        return True
    return _order(stamp, device, value) > _order(int(than[0]), str(than[1]), than[2])


def earlier(stamp: int, device: str, value: Any, than: list[Any] | None) -> bool:
    """Whether (``stamp``, ``device``, ``value``) comes before a stored ``[stamp, device,
    value]``: how a field set once (a card's seed) is settled, the first value sent
    winning (of two sent alike, the lesser)."""
    if than is None:
        return True
    return _order(stamp, device, value) < _order(int(than[0]), str(than[1]), than[2])


def _order(stamp: int, device: str, value: Any) -> tuple[int, str, str]:
    return (stamp, device, canonical(value))
