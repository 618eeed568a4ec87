"""Collections studied with Anki's own scheduler under a moved clock, exported as packages.

Anki reads the time from the system clock (its Rust backend as well as its Python), so the
collection is built in a child process with ``moved_clock.c`` preloaded: it adds the
offset in ``MOVED_CLOCK_OFFSET`` to every reading of the real-time clock, and the child
moves it from day to day. The child studies a deck on the default preset and one on a
custom preset, at varying hours, then suspends, buries, flags, forgets and sets due dates,
exports the package and writes what Anki says of every card (and how many are due the
next day) as JSON.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

HERE = Path(__file__).parent
DAY = 86_400
CUSTOM = "Custom preset"


@dataclass(frozen=True)
class Studied:
    """A package and what Anki says about it."""

    package: Path
    export_time: float  # seconds since the epoch, on the moved clock
    anki: dict[str, Any]


def build_clock(folder: Path) -> Path:
    """The moved clock compiled into a shared library in ``folder``."""
    library = folder / "moved_clock.so"
    subprocess.run(
        ["gcc", "-shared", "-fPIC", "-O2", "-o", str(library), str(HERE / "moved_clock.c"), "-ldl"],
        check=True,
    )
    return library


def study(
    folder: Path, notes: int, days: int, fsrs: bool, seed: int, legacy: bool = False
) -> Studied:
    """A collection of ``notes`` notes studied for ``days`` days, exported as an ``.apkg``."""
    library = build_clock(folder)
    spec = {"folder": str(folder), "notes": notes, "days": days, "fsrs": fsrs, "seed": seed}
    spec["legacy"] = legacy
    environment = {**os.environ, "LD_PRELOAD": str(library), "TZ": "UTC"}
    subprocess.run(
        [sys.executable, str(Path(__file__)), json.dumps(spec)],
        check=True,
        env=environment,
        cwd=str(HERE.parent.parent),
    )
    result = json.loads((folder / "anki.json").read_text())
    return Studied(folder / "studied.apkg", result["export_time"], result)


def _move_to(moment: float) -> None:
    os.environ["MOVED_CLOCK_OFFSET"] = str(round(moment - _real_now()))


def _real_now() -> float:
    offset = int(os.environ.get("MOVED_CLOCK_OFFSET", "0"))
    return time.time() - offset


def _child(spec: dict[str, Any]) -> None:
    from anki.collection import Collection, ExportAnkiPackageOptions

    # isort: split
    from anki.decks import DeckId

    folder = Path(spec["folder"])
    rng = random.Random(spec["seed"])
    start = 1_700_000_000 - 1_700_000_000 % DAY + 4 * 3600 + DAY  # a rollover, 2023-11-15
    _move_to(start + 3600)
    home = folder / "profile"
    home.mkdir()
    col = Collection(str(home / "collection.anki2"))
    col.set_config("fsrs", bool(spec["fsrs"]))
    default_deck = col.decks.id("Default studies")
    custom_deck = col.decks.id("Custom studies")
    assert default_deck is not None
    assert custom_deck is not None
    config_id = col.decks.add_config_returning_id(CUSTOM)
    config = col.decks.get_config(config_id)
    assert config is not None
    config["desiredRetention"] = 0.85
    config["new"]["delays"] = [2.0, 15.0, 60.0]
    config["lapse"]["delays"] = [5.0]
    config["rev"]["maxIvl"] = 180
    config["new"]["perDay"] = 15
    config["rev"]["perDay"] = 150
    config["lapse"]["leechFails"] = 5
    config["lapse"]["leechAction"] = 1
    # Parameters as if fitted: FSRS-6's defaults, the first four stabilities doubled.
    from fsrs.scheduler import DEFAULT_PARAMETERS

    config["fsrsParams6"] = [w * 2 if i < 4 else w for i, w in enumerate(DEFAULT_PARAMETERS)]
    col.decks.update_config(config)
    deck = col.decks.get(custom_deck)
    assert deck is not None
    deck["conf"] = config_id
    col.decks.save(deck)
    models = col.models
    basic, reversed_, cloze = (
        models.by_name(name) for name in ("Basic", "Basic (and reversed card)", "Cloze")
    )
    for index in range(spec["notes"]):
        model = (basic, reversed_, cloze)[index % 3]
        assert model is not None
        note = col.new_note(model)
        if index % 3 == 2:
            note.fields[0] = f"{{{{c1::word {index}}}}} and {{{{c2::other {index}}}}}"
        else:
            note.fields[0], note.fields[1] = f"question {index}", f"answer {index}"
        col.add_note(note, DeckId(custom_deck if index % 2 else default_deck))
    for day in range(spec["days"]):
        day_start = start + day * DAY
        hour = rng.choice([0.5, 2, 6, 9, 13, 17, 20, 22.5, 23.5])
        moment = day_start + hour * 3600
        if rng.random() < 0.15:
            continue  # a day without study
        for did in (default_deck, custom_deck):
            col.decks.select(DeckId(did))
            for _ in range(400):
                _move_to(moment)
                card = col.sched.getCard()
                if card is None:
                    break
                ease: Literal[1, 2, 3, 4] = rng.choices((1, 2, 3, 4), weights=(15, 10, 65, 10))[0]
                col.sched.answerCard(card, ease)
                moment += rng.uniform(4, 40)
    final = start + spec["days"] * DAY + 10 * 3600
    _move_to(final)
    studied = list(col.find_cards("-is:new"))
    rng.shuffle(studied)
    special = {
        "forget": studied[0:4],
        "set_due": studied[4:8],
        "suspend": studied[8:14],
        "bury": studied[14:18],
        "flag": studied[18:24],
    }
    new_cards = list(col.find_cards("is:new"))
    col.sched.schedule_cards_as_new(special["forget"])
    col.sched.set_due_date(special["set_due"][:2], "3")
    col.sched.set_due_date(special["set_due"][2:] + new_cards[:2], "0")
    col.sched.suspend_cards(special["suspend"] + new_cards[2:4])
    col.sched.bury_cards(special["bury"])
    col.set_user_flag_for_cards(2, special["flag"][:3])
    col.set_user_flag_for_cards(5, special["flag"][3:])
    # Burying new siblings is turned on only now, so no card is buried during study.
    config = col.decks.get_config(config_id)
    assert config is not None
    config["new"]["bury"] = True
    col.decks.update_config(config)
    _move_to(final + 600)
    export_time = time.time()
    options = ExportAnkiPackageOptions(
        with_scheduling=True, with_deck_configs=True, with_media=False, legacy=spec["legacy"]
    )
    col.export_anki_package(out_path=str(folder / "studied.apkg"), options=options, limit=None)
    cards = {}
    for card_id in col.find_cards(""):
        card = col.get_card(card_id)
        memory = card.memory_state
        cards[str(card_id)] = {
            "type": card.type,
            "queue": card.queue,
            "due": card.due,
            "ivl": card.ivl,
            "flag": card.user_flag(),
            "note": card.nid,
            "stability": memory.stability if memory else None,
            "difficulty": memory.difficulty if memory else None,
            "preset": col.decks.config_dict_for_deck_id(card.did)["name"],
        }
    today = col.sched.today
    _move_to(final + DAY)
    tomorrow = col.sched.today
    assert col.db is not None
    due_tomorrow = col.db.scalar("SELECT count() FROM cards WHERE queue = 2 AND due <= ?", tomorrow)
    result = {
        "export_time": export_time,
        "today": today,
        "crt": col.crt,
        "cards": cards,
        "special": special,
        "due_tomorrow": due_tomorrow,
        "config": {
            "desired_retention": config["desiredRetention"],
            "learning_steps": config["new"]["delays"],
        },
        "configs": {config["name"]: config for config in col.decks.all_config()},
        "deck_presets": {
            deck["name"]: col.decks.config_dict_for_deck_id(deck["id"])["name"]
            for deck in col.decks.all()
        },
    }
    (folder / "anki.json").write_text(json.dumps(result))
    col.close()


if __name__ == "__main__":
    _child(json.loads(sys.argv[1]))
