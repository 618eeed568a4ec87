"""The command line's `options` and `optimize`: a deck's preset, and parameters fitted to history.

They check and word everything as the deck options window does: the same option
declarations, the same messages.
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

from recall.cli.shared import now, open_database, print_json, say
from recall.core import fields, wording
from recall.core.i18n import tr, trn
from recall.core.presets import Preset

if TYPE_CHECKING:
    from recall.cli.shared import Commands
    from recall.storage import Database


def add_commands(commands: Commands) -> None:
    """Add `options` and `optimize` to the command line's subcommands."""
    options = commands.add_parser(
        "options",
        help=tr("show or change a deck's preset (new_per_day, desired_retention, ...)"),
        description=tr(
            "Without DECK_ID, list the presets and their decks. With it, show the "
            "deck's preset; --set changes it for every deck sharing it, rescheduling their cards "
            "from history when steps, retention, maximum interval or parameters change (after a "
            "backup)."
        ),
    )
    options.add_argument("deck", nargs="?", metavar="DECK_ID")
    options.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help=tr(
            "change an option, e.g. new_per_day=10, learning_steps='1m 10m', "
            "desired_retention=0.85 (repeatable)"
        ),
    )
    options.add_argument(
        "--preset",
        metavar="NAME",
        help=tr("give the deck this preset; a new name makes a copy of its current one"),
    )
    options.add_argument("--json", action="store_true", help=tr("print JSON"))
    options.set_defaults(handler=_options)

    optimize = commands.add_parser(
        "optimize",
        help=tr("fit FSRS parameters to your review history and say whether they fit better"),
        description=tr(
            "Fit the FSRS parameters of a deck's preset (the default preset without "
            "--deck) to the review history of every deck using it, with fsrs-rs-python, and "
            "compare the fit with the current parameters on the same reviews."
        ),
    )
    optimize.add_argument("--deck", metavar="DECK_ID", help=tr("fit the preset this deck uses"))
    optimize.add_argument(
        "--apply",
        action="store_true",
        help=tr(
            "store the fitted parameters if they fit better, rescheduling from history "
            "after a backup"
        ),
    )
    optimize.add_argument("--json", action="store_true", help=tr("print JSON"))
    optimize.set_defaults(handler=_optimize)


def _options(args: argparse.Namespace) -> int:
    from recall.core import presets
    from recall.options import deck_options
    from recall.scheduling import Schedulers

    if args.deck is None and (args.set or args.preset):
        raise fields.OptionError(tr("--set and --preset need a DECK_ID (see `recall decks`)"))
    changes = presets.parse_changes(args.set)
    database = open_database(args)
    try:
        if args.deck is None:
            return _list_presets(database, args.json)
        schedulers = Schedulers()
        notes: list[str] = []
        if args.preset:
            notes.append(_choose_preset(database, schedulers, args.deck, args.preset))
        if changes:
            current = deck_options.deck_options(database, args.deck)
            change = deck_options.change_preset(
                database, schedulers, current.preset_id, changes, now()
            )
            shared = len(current.sharing)
            described = _described(change.presets_after[current.preset_id], changes)
            if shared > 1:
                note = tr("changed preset {preset} (shared by {count} decks): {changes}")
            else:
                note = tr("changed preset {preset}: {changes}")
            notes.append(
                note.format(preset=repr(current.preset.name), count=shared, changes=described)
            )
            if change.rescheduled:
                notes.append(
                    trn(
                        "rescheduled {count} card from their history (backup first: {backup})",
                        "rescheduled {count} cards from their history (backup first: {backup})",
                        change.rescheduled,
                    ).format(count=wording.number(change.rescheduled), backup=change.backup)
                )
        shown = deck_options.deck_options(database, args.deck)
    finally:
        database.close()
    for note in notes:
        say(note, to_stderr=True)
    preset = shown.preset
    if args.json:
        print_json(_preset_json(shown))
        return 0
    say(
        tr("deck {key} ({deck}) uses preset {preset}, shared by: {decks}").format(
            key=shown.deck.key,
            deck=shown.deck.name,
            preset=repr(preset.name),
            decks=", ".join(shown.sharing),
        )
    )
    items = [item for item in fields.describe(Preset) if item.editable]
    width = max(len(item.key) for item in items)
    for item in items:
        value = fields.format_value(getattr(preset, item.key), item)
        if item.key == "parameters" and not preset.parameters:
            value = tr("FSRS defaults")
        extra = item.key.startswith("extra_") and getattr(preset, item.key)
        if extra and preset.extra_until is not None:
            until = f"{preset.extra_until.astimezone():%Y-%m-%d %H:%M}"
            value += " " + tr("(today only, until {time})").format(time=until)
        say(f"  {item.key.ljust(width)}  {value}")
    for warning in preset.warnings():
        say(tr("warning: {warning}").format(warning=warning), to_stderr=True)
    return 0


