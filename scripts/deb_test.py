"""Install the built ``.deb``, run it, remove it, and check nothing of it is left; exit 1 if not.

Run as root (CI does, in ``.ci/run``): ``python scripts/deb_test.py dist/recall_*.deb``. The
steps: ``dpkg -i`` (the libraries it depends on are installed first with ``apt-get`` when
missing); the package's files are where the desktop looks for them; ``/usr/bin/recall
--version`` and ``--self-test`` (offscreen, in a new home folder) pass; ``dpkg -r``; then
every file the package installed, and ``/usr/lib/recall``, must be gone.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

EXPECTED = (
    "/usr/bin/recall",
    "/usr/lib/recall/recall",
    "/usr/share/applications/recall.desktop",
    "/usr/share/icons/hicolor/scalable/apps/recall.svg",
    "/usr/share/icons/hicolor/256x256/apps/recall.png",
)


def run(*command: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """Run a command, print it and its output, fail on a non-zero exit."""
    print("$", " ".join(command), flush=True)
    done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=300)
    print(done.stdout + done.stderr, end="", flush=True)
    if done.returncode != 0:
        sys.exit(f"deb-test failed: {' '.join(command)} exited {done.returncode}")
    return done


def _installed(name: str) -> bool:
    return subprocess.run(["dpkg", "-s", name], capture_output=True).returncode == 0


def main(package: Path) -> None:
    """Install, start, remove and check ``package``."""
    depends = run("dpkg-deb", "--field", str(package), "Depends").stdout
    missing = []
    for part in depends.split(","):
        names = [alternative.split("(")[0].strip() for alternative in part.split("|")]
        if not any(_installed(name) for name in names):
            missing.append(names[0])
    if missing:
        run("apt-get", "update", "-qq")
        run("apt-get", "install", "-y", "-qq", "--no-install-recommends", *missing)
    run("dpkg", "-i", str(package))
    files = run("dpkg", "-L", "recall").stdout.split()
    for path in EXPECTED:
        if path not in files or not os.path.lexists(path):
            sys.exit(f"deb-test failed: {path} is not installed")
    with tempfile.TemporaryDirectory() as home:
        env = {"PATH": "/usr/bin:/bin", "HOME": home, "QT_QPA_PLATFORM": "offscreen"}
        run("recall", "--version", env=env)
        run("recall", "--self-test", env=env)
    run("dpkg", "-r", "recall")
    left = [path for path in files if os.path.lexists(path) and not Path(path).is_dir()]
    if Path("/usr/lib/recall").exists():
        left.append("/usr/lib/recall")
    if left:
        sys.exit(f"deb-test failed: left after removal: {', '.join(left[:10])}")
    print(f"deb-test: passed ({len(files)} paths installed, none left after removal)")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
