"""Anki's deck presets ("deck options") as Recall presets, and which deck uses which.

Anki keeps them as JSON in ``col.dconf`` (older collections, and the legacy export) or
as ``DeckConfig.Config`` protobuf blobs in the ``deck_config`` table, with each deck's
choice in its ``conf`` key or its ``Normal.config_id``. What Recall has an option for
comes along: desired retention, learning and relearning steps, maximum interval, daily
limits, fitted FSRS parameters, leech threshold and action, and sibling burying.
"""

from __future__ import annotations

import struct
from datetime import timedelta
from typing import Any

from recall.core.presets import PARAMETER_BOUNDS, PARAMETER_COUNT, Preset
from recall.importers import _protobuf
from recall.importers._collection import Collection

# DeckConfig.Config's fields (proto/anki/deck_config.proto).
_LEARN_STEPS, _RELEARN_STEPS = 1, 2
_PARAMS_5, _PARAMS_6 = 5, 6
_NEW_PER_DAY, _REVIEWS_PER_DAY, _MAXIMUM_INTERVAL = 9, 10, 16
_LEECH_ACTION, _LEECH_THRESHOLD = 21, 22
_BURY_NEW, _BURY_REVIEWS = 27, 28
_DESIRED_RETENTION = 37
_DECK_NORMAL, _DECK_CONFIG_ID = 1, 1  # Deck.kind's normal, Normal.config_id
# FSRS-5's 19 parameters are FSRS-6's with no short-term exponent and its fixed decay.
_FSRS_5_TAIL = (0.0, 0.5)
_MAX_STEPS = 10


def read_presets(collection: Collection) -> tuple[dict[int, Preset], dict[int, int]]:
    """Every Anki preset as a Recall preset by Anki's id, and each deck's preset id.

    A value Recall does not allow (a retention of 0.5, a hundred steps) is brought to the
    nearest one it does; parameters FSRS-6 would refuse are left out (FSRS's defaults).
    """
    legacy = collection._col_json("dconf")
    if legacy:
        presets = {
            int(key): _from_json(value)
            for key, value in legacy.items()
            if isinstance(value, dict) and str(key).lstrip("-").isdigit()
        }
        decks = {
            int(key): int(deck["conf"])
            for key, deck in collection._col_json("decks").items()
            if isinstance(deck, dict) and isinstance(deck.get("conf"), int)
        }
        return presets, decks
    if not collection.has_table("deck_config"):
        return {}, {}
    presets = {}
    for config_id, name, blob in collection.rows("SELECT id, name, config FROM deck_config"):
        if isinstance(config_id, int) and isinstance(blob, bytes):
            try:
                presets[config_id] = _from_protobuf(str(name), blob)
            except _protobuf.ProtobufError:
                continue
    deck_presets = {}
    for deck_id, kind in collection.rows("SELECT id, kind FROM decks"):
        if not isinstance(kind, bytes):
            continue
        try:
            normal = _protobuf.last_bytes(kind, _DECK_NORMAL)
            if normal is not None:
                deck_presets[int(deck_id)] = _protobuf.last_int(normal, _DECK_CONFIG_ID, 1)
        except _protobuf.ProtobufError:
            continue
    return presets, deck_presets


def _from_json(config: dict[str, Any]) -> Preset:
    new, review, lapse = (_part(config, key) for key in ("new", "rev", "lapse"))
    parameters = _numbers(config.get("fsrsParams6")) or _numbers(config.get("fsrsParams5"))
    return _preset(
        name=str(config.get("name", "")),
        learning=_numbers(new.get("delays")),
        relearning=_numbers(lapse.get("delays")),
        new_per_day=new.get("perDay"),
        reviews_per_day=review.get("perDay"),
        maximum_interval=review.get("maxIvl"),
        leech_threshold=lapse.get("leechFails"),
        leech_tags=lapse.get("leechAction") == 1,
        parameters=parameters,
        retention=config.get("desiredRetention"),
        bury_new=bool(new.get("bury", True)),
        bury_reviews=bool(review.get("bury", True)),
    )


