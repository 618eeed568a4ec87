"""What the review screen shows after an answer: the verdict, notes, explanation and source."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import tzinfo
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFrame, QLabel, QVBoxLayout, QWidget

from recall.content.sound import without_references
from recall.core.i18n import number, tr, trn
from recall.core.wording import short_day
from recall.ui.accessibility import expose, plain_text
from recall.ui.override_errors import reports_errors
from recall.ui.text import markdown_to_html

if TYPE_CHECKING:
    from recall.study.values import EarlierPick, FollowUpShown


def follow_up_banner(follow_up: FollowUpShown) -> str:
    """What a follow-up says above its question, naming no option (that would give it away)."""
    if follow_up.picks == 2:
        return tr("Follow-up: you picked a wrong option here twice before. Take it again.")
    return trn(
        "Follow-up: you picked a wrong option here {count} time before. Take it again.",
        "Follow-up: you picked a wrong option here {count} times before. Take it again.",
        follow_up.picks,
    ).format(count=number(follow_up.picks))


def follow_up_note(follow_up: FollowUpShown) -> str:
    """The note a follow-up shows after its answer, whatever was picked (Markdown):
    'You picked “Lyon” twice before: why it is wrong', then the option's note."""
    option = follow_up.option.replace("*", "\\*").replace("_", "\\_")
    if follow_up.picks == 2:
        heading = tr("You picked \u201c{option}\u201d twice before: why it is wrong")
    else:
        heading = trn(
            "You picked \u201c{option}\u201d {count} time before: why it is wrong",
            "You picked \u201c{option}\u201d {count} times before: why it is wrong",
            follow_up.picks,
        )
    heading = "**" + heading.format(option=option, count=number(follow_up.picks)) + "**"
    why = follow_up.why.strip() or tr("The deck gives no note for this option.")
    return f"{heading}\n\n{why}"


def earlier_picks_line(picks: Sequence[EarlierPick], zone: tzinfo | None = None) -> str:
    """ "You picked this on 3 earlier reviews (last on 12 Nov)" for a wrong option picked before.

    With several wrong options picked (a "select all" card) each is named. Dates are in
    ``zone`` (None: the system's time zone).
    """
    lines = []
    for pick in picks:
        last = pick.last.astimezone(zone)
        if len(picks) == 1:
            line = trn(
                "You picked this on {count} earlier review (last on {day}).",
                "You picked this on {count} earlier reviews (last on {day}).",
                pick.times,
            )
        else:
            line = trn(
                "You picked \u201c{option}\u201d on {count} earlier review (last on {day}).",
                "You picked \u201c{option}\u201d on {count} earlier reviews (last on {day}).",
                pick.times,
            )
        lines.append(line.format(option=pick.choice, count=number(pick.times), day=short_day(last)))
    return " ".join(lines)


@reports_errors
class CardLabel(QLabel):
    """A label whose accessible name is the text it shows, as plain text; its role describes it.

    Args:
        role: What the label holds ("Question", "Explanation"): its accessible description,
            and its name while it is empty.
        rich: Whether the text is rich text (rendered Markdown) or plain.
    """

    def __init__(self, role: str, rich: bool = True, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._role = role
        self.setTextFormat(Qt.TextFormat.RichText if rich else Qt.TextFormat.PlainText)
        expose(self, "", role)

    def setText(self, text: str) -> None:
        super().setText(text)
        rich = self.textFormat() == Qt.TextFormat.RichText
        expose(self, plain_text(text) if rich else text.strip(), self._role)


def card_label(name: str, accessible: str, rich: bool = True) -> CardLabel:
    """A word-wrapped label for card text that never takes focus nor follows links.

    Args:
        name: Its object name (the style sheet and tests find it by that).
        accessible: Its role word, the accessible description.
        rich: Rich text (rendered Markdown) or plain text.
    """
    label = CardLabel(accessible, rich)
    label.setObjectName(name)
    label.setWordWrap(True)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    label.setFocusPolicy(Qt.FocusPolicy.NoFocus)
    label.setOpenExternalLinks(False)
    return label


class FeedbackPanel(QFrame):
    """The framed block under the choices once a card is answered."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("feedback")
        self.verdict = card_label("verdict", tr("Result"), rich=False)
        self.picked_note = card_label("pickedNote", tr("About your answer"))
        self.earlier = card_label("earlierPicks", tr("Picked before"), rich=False)
        self.follow_up = card_label("followUpNote", tr("Why the option picked before is wrong"))
        self.explanation = card_label("explanation", tr("Explanation"))
        self.source = card_label("source", tr("Source"))
        layout = QVBoxLayout(self)
        layout.setContentsMargins(18, 14, 18, 14)
        layout.setSpacing(8)
        labels = (
            self.verdict,
            self.follow_up,
            self.earlier,
            self.picked_note,
            self.explanation,
            self.source,
        )
        for widget in labels:
            layout.addWidget(widget)

    def show_result(
        self,
        verdict: str,
        correct: bool | None,
        notes: str,
        explanation: str,
        source: str,
        earlier: str = "",
        follow_up: str = "",
    ) -> None:
        """Fill in and show the panel.

        Args:
            verdict: "Correct", "Not quite", or the question a basic card asks.
            correct: Colours the verdict (it is always said in words too); None for neither.
            notes: Markdown about the picked choices.
            explanation: The card's explanation (Markdown).
            source: Where to check the answer (Markdown), or empty.
            earlier: Which wrong options were picked on earlier reviews too, or empty.
            follow_up: For a follow-up, why the option picked before is wrong (Markdown),
                shown under the verdict whatever was picked; else empty.
        """
        self.verdict.setText(verdict)
        self.verdict.setProperty("correct", correct)
        self.verdict.style().unpolish(self.verdict)
        self.verdict.style().polish(self.verdict)
        self.earlier.setText(earlier)
        self.earlier.setVisible(bool(earlier))
        _set_markdown(self.follow_up, follow_up)
        _set_markdown(self.picked_note, notes)
        _set_markdown(self.explanation, without_references(explanation).strip())
        _set_markdown(self.source, tr("*Source:* {source}").format(source=source) if source else "")
        self.show()

    def spoken(self) -> str:
        """What a screen reader announces when the panel appears: verdict, earlier picks,
        notes, explanation."""
        parts = [self.verdict, self.follow_up, self.earlier, self.picked_note, self.explanation]
        return "\n".join(label.accessibleName() for label in parts if label.isVisibleTo(self))


def _set_markdown(label: QLabel, markdown: str) -> None:
    label.setText(markdown_to_html(markdown) if markdown else "")
    label.setVisible(bool(markdown))
