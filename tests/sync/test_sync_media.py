"""Images and sounds through the sync folder: real files, each case a sync program makes."""

from __future__ import annotations

import hashlib
import json
import os
import random
import shutil
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from recall.changes import editing
from recall.collection import importing
from recall.content import card_html
from recall.content.deck_format import parse_deck
from recall.core.errors import CancelledError
from recall.host import paths
from recall.sync import media
from recall.sync.report import MEDIA_COUNTED
from recall.sync.rounds import sync
from tests.helpers.anki_packages import picture_and_sound_package
from tests.helpers.kills import kill_rounds, round_length
from tests.helpers.sync_devices import Device, read_only

START = datetime(2026, 11, 2, 8, 0, tzinfo=UTC)
PICTURE = b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 40  # a "picture" of 10 KB
SOUND = b"ID3\x03\x00" + b"miaou " * 2000


def _media_dir(device: Device) -> Path:
    return paths.media_dir(device.database.path.parent)


def _sent_folder(shared: Path, report_device: str) -> Path:
    return shared / "Recall" / report_device / media.FOLDER


def _stored(data: bytes, suffix: str) -> str:
    return f"{hashlib.sha256(data).hexdigest()}{suffix}"


def _place(device: Device, data: bytes, suffix: str) -> str:
    """Put a file into a device's media folder, as an import does; returns its name."""
    name = _stored(data, suffix)
    folder = _media_dir(device)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_bytes(data)
    return name


def _deck(cards: dict[str, tuple[str, str]], key: str = "pics") -> str:
    return json.dumps(
        {
            "format": "recall-deck",
            "version": 1,
            "id": key,
            "name": "Pictures",
            "cards": [
                {"id": card, "type": "basic", "markup": "html", "front": front, "back": back}
                for card, (front, back) in cards.items()
            ],
        }
    )


def _import(device: Device, cards: dict[str, tuple[str, str]]) -> None:
    importing.import_deck(device.database, parse_deck(_deck(cards), "pics.json"), START)


def _wanted(device: Device) -> list[tuple[str, str, str]]:
    with device.database.reading() as transaction:
        return transaction.sync_media.wanted()


def test_a_card_lists_the_stored_media_its_content_refers_to() -> None:
    picture, tune = _stored(b"a", ".png"), _stored(b"b", ".mp3")
    other = _stored(b"c", ".jpg")
    content = {
        "front": f'<p>x <img alt="a" src="{picture}"> <IMG SRC=\'{other}\'></p>',
        "back": f'[sound:{tune}] [sound:miaou.mp3] <img src="../../secret.png">',
        "choices": [{"text": f"<img src=&quot;{picture}&quot;>", "why": None}],
        "tags": ["src"],
    }
    assert media.card_media(content) == {picture, tune, other}
    # Names that are not stored media names never count: they could address other files.
    assert media.card_media({"front": '<img src="/etc/passwd"> [sound:../x.mp3]'}) == set()
    assert media.card_media([[f"[sound:{tune}]"]]) == {tune}


def test_an_image_and_a_sound_reach_the_other_device_byte_for_byte(
    pair: tuple[Device, Device], tmp_path: Path, shared: Path
) -> None:
    laptop, desktop = pair
    package = picture_and_sound_package(tmp_path, PICTURE, SOUND)
    importing.import_files(laptop.database, laptop.schedulers, [package], START)
    names = sorted(path.name for path in _media_dir(laptop).iterdir())
    assert sorted(name.rsplit(".", 1)[1] for name in names) == ["mp3", "png"]
    assert all(card_html.is_media_name(name) for name in names)

    sent = laptop.sync(START)
    assert sent.sent[MEDIA_COUNTED] == 2
    assert "2 media files" in sent.lines()[1]
    assert sorted(path.name for path in _sent_folder(shared, sent.device[0]).iterdir()) == names
    received = desktop.sync(START)
    assert received.received[MEDIA_COUNTED] == 2
    assert "2 media files" in received.lines()[2]
    for name in names:
        assert (_media_dir(desktop) / name).read_bytes() == (_media_dir(laptop) / name).read_bytes()
    assert _wanted(desktop) == []
    # The desktop's first round that has something to send is a snapshot (as every
    # device's): it holds the files now, and writes them beside its own events too.
    echo = desktop.sync(START)
    assert echo.snapshot
    assert echo.sent[MEDIA_COUNTED] == 2
    assert sorted(path.name for path in _sent_folder(shared, echo.device[0]).iterdir()) == names
    back = laptop.sync(START)  # the laptop reads that snapshot: its files it has already
    assert MEDIA_COUNTED not in back.received
    assert back.notes == []
    # Nothing new: neither device sends, receives or notes anything again.
    for device in (laptop, desktop, laptop):
        quiet = device.sync(START)
        assert not quiet.sent
        assert not quiet.received
        assert quiet.notes == []