def _from_protobuf(name: str, blob: bytes) -> Preset:
    found = list(_protobuf.fields(blob))

    def numbers(number: int) -> list[float]:
        values: list[float] = []
        for item in found:
            if item.number != number:
                continue
            if isinstance(item.value, bytes):  # packed
                values += [
                    v for (v,) in struct.iter_unpack("<f", item.value[: len(item.value) // 4 * 4])
                ]
            elif item.wire_type == _protobuf.FIXED32:
                values.append(_float(item.value))
        return [_shortest(value) for value in values]

    def whole(number: int, default: int = 0) -> int:
        return _protobuf.last_int(blob, number, default)

    retention = [
        _shortest(_float(item.value))
        for item in found
        if item.number == _DESIRED_RETENTION and isinstance(item.value, int)
    ]
    return _preset(
        name=name,
        learning=numbers(_LEARN_STEPS),
        relearning=numbers(_RELEARN_STEPS),
        new_per_day=whole(_NEW_PER_DAY),
        reviews_per_day=whole(_REVIEWS_PER_DAY),
        maximum_interval=whole(_MAXIMUM_INTERVAL),
        leech_threshold=whole(_LEECH_THRESHOLD),
        leech_tags=whole(_LEECH_ACTION) == 1,
        parameters=numbers(_PARAMS_6) or numbers(_PARAMS_5),
        retention=retention[-1] if retention else None,
        bury_new=bool(whole(_BURY_NEW)),
        bury_reviews=bool(whole(_BURY_REVIEWS)),
    )


def _preset(
    *,
    name: str,
    learning: list[float],
    relearning: list[float],
    new_per_day: object,
    reviews_per_day: object,
    maximum_interval: object,
    leech_threshold: object,
    leech_tags: bool,
    parameters: list[float],
    retention: object,
    bury_new: bool,
    bury_reviews: bool,
) -> Preset:
    default = Preset()
    if len(parameters) == PARAMETER_COUNT - len(_FSRS_5_TAIL):
        parameters = [*parameters, *_FSRS_5_TAIL]
    fitted = len(parameters) == PARAMETER_COUNT and all(
        low <= value <= high
        for value, (low, high) in zip(parameters, PARAMETER_BOUNDS, strict=True)
    )
    return Preset(
        name=name.strip() or "Anki preset",
        new_per_day=_within(new_per_day, 0, 9999, default.new_per_day),
        reviews_per_day=_within(reviews_per_day, 0, 99999, default.reviews_per_day),
        learning_steps=_steps(learning),
        relearning_steps=_steps(relearning),
        desired_retention=(
            min(max(float(retention), 0.70), 0.99)
            if isinstance(retention, int | float) and retention > 0
            else default.desired_retention
        ),
        maximum_interval=_within(maximum_interval, 1, 36500, default.maximum_interval),
        leech_threshold=_within(leech_threshold, 1, 99, default.leech_threshold),
        leech_action="tag" if leech_tags else "suspend",
        parameters=tuple(parameters) if fitted else (),
        bury_new_siblings=bury_new,
        bury_review_siblings=bury_reviews,
    )


def _part(config: dict[str, Any], key: str) -> dict[str, Any]:
    value = config.get(key)
    return value if isinstance(value, dict) else {}


def _numbers(value: object) -> list[float]:
    if not isinstance(value, list):
        return []
    return [float(item) for item in value if isinstance(item, int | float)]


def _steps(minutes: list[float]) -> tuple[timedelta, ...]:
    # Steps of a second or less are Anki's own rounding noise, not a step anyone set.
    kept = [timedelta(seconds=round(value * 60)) for value in minutes if value * 60 >= 1]
    return tuple(kept[:_MAX_STEPS])


def _within(value: object, low: int, high: int, default: int) -> int:
    if not isinstance(value, int | float) or isinstance(value, bool) or (value <= 0 and low > 0):
        return default
    return int(min(max(value, low), high))


def _float(bits: int) -> float:
    (value,) = struct.unpack("<f", struct.pack("<I", bits & 0xFFFF_FFFF))
    return float(value)


def _shortest(value: float) -> float:
    """The shortest decimal that is the same 32-bit float: 0.85, not 0.8500000238."""
    target = _single(value)
    for digits in range(1, 10):
        if _single(round(value, digits)) == target:
            return round(value, digits)
    return value


def _single(value: float) -> float:
    (rounded,) = struct.unpack("<f", struct.pack("<f", value))
    return float(rounded)
