"""Desktop notifications without a tray: notify-send, else gdbus, else none."""

from __future__ import annotations

from pathlib import Path

from recall.host import notifications


def test_notify_runs_notify_send_with_the_text(tmp_path: Path) -> None:
    said = tmp_path / "said.txt"
    program = tmp_path / "notify-send"
    program.write_text(f'#!/bin/sh\nprintf "%s\\n" "$@" > "{said}"\n', encoding="utf-8")
    program.chmod(0o755)
    process = notifications.notify(
        "Recall",
        "3 cards <due> & more",
        lambda name: str(program) if name == "notify-send" else None,
    )
    assert process is not None
    assert process.wait(timeout=30) == 0
    lines = said.read_text(encoding="utf-8").splitlines()
    assert lines == [
        "--app-name=Recall",
        "--icon=recall",
        "--",
        "Recall",
        "3 cards &lt;due&gt; &amp; more",
    ]


def test_without_notify_send_gdbus_calls_the_freedesktop_service() -> None:
    command = notifications.notify_command(
        "Recall", 'say "hi"', lambda name: "/usr/bin/gdbus" if name == "gdbus" else None
    )
    assert command is not None
    assert command[:9] == [
        "/usr/bin/gdbus",
        "call",
        "--session",
        "--dest",
        "org.freedesktop.Notifications",
        "--object-path",
        "/org/freedesktop/Notifications",
        "--method",
        "org.freedesktop.Notifications.Notify",
    ]
    assert command[9:] == ["Recall", "0", "recall", '"Recall"', '"say \\"hi\\""', "[]", "{}", "-1"]


def test_with_neither_nothing_is_started() -> None:
    assert notifications.notify("Recall", "due", lambda _name: None) is None