def _described(preset: Preset, changes: dict[str, Any]) -> str:
    return ", ".join(
        f"{key} = {fields.format_value(getattr(preset, key), fields.info(Preset, key))}"
        for key in changes
    )


def _choose_preset(database: Database, schedulers: Any, deck_key: str, name: str) -> str:
    from recall.options import deck_options

    current = deck_options.deck_options(database, deck_key)
    try:
        preset_id = deck_options.find_preset(current.presets, name)
        made = ""
    except deck_options.PresetError:
        preset_id = deck_options.add_preset(database, name, current.preset)
        made = " " + tr("(a new preset, copied from {preset})").format(
            preset=repr(current.preset.name)
        )
    change = deck_options.use_preset(database, schedulers, [current.deck.id], preset_id, now())
    line = tr("deck {deck} now uses preset {preset}").format(deck=deck_key, preset=repr(name))
    if change.rescheduled:
        rescheduled = trn(
            "{count} card rescheduled", "{count} cards rescheduled", change.rescheduled
        )
        return f"{line}{made}; {rescheduled.format(count=wording.number(change.rescheduled))}"
    return f"{line}{made}"


def _list_presets(database: Database, as_json: bool) -> int:
    with database.reading() as transaction:
        book = transaction.options.deck_presets()
        decks = transaction.options.decks()
    rows: list[dict[str, Any]] = [
        {
            "id": preset_id,
            "name": preset.name,
            "decks": [deck.key for deck in decks if book.preset_id_of(deck.id) == preset_id],
        }
        for preset_id, preset in sorted(book.presets.items())
    ]
    if as_json:
        print_json(rows)
        return 0
    for row in rows:
        say(f"{row['name']}: {', '.join(row['decks']) or tr('(no decks)')}")
    return 0


def _preset_json(shown: Any) -> dict[str, Any]:
    preset: Preset = shown.preset
    stored = fields.to_stored(preset)
    stored["learning_steps"] = fields.format_steps(preset.learning_steps)
    stored["relearning_steps"] = fields.format_steps(preset.relearning_steps)
    return {
        "deck": shown.deck.key,
        "preset_id": shown.preset_id,
        "preset": stored,
        "shared_by": shown.sharing,
        "warnings": preset.warnings(),
    }


def _optimize(args: argparse.Namespace) -> int:
    from recall.core.presets import DEFAULT_PRESET_ID
    from recall.options import deck_options, optimizing
    from recall.scheduling import Schedulers

    database = open_database(args)
    try:
        preset_id = DEFAULT_PRESET_ID
        if args.deck is not None:
            preset_id = deck_options.deck_options(database, args.deck).preset_id
        report = optimizing.optimize_preset(
            database, Schedulers(), preset_id, now(), apply=args.apply
        )
    finally:
        database.close()
    if args.json:
        print_json(report.to_json())
        return 0
    for line in report.words().split("\n"):
        say(line)
    if report.result.better and not report.applied:
        print(tr("run again with --apply to use them"), file=sys.stderr)
    return 0
