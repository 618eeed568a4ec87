"""How the importers word their report: byte sizes, tallies with examples, what an Anki
package's cards show differently."""

from __future__ import annotations

from recall.core import wording
from recall.core.i18n import tr, trn

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


def rendering_lines(
    empty_fronts: Tally,
    template_problems: Tally,
    styled: dict[str, int],
    scripted: int,
    speech: int,
) -> list[str]:
    """Report lines on the cards Anki itself would not show and on what is not played:
    cards left out for an empty front, templates that do not render, note types whose
    styling is partly applied (name: cards), cards with scripts and fields read aloud."""
    lines = empty_fronts.line(
        trn(
            "{count} card left out because Anki shows nothing on their front (their "
            "template names only empty fields)",
            "{count} cards left out because Anki shows nothing on their front (their "
            "template names only empty fields)",
            empty_fronts.count,
        ).format(count=wording.number(empty_fronts.count))
    )
    lines += template_problems.line(
        trn(
            "{count} card showing a problem in their note type's template instead of their "
            "text, as in Anki",
            "{count} cards showing a problem in their note type's template instead of their "
            "text, as in Anki",
            template_problems.count,
        ).format(count=wording.number(template_problems.count))
    )
    if styled:
        shown = sorted(styled.items())[:10]
        names = ", ".join(f"{name!r} ({_card_count(count)})" for name, count in shown)
        lines.append(
            trn(
                "part of the styling (CSS) of {count} note type is not applied (Recall shows "
                "colours, fonts, sizes and alignment; not layout, borders or positions): "
                "{names}",
                "part of the styling (CSS) of {count} note types is not applied (Recall "
                "shows colours, fonts, sizes and alignment; not layout, borders or "
                "positions): {names}",
                len(styled),
            ).format(count=wording.number(len(styled)), names=names)
        )
    if scripted:
        lines.append(
            trn(
                "{count} card with a script in Anki shown without it (Recall runs no scripts)",
                "{count} cards with a script in Anki shown without it (Recall runs no scripts)",
                scripted,
            ).format(count=wording.number(scripted))
        )
    if speech:
        lines.append(
            trn(
                "{count} text-to-speech field ({{{{tts}}}}) read aloud with the system's "
                "speech engine",
                "{count} text-to-speech fields ({{{{tts}}}}) read aloud with the system's "
                "speech engine",
                speech,
            ).format(count=wording.number(speech))
        )
    return lines


def _card_count(count: int) -> str:
    return trn("{count} card", "{count} cards", count).format(count=wording.number(count))
