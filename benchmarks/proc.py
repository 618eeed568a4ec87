"""Memory of a process (and its children) read from /proc; no Qt, so any child can use it."""

from __future__ import annotations

from pathlib import Path


def tree_pss_kb(pid: int) -> int:
    """The proportional set size of a process and all its descendants, in kB.

    PSS shares each page among the processes mapping it, so a process tree's sum is what
    it costs the machine (Anki's web engine runs helper processes beside the window).
    """
    total = 0
    pending = [pid]
    while pending:
        current = pending.pop()
        try:
            for line in Path(f"/proc/{current}/smaps_rollup").read_text().splitlines():
                if line.startswith("Pss:"):
                    total += int(line.split()[1])
                    break
            for task in Path(f"/proc/{current}/task").iterdir():
                pending += [int(child) for child in (task / "children").read_text().split()]
        except (FileNotFoundError, ProcessLookupError, PermissionError):
            continue
    return total


def peak_rss_kb() -> int:
    """The process's peak resident memory so far (VmHWM), in kB."""
    for line in Path("/proc/self/status").read_text(encoding="ascii").splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    return 0
