"""Two Syncthing instances on this machine sharing one folder, for tests over a real sync engine.

Each instance has its own home (keys, config, index database) under a test's tmp_path, its GUI
and REST API on 127.0.0.1 with an API key set here, and its sync protocol on 127.0.0.1 on a free
port. Discovery (global and local), relays, NAT traversal, usage and crash reporting and
automatic upgrades are off; the two devices know each other by static address and share one
send-receive folder watched for changes. Each runs as a subprocess in its own process group, so
stopping it stops everything it started.

``syncthing_pair(root)`` starts both and always stops both; ``SyncthingPair.wait_in_sync`` waits
until both report the folder complete and the two folders hold the same files. Tested with
Debian's Syncthing 1.19.
"""

from __future__ import annotations

import contextlib
import copy
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import time
import urllib.parse
import urllib.request
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

FOLDER_ID = "recall-sync"
# Syncthing's own bookkeeping inside a shared folder, and its names for files it is still
# pulling: never part of what the two sides must agree on.
_OWN_NAMES = (".stfolder", ".stversions", ".stignore")
_TEMPORARY_PREFIXES = (".syncthing.", "~syncthing~")
_START_TIMEOUT = 30.0
_STOP_TIMEOUT = 10.0


class SyncthingError(RuntimeError):
    """Syncthing could not be started, or did not do what a test waited for."""


def syncthing_binary() -> str:
    """The path of the ``syncthing`` executable.

    Raises:
        SyncthingError: when it is not installed, saying how to install it.
    """
    path = shutil.which("syncthing")
    if path is None:
        raise SyncthingError(
            "these tests need Syncthing: `make test-sync-engine` installs it with apt-get "
            "(Debian/Ubuntu package `syncthing`), or install it from https://syncthing.net "
            "so that `syncthing` is on PATH"
        )
    return path


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@dataclass
class SyncthingInstance:
    """One Syncthing device: its home, its copy of the shared folder, its ports and process."""

    name: str
    home: Path
    folder: Path
    gui_port: int
    listen_port: int
    api_key: str
    device_id: str
    process: subprocess.Popen[bytes] | None = field(default=None, repr=False)

    @property
    def log(self) -> Path:
        """Where the process's output goes."""
        return self.home / "syncthing.log"

    def rest(self, method: str, path: str, **query: str) -> Any:
        """Call the REST API and return its decoded JSON answer (None when it sent none)."""
        url = f"http://127.0.0.1:{self.gui_port}{path}"
        if query:
            url += "?" + urllib.parse.urlencode(query)
        request = urllib.request.Request(url, method=method, headers={"X-API-Key": self.api_key})
        with urllib.request.urlopen(request, timeout=60) as response:
            body = response.read()
        return json.loads(body) if body.strip() else None

    def start(self) -> None:
        """Start the process in its own process group and wait until its REST API answers."""
        log = self.log.open("ab")
        environment = {**os.environ, "STNORESTART": "1", "STNOUPGRADE": "1"}
        self.process = subprocess.Popen(
            [
                syncthing_binary(),
                "serve",
                f"--home={self.home}",
                "--no-browser",
                "--no-restart",
                "--no-upgrade",
                "--no-default-folder",
            ],
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            env=environment,
            start_new_session=True,
        )
        log.close()
        deadline = time.monotonic() + _START_TIMEOUT
        while True:
            if self.process.poll() is not None:
                raise SyncthingError(
                    f"Syncthing {self.name} exited with {self.process.returncode} on start:\n"
                    + self.log_tail()
                )
            with contextlib.suppress(OSError):
                if self.rest("GET", "/rest/system/ping") == {"ping": "pong"}:
                    return
            if time.monotonic() > deadline:
                raise SyncthingError(
                    f"Syncthing {self.name}'s REST API did not answer on port {self.gui_port} "
                    f"within {_START_TIMEOUT:.0f} s:\n" + self.log_tail()
                )
            time.sleep(0.2)

    def stop(self) -> None:
        """Ask Syncthing to shut down, then end its whole process group if it has not."""
        process = self.process
        if process is None or process.poll() is not None:
            return
        with contextlib.suppress(OSError):
            self.rest("POST", "/rest/system/shutdown")
        try:
            process.wait(timeout=_STOP_TIMEOUT)
        except subprocess.TimeoutExpired:
            for sig in (signal.SIGTERM, signal.SIGKILL):
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(process.pid, sig)
                try:
                    process.wait(timeout=_STOP_TIMEOUT)
                    break
                except subprocess.TimeoutExpired:
                    continue
        # Anything it started in its group goes with it.
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, signal.SIGKILL)

    def log_tail(self, lines: int = 30) -> str:
        """The last lines of the process's output, for error messages."""
        if not self.log.exists():
            return "(no output)"
        text = self.log.read_text(errors="replace").splitlines()
        return "\n".join(f"  {self.name}: {line}" for line in text[-lines:])

    def scan(self) -> None:
        """Have Syncthing look at the folder now (returns when the scan is done)."""
        self.rest("POST", "/rest/db/scan", folder=FOLDER_ID)

    def pause_peer(self, peer: SyncthingInstance) -> None:
        """Stop talking to ``peer`` until ``resume_peer``."""
        self.rest("POST", "/rest/system/pause", device=peer.device_id)

    def resume_peer(self, peer: SyncthingInstance) -> None:
        """Talk to ``peer`` again."""
        self.rest("POST", "/rest/system/resume", device=peer.device_id)

    def connected_to(self, peer: SyncthingInstance) -> bool:
        """Whether a connection to ``peer`` is up."""
        connections = self.rest("GET", "/rest/system/connections")["connections"]
        return bool(connections.get(peer.device_id, {}).get("connected"))

    def sync_state(self, peer: SyncthingInstance) -> str | None:
        """None when this side is idle with nothing to pull and ``peer`` has everything we
        have; otherwise what is still going on, in words."""
        status = self.rest("GET", "/rest/db/status", folder=FOLDER_ID)
        if status["state"] != "idle":
            return f"{self.name} is {status['state']}"
        if status["needTotalItems"]:
            return f"{self.name} still needs {status['needTotalItems']} items"
        completion = self.rest(
            "GET", "/rest/db/completion", folder=FOLDER_ID, device=peer.device_id
        )
        if completion["completion"] < 100 or completion["needItems"] or completion["needDeletes"]:
            return f"{peer.name} is {completion['completion']:.1f}% complete as {self.name} sees it"
        return None


