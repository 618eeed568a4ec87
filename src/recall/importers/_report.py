"""How the importers word their report: byte sizes, and tallies with examples."""

from __future__ import annotations

from recall.core.i18n import tr

EXAMPLES = 10


def byte_size(count: int) -> str:
    """A byte count as a person reads it: ``2 GiB`` for round figures, else ``65,541 bytes``."""
    for unit, scale in (("GiB", 1024**3), ("MiB", 1024**2), ("KiB", 1024)):
        if count >= scale and count % scale == 0:
            return f"{count // scale} {unit}"
    return tr("{count} bytes").format(count=f"{count:,}")


class Tally:
    """Things of one kind left out of an import: how many, and the first few, for a report."""

    def __init__(self) -> None:
        self.count = 0
        self.examples: list[str] = []

    def add(self, example: str) -> None:
        """Count one more, keeping its description if it is among the first few."""
        self.count += 1
        if len(self.examples) < EXAMPLES:
            self.examples.append(example)

    def line(self, summary: str) -> list[str]:
        """``summary: first; second; ... and N more``, or nothing when none were counted."""
        if not self.count:
            return []
        more = self.count - len(self.examples)
        rest = tr("; and {count} more").format(count=more) if more else ""
        return [f"{summary}: {'; '.join(self.examples)}{rest}"]