def test_a_damaged_or_partly_arrived_file_is_not_taken_until_it_is_whole(
    pair: tuple[Device, Device], shared: Path
) -> None:
    laptop, desktop = pair
    name = _place(laptop, PICTURE, ".png")
    _import(laptop, {"c1": (f'<img src="{name}">', "a picture")})
    report = laptop.sync(START)
    sent = _sent_folder(shared, report.device[0]) / name
    whole = sent.read_bytes()
    assert whole == PICTURE
    sent.write_bytes(whole[: len(whole) // 3])  # the sync program has moved a third of it

    first = desktop.sync(START)
    assert first.received["card"] == 1
    assert MEDIA_COUNTED not in first.received
    assert not (_media_dir(desktop) / name).exists()
    assert not [path for path in _media_dir(desktop).iterdir() if path.name.endswith(".tmp")]
    assert any(
        "1 media file in the sync folder does not match its name" in note and name[:8] in note
        for note in first.notes
    )
    assert _wanted(desktop) == [(name, "pics", "c1")]

    sent.write_bytes(whole[:-1] + b"\x00")  # the right length, one byte wrong: damaged
    assert MEDIA_COUNTED not in desktop.sync(START).received

    sent.write_bytes(whole)  # the rest arrived
    second = desktop.sync(START)
    assert second.received == {MEDIA_COUNTED: 1}  # the card itself did not change again
    assert (_media_dir(desktop) / name).read_bytes() == PICTURE
    assert _wanted(desktop) == []
    assert second.notes == []


def test_media_arriving_a_round_after_its_card_is_fetched_then(
    pair: tuple[Device, Device], shared: Path, tmp_path: Path
) -> None:
    laptop, desktop = pair
    picture = _place(laptop, PICTURE, ".png")
    tune = _place(laptop, SOUND, ".mp3")
    _import(laptop, {"c1": (f'<img src="{picture}">', f"listen [sound:{tune}]")})
    report = laptop.sync(START)
    folder = _sent_folder(shared, report.device[0])
    # The sync program delivered the event file but not the media folder yet.
    held_back = tmp_path / "on-the-way"
    folder.rename(held_back)

    first = desktop.sync(START)
    assert first.received["card"] == 1
    assert any(
        "2 media files" in note and "not arrived yet" in note and tune[:8] in note
        for note in first.notes
    )
    held_back.rename(folder)
    later = START + timedelta(hours=1)
    second = desktop.sync(later)
    assert second.received == {MEDIA_COUNTED: 2}
    assert (_media_dir(desktop) / picture).read_bytes() == PICTURE
    assert (_media_dir(desktop) / tune).read_bytes() == SOUND
    assert second.notes == []
    assert desktop.sync(later).received == {}


def test_an_image_referenced_by_an_edit_follows_the_edit(
    pair: tuple[Device, Device], shared: Path
) -> None:
    laptop, desktop = pair
    _import(laptop, {"c1": ("Which animal?", "a cat")})
    laptop.sync(START)
    desktop.sync(START)
    new = _place(laptop, PICTURE, ".png")
    with laptop.database.reading() as transaction:
        card_id, columns = transaction.sync_local.cards([("pics", "c1")])[("pics", "c1")]
    data = editing.card_data(columns["content"])
    later = START + timedelta(hours=1)
    editing.edit_card(
        laptop.database, card_id, {**data, "front": f'Which? <img src="{new}">'}, later
    )

    sent = laptop.sync(later)
    assert sent.sent["card"] == 1
    assert sent.sent[MEDIA_COUNTED] == 1
    received = desktop.sync(later)
    assert received.received == {"card": 1, MEDIA_COUNTED: 1}
    assert (_media_dir(desktop) / new).read_bytes() == PICTURE
    # Edited away again before the file arrives: the desktop stops wanting it.
    gone = _place(laptop, SOUND, ".mp3")
    editing.edit_card(laptop.database, card_id, {**data, "back": f"[sound:{gone}]"}, later)
    report = laptop.sync(later)
    (_sent_folder(shared, report.device[0]) / gone).unlink()  # not arrived
    assert any("not arrived yet" in note for note in desktop.sync(later).notes)
    editing.edit_card(laptop.database, card_id, {**data, "back": "a cat"}, later)
    laptop.sync(later)
    desktop.sync(later)
    assert _wanted(desktop) == []
    assert desktop.sync(later).notes == []


def test_a_deleted_device_folder_gets_its_media_again_and_a_newcomer_gets_them(
    pair: tuple[Device, Device], shared: Path, tmp_path: Path
) -> None:
    laptop, desktop = pair
    picture = _place(laptop, PICTURE, ".png")
    tune = _place(laptop, SOUND, ".mp3")
    _import(laptop, {"c1": (f'<img src="{picture}">', f"[sound:{tune}]")})
    laptop_id = laptop.sync(START).device[0]
    desktop.sync(START)
    shutil.rmtree(shared / "Recall" / laptop_id)  # cleaned away on some computer

    again = laptop.sync(START)
    assert again.snapshot
    assert again.sent[MEDIA_COUNTED] == 2
    assert sorted(path.name for path in _sent_folder(shared, laptop_id).iterdir()) == sorted(
        [picture, tune]
    )
    # The desktop, which had read from that folder, writes what it holds again too.
    resent = desktop.sync(START)
    assert resent.sent[MEDIA_COUNTED] == 2
    shutil.rmtree(shared / "Recall" / laptop_id)  # and the laptop's is gone once more
    newcomer = Device(tmp_path, "tablet", shared)
    try:
        joined = newcomer.sync(START)
        assert joined.received[MEDIA_COUNTED] == 2
        assert (_media_dir(newcomer) / picture).read_bytes() == PICTURE
        assert (_media_dir(newcomer) / tune).read_bytes() == SOUND
    finally:
        newcomer.close()


def test_a_device_whose_media_folder_alone_is_deleted_writes_its_files_again(
    pair: tuple[Device, Device], shared: Path
) -> None:
    laptop, desktop = pair
    picture = _place(laptop, PICTURE, ".png")
    tune = _place(laptop, SOUND, ".mp3")
    _import(laptop, {"c1": (f'<img src="{picture}">', f"[sound:{tune}]")})
    laptop_id = laptop.sync(START).device[0]
    shutil.rmtree(_sent_folder(shared, laptop_id))  # before the desktop read any of it
    taken = desktop.sync(START)
    assert taken.received[MEDIA_COUNTED] == 0
    assert sorted(name for name, _deck, _card in _wanted(desktop)) == sorted([picture, tune])

    again = laptop.sync(START)  # nothing new to send, but its media/ is gone
    assert not again.snapshot
    assert again.sent[MEDIA_COUNTED] == 2
    assert laptop.sync(START).sent[MEDIA_COUNTED] == 0  # written once, then left alone
    fetched = desktop.sync(START)
    assert fetched.received[MEDIA_COUNTED] == 2
    assert (_media_dir(desktop) / picture).read_bytes() == PICTURE
    assert (_media_dir(desktop) / tune).read_bytes() == SOUND
    assert _wanted(desktop) == []


def test_a_device_without_media_keeps_an_empty_media_folder_so_rounds_look_at_no_card(
    pair: tuple[Device, Device], shared: Path
) -> None:
    laptop, _desktop = pair
    _import(laptop, {"c1": ("plain", "text")})
    laptop_id = laptop.sync(START).device[0]
    laptop.sync(START)
    folder = _sent_folder(shared, laptop_id)
    assert folder.is_dir()
    assert list(folder.iterdir()) == []


def test_a_file_reached_through_a_link_out_of_the_sync_folder_is_never_taken(
    pair: tuple[Device, Device], shared: Path, tmp_path: Path
) -> None:
    laptop, desktop = pair
    name = _place(laptop, PICTURE, ".png")
    _import(laptop, {"c1": (f'<img src="{name}">', "a picture")})
    report = laptop.sync(START)
    sent = _sent_folder(shared, report.device[0]) / name
    outside = tmp_path / "outside.png"
    outside.write_bytes(PICTURE)  # the right bytes, but outside the sync folder
    sent.unlink()
    sent.symlink_to(outside)

    first = desktop.sync(START)
    assert not (_media_dir(desktop) / name).exists()
    assert any("not arrived yet" in note for note in first.notes)
    # A link to a whole device folder elsewhere is not followed either.
    device_folder = shared / "Recall" / report.device[0]
    elsewhere = tmp_path / "elsewhere"
    shutil.move(device_folder, elsewhere)
    (elsewhere / media.FOLDER / name).unlink()
    (elsewhere / media.FOLDER / name).write_bytes(PICTURE)
    device_folder.symlink_to(elsewhere, target_is_directory=True)
    assert not (_media_dir(desktop) / name).exists()
    desktop.sync(START)
    assert not (_media_dir(desktop) / name).exists()

    device_folder.unlink()
    shutil.move(elsewhere, device_folder)
    # While it was a link the folder counted as gone, so its files are read again whole.
    assert desktop.sync(START).received[MEDIA_COUNTED] == 1
    assert (_media_dir(desktop) / name).read_bytes() == PICTURE


def test_a_referenced_file_this_device_lacks_is_named_and_not_sent(
    pair: tuple[Device, Device], shared: Path
) -> None:
    laptop, _desktop = pair
    missing = _stored(b"never imported", ".png")
    _import(laptop, {"c1": (f'<img src="{missing}">', "a picture")})
    report = laptop.sync(START)
    assert MEDIA_COUNTED not in report.sent
    assert any("not in this computer's media folder" in note for note in report.notes)
    assert not (_sent_folder(shared, report.device[0]) / missing).exists()


@pytest.mark.slow
@pytest.mark.skipif(os.name != "posix", reason="SIGKILL")
def test_rounds_killed_while_media_are_copied_leave_every_file_whole(
    tmp_path: Path, shared: Path
) -> None:
    rng = random.Random(15)
    laptop = Device(tmp_path, "laptop", shared)
    desktop = Device(tmp_path, "desktop", shared)
    cards = {}
    for n in range(120):
        name = _place(laptop, PICTURE + rng.randbytes(64_000), ".png")
        cards[f"c{n}"] = (f'<img src="{name}">', f"picture {n}")
    _import(laptop, cards)
    names = sorted(path.name for path in _media_dir(laptop).iterdir())
    laptop.close()
    desktop.close()
    data = {name: tmp_path / name for name in ("laptop", "desktop")}

    def arguments(folder: Path, sync_folder: Path = shared) -> list[str]:
        return ["--data-dir", str(folder), "sync", "--folder", str(sync_folder)]

    def command(folder: Path) -> list[str]:
        return [sys.executable, "-m", "recall", *arguments(folder)]

    # How long a whole round of each takes here (on copies), so the kills land all
    # through one however busy the machine is.
    trial = tmp_path / "trial"
    shutil.copytree(data["laptop"], trial / "laptop")
    length = round_length(arguments(trial / "laptop", trial))
    shutil.rmtree(trial)
    commands = [arguments(data[name]) for name in ("laptop", "desktop")]
    kills = kill_rounds(commands, [length, length], rng, kills=8, attempts=45, within=(0.2, 1.2))
    assert kills == 8, "the kills should land while the rounds run"
    for _ in range(2):
        for name in ("laptop", "desktop"):
            done = subprocess.run(command(data[name]), capture_output=True, text=True)
            assert done.returncode == 0, done.stderr
    assert not list(shared.rglob("*.tmp"))
    desktop = Device(tmp_path, "desktop", shared)
    try:
        held = _media_dir(desktop)
        assert sorted(path.name for path in held.iterdir()) == names  # no temporary left
        for name in names:
            assert hashlib.sha256((held / name).read_bytes()).hexdigest() == name[:64]
        assert _wanted(desktop) == []
        assert desktop.healthy(START + timedelta(days=1)) == []
    finally:
        desktop.close()


def test_a_snapshot_leaves_out_the_files_of_deleted_cards(
    pair: tuple[Device, Device], shared: Path
) -> None:
    laptop, _desktop = pair
    kept = _place(laptop, PICTURE, ".png")
    dropped = _place(laptop, SOUND, ".mp3")
    _import(laptop, {"c1": (f'<img src="{kept}">', "kept"), "c2": ("gone", f"[sound:{dropped}]")})
    laptop_id = laptop.sync(START).device[0]
    with laptop.database.reading() as transaction:
        card_id = transaction.sync_local.cards([("pics", "c2")])[("pics", "c2")][0]
    later = START + timedelta(hours=1)
    laptop.changes().delete([card_id], later)
    laptop.sync(later)
    shutil.rmtree(shared / "Recall" / laptop_id)

    again = laptop.sync(later)
    assert again.snapshot
    assert again.sent[MEDIA_COUNTED] == 1
    assert [path.name for path in _sent_folder(shared, laptop_id).iterdir()] == [kept]
    assert again.notes == []


def test_an_image_of_a_change_kept_while_the_folder_was_read_only_goes_with_it_later(
    pair: tuple[Device, Device], shared: Path
) -> None:
    laptop, desktop = pair
    _import(laptop, {"c1": ("Which animal?", "a cat")})
    own = shared / "Recall" / laptop.sync(START).device[0]
    desktop.sync(START)
    new = _place(laptop, PICTURE, ".png")
    with laptop.database.reading() as transaction:
        card_id, columns = transaction.sync_local.cards([("pics", "c1")])[("pics", "c1")]
    later = START + timedelta(hours=1)
    data = editing.card_data(columns["content"])
    editing.edit_card(laptop.database, card_id, {**data, "front": f'<img src="{new}">'}, later)
    with read_only(own):
        kept = laptop.sync(later)
        assert kept.problem is not None
        assert "read-only" in kept.problem
        assert kept.kept == 1
        assert not (own / media.FOLDER).exists()
    sent = laptop.sync(later)  # the kept change goes out, and its image before it
    assert sent.problem is None
    assert sent.sent == {"card": 1, MEDIA_COUNTED: 1}
    received = desktop.sync(later)
    assert received.received == {"card": 1, MEDIA_COUNTED: 1}
    assert (_media_dir(desktop) / new).read_bytes() == PICTURE


def test_cancel_while_media_are_copied_keeps_those_copied_and_the_rest_come_next_time(
    pair: tuple[Device, Device],
) -> None:
    laptop, desktop = pair
    names = [_place(laptop, PICTURE + bytes([n]), ".png") for n in range(3)]
    _import(laptop, {f"c{n}": (f'<img src="{name}">', "b") for n, name in enumerate(names)})
    laptop.sync(START)
    held = _media_dir(desktop)

    def cancelled() -> bool:  # Cancel pressed once the first file is in
        return held.is_dir() and any(held.glob("*.png"))

    with pytest.raises(CancelledError, match="copying images and sounds"):
        sync(desktop.database, START, desktop.shared, "desktop", cancelled=cancelled)
    assert len(list(held.glob("*.png"))) == 1
    assert len(_wanted(desktop)) == 2
    assert "pics" in desktop.deck_keys()  # what was merged before stays merged
    rest = desktop.sync(START)
    assert rest.received[MEDIA_COUNTED] == 2
    assert sorted(path.name for path in held.iterdir()) == sorted(names)
    assert _wanted(desktop) == []