def _set_children(parent: ET.Element, values: dict[str, str]) -> None:
    for tag, text in values.items():
        child = parent.find(tag)
        if child is None:
            child = ET.SubElement(parent, tag)
        child.text = text


def _configure(instance: SyncthingInstance, peer: SyncthingInstance) -> None:
    """Rewrite the generated config.xml: local only, the peer known, the folder shared."""
    path = instance.home / "config.xml"
    tree = ET.parse(path)
    root = tree.getroot()
    gui = root.find("gui")
    options = root.find("options")
    if gui is None or options is None:
        raise SyncthingError(f"{path} has no <gui> or <options>: not a Syncthing config")
    gui.set("tls", "false")
    _set_children(gui, {"address": f"127.0.0.1:{instance.gui_port}", "apikey": instance.api_key})
    for old in options.findall("listenAddress") + options.findall("globalAnnounceServer"):
        options.remove(old)
    _set_children(
        options,
        {
            "listenAddress": f"tcp://127.0.0.1:{instance.listen_port}",
            "globalAnnounceEnabled": "false",
            "localAnnounceEnabled": "false",
            "relaysEnabled": "false",
            "natEnabled": "false",
            "urAccepted": "-1",
            "autoUpgradeIntervalH": "0",
            "crashReportingEnabled": "false",
            "startBrowser": "false",
            "reconnectionIntervalS": "2",
            "setLowPriority": "false",
        },
    )
    # The folder and devices start from the config's own <defaults>, as Syncthing's GUI
    # does: an element written from scratch would get zero for everything left out
    # (maxConflicts 0 means no conflict copies at all).
    default_folder = root.find("defaults/folder")
    default_device = root.find("defaults/device")
    if default_folder is None or default_device is None:
        raise SyncthingError(
            f"{path} has no <defaults>: this Syncthing is too old for the harness "
            "(it is tested with 1.19)"
        )
    for device in root.findall("device"):
        root.remove(device)
    folder = copy.deepcopy(default_folder)
    for device in folder.findall("device"):
        folder.remove(device)
    folder.attrib.update(
        {
            "id": FOLDER_ID,
            "label": "Recall sync",
            "path": str(instance.folder),
            "type": "sendreceive",
            "rescanIntervalS": "10",
            "fsWatcherEnabled": "true",
            "fsWatcherDelayS": "1",
        }
    )
    for member in (instance, peer):
        folder.insert(0, ET.Element("device", {"id": member.device_id}))
        device = copy.deepcopy(default_device)
        device.attrib.update({"id": member.device_id, "name": member.name})
        address = f"tcp://127.0.0.1:{member.listen_port}" if member is peer else "dynamic"
        _set_children(device, {"address": address})
        root.insert(0, device)
    root.insert(0, folder)
    tree.write(path, encoding="unicode")


def _generate(name: str, root: Path) -> SyncthingInstance:
    home = root / f"syncthing-{name}"
    folder = root / f"folder-{name}"
    folder.mkdir(parents=True)
    (folder / ".stfolder").mkdir()
    binary = syncthing_binary()
    subprocess.run(
        [binary, "generate", f"--home={home}", "--no-default-folder"],
        check=True,
        capture_output=True,
    )
    device_id = subprocess.run(
        [binary, f"--home={home}", "--device-id"], check=True, capture_output=True, text=True
    ).stdout.strip()
    return SyncthingInstance(
        name=name,
        home=home,
        folder=folder,
        gui_port=free_port(),
        listen_port=free_port(),
        api_key=secrets.token_hex(16),
        device_id=device_id,
    )


