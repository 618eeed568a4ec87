"""The XDG autostart entry: written and removed under $XDG_CONFIG_HOME, starting minimised."""

from __future__ import annotations

from pathlib import Path

import pytest

from recall.host import autostart
from recall.host.autostart import AutostartError


def test_entry_is_written_and_removed_under_xdg_config_home(tmp_path: Path) -> None:
    environ = {"XDG_CONFIG_HOME": str(tmp_path / "config")}
    command = ["/opt/My Apps/recall", "--data-dir", "/home/me/100% cards"]
    path = autostart.enable(command, environ)
    assert path == tmp_path / "config" / "autostart" / "recall.desktop"
    assert autostart.is_enabled(environ)
    text = path.read_text(encoding="utf-8")
    assert text.startswith("[Desktop Entry]\nType=Application\nName=Recall\n")
    assert "Icon=recall\n" in text
    assert autostart.exec_arguments(text) == [*command, "--minimized"]
    assert [item.name for item in path.parent.iterdir()] == ["recall.desktop"]
    autostart.disable(environ)
    assert not path.exists()
    assert not autostart.is_enabled(environ)
    autostart.disable(environ)  # nothing there: nothing to do


def test_set_enabled_runs_this_recall(tmp_path: Path) -> None:
    environ = {"XDG_CONFIG_HOME": str(tmp_path)}
    autostart.set_enabled(True, environ)
    arguments = autostart.exec_arguments(autostart.entry_path(environ).read_text("utf-8"))
    assert arguments == [*autostart.launch_command(), "--minimized"]
    assert Path(arguments[0]).exists()
    autostart.set_enabled(False, environ)
    assert not autostart.entry_path(environ).exists()


def test_relative_xdg_config_home_is_ignored(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    assert autostart.autostart_dir({"XDG_CONFIG_HOME": "relative"}) == (
        tmp_path / ".config" / "autostart"
    )
    assert autostart.autostart_dir({}) == tmp_path / ".config" / "autostart"


def test_a_folder_that_cannot_be_made_is_an_error_naming_the_entry(tmp_path: Path) -> None:
    (tmp_path / "autostart").write_text("a file where the folder should be", encoding="utf-8")
    environ = {"XDG_CONFIG_HOME": str(tmp_path)}
    with pytest.raises(AutostartError, match=r"cannot write the autostart entry .*recall.desktop"):
        autostart.enable(["recall"], environ)


def test_windows_and_macos_are_told_where_their_login_items_are(tmp_path: Path) -> None:
    environ = {"XDG_CONFIG_HOME": str(tmp_path)}
    for system in ("win32", "darwin"):
        with pytest.raises(AutostartError, match="XDG autostart folder of Linux desktops"):
            autostart.set_enabled(True, environ, system)
    assert not autostart.entry_path(environ).exists()
    autostart.set_enabled(False, environ, "win32")  # switching it off is always fine