def folder_contents(folder: Path) -> dict[str, bytes]:
    """Every file in a shared folder by relative path, leaving out Syncthing's own files."""
    contents: dict[str, bytes] = {}
    for path in sorted(folder.rglob("*")):
        relative = path.relative_to(folder)
        if relative.parts[0] in _OWN_NAMES or path.name.startswith(_TEMPORARY_PREFIXES):
            continue
        if path.is_file():
            contents[relative.as_posix()] = path.read_bytes()
    return contents


def _differences(left: dict[str, bytes], right: dict[str, bytes], a: str, b: str) -> str | None:
    only_left = sorted(left.keys() - right.keys())
    only_right = sorted(right.keys() - left.keys())
    differ = sorted(name for name in left.keys() & right.keys() if left[name] != right[name])
    parts = []
    if only_left:
        parts.append(f"only on {a}: {only_left[:5]}")
    if only_right:
        parts.append(f"only on {b}: {only_right[:5]}")
    if differ:
        parts.append(f"different: {differ[:5]}")
    return "; ".join(parts) or None


@dataclass
class SyncthingPair:
    """Two running Syncthing devices sharing the folder ``FOLDER_ID``."""

    a: SyncthingInstance
    b: SyncthingInstance

    def separate(self, timeout: float = 30.0) -> None:
        """Pause each device on the other and wait until they are disconnected, so changes
        made now stay on their own side until ``rejoin``.

        Raises:
            SyncthingError: when they are still connected after ``timeout`` seconds.
        """
        self.a.pause_peer(self.b)
        self.b.pause_peer(self.a)
        deadline = time.monotonic() + timeout
        while self.a.connected_to(self.b) or self.b.connected_to(self.a):
            if time.monotonic() > deadline:
                raise SyncthingError(f"Syncthing a and b still connected after {timeout:.0f} s")
            time.sleep(0.2)

    def rejoin(self) -> None:
        """Resume the two devices on each other, scan both folders and wait until connected."""
        self.a.scan()
        self.b.scan()
        self.a.resume_peer(self.b)
        self.b.resume_peer(self.a)
        self.wait_connected()

    def wait_connected(self, timeout: float = 60.0) -> None:
        """Wait until the two devices are connected to each other.

        Raises:
            SyncthingError: when they are not within ``timeout`` seconds.
        """
        deadline = time.monotonic() + timeout
        while not (self.a.connected_to(self.b) and self.b.connected_to(self.a)):
            if time.monotonic() > deadline:
                raise SyncthingError(
                    f"Syncthing a and b did not connect within {timeout:.0f} s:\n"
                    + self.a.log_tail()
                    + "\n"
                    + self.b.log_tail()
                )
            time.sleep(0.2)

    def wait_in_sync(self, timeout: float = 90.0) -> dict[str, bytes]:
        """Scan both folders, then wait until both sides are idle, each has everything the
        other has, and the two folders hold the same files (twice in a row).

        Returns:
            The folders' common contents, by relative path.

        Raises:
            SyncthingError: when that does not happen within ``timeout`` seconds, saying what
                was still outstanding.
        """
        self.a.scan()
        self.b.scan()
        deadline = time.monotonic() + timeout
        agreed = 0
        while True:
            a_files = folder_contents(self.a.folder)
            b_files = folder_contents(self.b.folder)
            problem = (
                self.a.sync_state(self.b)
                or self.b.sync_state(self.a)
                or _differences(a_files, b_files, self.a.name, self.b.name)
            )
            agreed = agreed + 1 if problem is None else 0
            if agreed == 2:
                return a_files
            if time.monotonic() > deadline:
                raise SyncthingError(
                    f"Syncthing did not bring {self.a.folder} and {self.b.folder} in sync "
                    f"within {timeout:.0f} s: {problem or 'not settled'}\n"
                    + self.a.log_tail(10)
                    + "\n"
                    + self.b.log_tail(10)
                )
            time.sleep(0.3)


@contextlib.contextmanager
def syncthing_pair(root: Path) -> Iterator[SyncthingPair]:
    """Start two connected Syncthing devices under ``root`` and stop both afterwards, also
    when the code inside fails.

    Their folders are ``root/folder-a`` and ``root/folder-b``.
    """
    a = _generate("a", root)
    b = _generate("b", root)
    _configure(a, b)
    _configure(b, a)
    pair = SyncthingPair(a, b)
    try:
        a.start()
        b.start()
        pair.wait_connected()
        yield pair
    finally:
        b.stop()
        a.stop()
