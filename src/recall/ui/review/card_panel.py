"""The card itself, scrollable: deck and progress, question, choices, back and feedback."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QPoint, Qt, Signal
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import (
    QApplication,
    QFrame,
    QHBoxLayout,
    QPushButton,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from recall.content.deck_format import BasicCard, ChoiceCard
from recall.content.sound import without_references
from recall.core import i18n
from recall.core.i18n import mark, tr
from recall.core.type_answer import Comparison
from recall.study.values import QueueCounts
from recall.ui.accessibility import plain_text
from recall.ui.feedback_panel import FeedbackPanel, card_label
from recall.ui.plain_text import rich_label
from recall.ui.review.card_text_view import CardTextView
from recall.ui.review.choice_button import ChoiceButton
from recall.ui.review.choice_outcome import ChoiceResult, Outcome
from recall.ui.review.occlusion_view import OcclusionView
from recall.ui.review.rating_bar import COLUMN_WIDTH
from recall.ui.review.sound_bar import SoundBar
from recall.ui.review.type_in import TypeAnswerBox, comparison_html, comparison_words
from recall.ui.text import markdown_to_card_html, markdown_to_html, needs_card_view

LISTEN = mark("Listen.")  # shown for a side that is only a sound
AS_RECALL = mark("Asked as recall: you know this well.")
CHOICES_SHOWN = mark("Choices shown: a right answer now suggests at most Hard.")


def _blank_html(fragment: str) -> bool:
    return "<img" not in fragment and not plain_text(fragment)


def counts_text(left: QueueCounts) -> str:
    """The review screen's counter: "3 new · 2 learning · 5 review"."""
    return tr("{new} new · {learning} learning · {review} review").format(
        new=left.new, learning=left.learning, review=left.review
    )


# Room kept between the view's edge and what scrolling brings into view.
_MARGIN = 12


class CardPanel(QScrollArea):
    """Shows one card; it emits the position of a clicked choice and never grades anything."""

    choice_clicked = Signal(int)
    typed = Signal(str)  # Enter in a type-in card's box
    choices_wanted = Signal()  # "Show choices" on a choice card asked as type-in

    def __init__(self, media_dir: Path, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("reviewScroll")
        self.setWidgetResizable(True)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self._choice_buttons: list[ChoiceButton] = []
        self._marked: QWidget | None = None

        self._deck_label = card_label("deckName", tr("Deck"), rich=False)
        self._progress_label = card_label("progress", tr("Cards left today"), rich=False)
        self._progress_label.setAlignment(Qt.AlignmentFlag.AlignRight)
        self._progress_label.setWordWrap(False)  # one line: "3 new · 2 learning · 5 review"
        header = QHBoxLayout()
        header.addWidget(self._deck_label, 1)
        header.addWidget(self._progress_label)

        self.follow_up_banner = card_label("followUpBanner", tr("Follow-up"), rich=False)
        self.follow_up_banner.hide()
        self._question = card_label("question", tr("Question"))
        self._question_html = CardTextView(media_dir, tr("Question"))
        self._question_html.setObjectName("question")
        self.occlusion = OcclusionView(media_dir)
        self.occlusion.hide()
        self.sound_bar = SoundBar(media_dir)
        self._hint = card_label("questionHint", tr("Hint"), rich=False)
        self._hints: list[str] = []
        self._hints_shown = 0
        self._hints_view = CardTextView(media_dir, tr("Hint"))
        self._hints_view.setObjectName("hints")
        self.hint_button = QPushButton(tr("Show hint (H)"))
        self.hint_button.setObjectName("showHint")
        self.hint_button.setAccessibleName(tr("Show hint"))
        self.hint_button.setAccessibleDescription(tr("H shows the next hint"))
        self.hint_button.setFocusPolicy(Qt.FocusPolicy.TabFocus)
        self.type_box = TypeAnswerBox()
        # Why a choice card is asked as type-in, and the way back to its choices.
        self._recall_note = card_label("recallNote", tr("Why type-in"), rich=False)
        self.choices_button = QPushButton(tr("Show choices (Alt+C)"))
        self.choices_button.setObjectName("showChoices")
        self.choices_button.setAccessibleName(tr("Show choices"))
        self.choices_button.setAccessibleDescription(
            tr("Alt+C shows the choices; a right choice then suggests at most Hard")
        )
        self.choices_button.setFocusPolicy(Qt.FocusPolicy.TabFocus)
        # The comparison's HTML escapes both texts (ui/review/type_in.py).
        self._type_result = rich_label()
        self._type_result.setObjectName("typeComparison")
        self._type_result.setWordWrap(True)
        self._type_result.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self._type_result.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        font = self._type_result.font()
        font.setPointSizeF(font.pointSizeF() * 1.4)
        self._type_result.setFont(font)
        # The choices live in their own widget, made before the feedback panel, so screen
        # readers meet them in the order they are shown (Qt lists children as they are made).
        self._choices = QWidget()
        self._choices.setObjectName("choices")
        self._choices_box = QVBoxLayout(self._choices)
        self._choices_box.setContentsMargins(0, 0, 0, 0)
        self._choices_box.setSpacing(8)
        self._back = card_label("back", tr("Answer"))
        self._back_html = CardTextView(media_dir, tr("Answer"))
        self._back_html.setObjectName("backHtml")
        self.feedback = FeedbackPanel()

        column = QWidget()
        column.setObjectName("cardColumn")
        column.setMaximumWidth(COLUMN_WIDTH)
        column_layout = QVBoxLayout(column)
        column_layout.setContentsMargins(24, 20, 24, 20)
        column_layout.setSpacing(14)
        column_layout.addLayout(header)
        column_layout.addWidget(self.follow_up_banner)
        column_layout.addWidget(self._question)
        column_layout.addWidget(self._question_html)
        column_layout.addWidget(self.occlusion)
        column_layout.addWidget(self.sound_bar)
        column_layout.addWidget(self._hint)
        hint_row = QHBoxLayout()
        hint_row.addWidget(self.hint_button)
        hint_row.addStretch(1)
        column_layout.addLayout(hint_row)
        column_layout.addWidget(self._hints_view)
        column_layout.addWidget(self.type_box)
        recall_row = QHBoxLayout()
        recall_row.addWidget(self._recall_note, 1)
        recall_row.addWidget(self.choices_button)
        column_layout.addLayout(recall_row)
        column_layout.addWidget(self._type_result)
        column_layout.addWidget(self._choices)
        column_layout.addWidget(self._back)
        column_layout.addWidget(self._back_html)
        column_layout.addWidget(self.feedback)
        column_layout.addStretch(1)

        page = QWidget()
        page.setObjectName("reviewPage")
        page_layout = QHBoxLayout(page)
        page_layout.setContentsMargins(0, 0, 0, 0)
        page_layout.addStretch(0)
        page_layout.addWidget(column, 100)
        page_layout.addStretch(0)
        self.setWidget(page)
        self._page = page
        self._layouts = (column_layout, page_layout)
        self.hint_button.clicked.connect(self.show_hint)
        self.type_box.submitted.connect(self.typed)
        self.choices_button.clicked.connect(self.choices_wanted)

    @property
    def choice_buttons(self) -> list[ChoiceButton]:
        """The choice buttons in the order shown."""
        return list(self._choice_buttons)

    def show_card(
        self,
        deck_name: str,
        left_today: QueueCounts,
        card: ChoiceCard | BasicCard,
        order: tuple[int, ...],
        as_recall: bool = False,
    ) -> None:
        """Show a card's question (and its choices in ``order``), hiding any earlier answer.

        The counter says what is left today as Anki does: new, learning and review cards.
        A choice card asked ``as_recall`` shows the type-in box instead of its choices, with
        why and a "Show choices" button.
        """
        self._deck_label.setText(deck_name)
        self.show_counts(left_today)
        html = isinstance(card, BasicCard) and card.markup == "html"
        text = without_references(card.question if isinstance(card, ChoiceCard) else card.front)
        occlusion = card.occlusion if isinstance(card, BasicCard) else None
        if occlusion is not None:
            self.occlusion.show_question(occlusion)
        self.occlusion.setVisible(occlusion is not None)
        if occlusion is not None and (not text.strip() or _blank_html(text)):
            html, text = False, ""  # the image is the question
        elif not text.strip() or (html and _blank_html(text)):
            html, text = False, i18n.tr(LISTEN)  # the question is its sound
        elif not html and needs_card_view(text):
            html, text = True, markdown_to_card_html(text)  # a label cannot show images
        self._question.setVisible(not html and bool(text))
        self._question_html.setVisible(html)
        if html:
            self._question_html.set_card_html(text)
        else:
            self._question.setText(markdown_to_html(text))
        self._clear_choices()
        self.feedback.hide()
        self._back.hide()
        self._back_html.hide()
        many = isinstance(card, ChoiceCard) and len(card.correct_indexes) > 1
        self._hint.setText(tr("Select all that apply.") if many else "")
        self._hint.setVisible(many)
        if isinstance(card, ChoiceCard) and not as_recall:
            self._add_choices(card, order)
        basic = card if isinstance(card, BasicCard) else None
        self._hints = list(basic.hints) if basic is not None else []
        self._hints_shown = 0
        self._hints_view.hide()
        self.hint_button.setText(tr("Show hint (H)"))
        self.hint_button.setVisible(bool(self._hints))
        typing = as_recall or (basic is not None and bool(basic.type_answer))
        self.type_box.clear()
        self.type_box.setReadOnly(False)
        self.type_box.setVisible(typing)
        if typing and self._hints:
            # From the box, Tab goes to the hint (set here, once the panel is in its window).
            QWidget.setTabOrder(self.type_box, self.hint_button)
        self._recall_note.setText(i18n.tr(AS_RECALL) if as_recall else "")
        self._recall_note.setVisible(as_recall)
        self.choices_button.setVisible(as_recall)
        if as_recall:
            QWidget.setTabOrder(self.type_box, self.choices_button)
        self._type_result.hide()
        self.verticalScrollBar().setValue(0)

    def show_choices(self, card: ChoiceCard, order: tuple[int, ...]) -> None:
        """Show the choices of a card asked as type-in after all; the box goes."""
        self.type_box.hide()
        self.choices_button.hide()
        self._recall_note.setText(i18n.tr(CHOICES_SHOWN))
        self._add_choices(card, order)

    def recall_text(self) -> str:
        """Why the card is asked as type-in (or that its choices were asked for), or ""."""
        return self._recall_note.text() if self._recall_note.isVisibleTo(self) else ""

    def _add_choices(self, card: ChoiceCard, order: tuple[int, ...]) -> None:
        for position, index in enumerate(order):
            button = ChoiceButton(position + 1, card.choices[index].text)
            button.clicked.connect(lambda _checked=False, p=position: self.choice_clicked.emit(p))
            self._choices_box.addWidget(button)
            button.show()  # at once, not when the layout gets round to it
            self._choice_buttons.append(button)

    @property
    def hints_left(self) -> int:
        """How many of the card's hints are still hidden."""
        return len(self._hints) - self._hints_shown

    def show_hint(self, every: bool = False) -> None:
        """Reveal the card's next hint (or all of them), under the question."""
        if not self.hints_left:
            return
        self._hints_shown = len(self._hints) if every else self._hints_shown + 1
        self._hints_view.set_card_html("<br>".join(self._hints[: self._hints_shown]))
        self._hints_view.show()
        self.hint_button.setText(tr("Show next hint (H)"))
        self.hint_button.setVisible(bool(self.hints_left))

    def hints_text(self) -> str:
        """The revealed hints as plain text, or "" when none is shown."""
        return self._hints_view.accessibleName() if self._hints_view.isVisibleTo(self) else ""

    def show_comparison(self, comparison: Comparison | None, typed: str) -> None:
        """Show what was typed against the answer (or hide it when nothing was typed)."""
        self._recall_note.hide()
        self.choices_button.hide()
        self.type_box.setReadOnly(True)
        self.type_box.setVisible(comparison is None)  # the comparison shows what was typed
        if comparison is None:
            self._type_result.hide()
            return
        self._type_result.setText(comparison_html(comparison))
        self._type_result.setAccessibleName(comparison_words(comparison, typed))
        self._type_result.show()
        self._marked = self._type_result  # a back shown under it takes over

    def comparison_text(self) -> str:
        """The comparison in words, or "" when none is shown."""
        if self._type_result.isVisibleTo(self):
            return self._type_result.accessibleName()
        return ""

    def show_counts(self, left_today: QueueCounts) -> None:
        """Show the cards left today: new, learning and review."""
        self._progress_label.setText(counts_text(left_today))

    def set_checked(self, position: int, checked: bool) -> None:
        """Tick or untick a choice of a "select all" card."""
        self._choice_buttons[position].setChecked(checked)

    def show_choice_result(self, result: ChoiceResult) -> None:
        """Mark every choice after the answer; the hint goes."""
        self._hint.hide()
        for button, outcome, checked in zip(
            self._choice_buttons, result.outcomes, result.checked, strict=True
        ):
            button.setChecked(checked)
            button.set_outcome(outcome)
        marked = [
            button
            for button, outcome in zip(self._choice_buttons, result.outcomes, strict=True)
            if outcome is not Outcome.NONE
        ]
        self._marked = marked[0] if marked else None

    def show_back(self, card: BasicCard) -> None:
        """Reveal a basic card's back, its hints open above it (an occlusion card's masks
        lift)."""
        self.show_hint(every=True)
        if card.occlusion is not None:
            self.occlusion.show_answer()
        back = without_references(card.back)
        only_sound = _blank_html(back) and back != card.back
        html = card.markup == "html"
        if not html and needs_card_view(back):
            html, back, only_sound = True, markdown_to_card_html(back), False  # label: no images
        if html and _blank_html(back) and not only_sound:
            self._marked = self._type_result if self._type_result.isVisibleTo(self) else None
            return  # nothing to show: the question (and the comparison) are the answer
        if html and not only_sound:
            self._back_html.show()
            self._back_html.set_card_html(back)
            self._marked = self._back_html
        else:
            self._back.setText(markdown_to_html(back.strip() or i18n.tr(LISTEN)))
            self._back.show()
            self._marked = self._back

    def question_text(self) -> str:
        """The question as plain text (what an announcement says)."""
        image = self.occlusion.accessibleName() if self.occlusion.isVisibleTo(self) else ""
        if self._question_html.isVisibleTo(self):
            text = self._question_html.accessibleName()
        else:
            text = self._question.accessibleName() if self._question.isVisibleTo(self) else ""
        return ". ".join(part for part in (text, image) if part)

    def back_text(self) -> str:
        """A basic card's revealed back as plain text, or "" before it is revealed."""
        for view in (self._back, self._back_html):
            if view.isVisibleTo(self):
                return view.accessibleName()
        return ""

    def scroll_by_key(self, event: QKeyEvent) -> None:
        """Scroll the card with Up, Down, Page Up or Page Down (the area never takes focus)."""
        QApplication.sendEvent(self.verticalScrollBar(), event)

    def reveal_feedback(self) -> None:
        """Scroll down so the feedback panel comes into view, but never past the first
        marked choice: what was picked and what was right stay on screen above the
        explanation, which the learner then scrolls on to read. Nor past the question
        while the question, the marked choices and the note on the picked choice fit in
        view together. A scroll that would cut the question in two stops at an edge
        instead: at the top when the verdict and the note show from there, else at the
        first choice."""
        for layout in self._layouts:
            layout.activate()  # the feedback was just filled: place it now
        height = self.viewport().height()
        wanted = self._top_of(self.feedback) + self.feedback.height() + _MARGIN - height
        if self._marked is not None:
            wanted = min(wanted, self._top_of(self._marked) - _MARGIN)
        note = self.feedback.picked_note
        headline = note if note.isVisibleTo(self) else self.feedback.verdict
        question = self._question_html if self._question_html.isVisibleTo(self) else self._question
        top = self._top_of(question) - _MARGIN
        if self._top_of(headline) + headline.height() + _MARGIN - top <= height:
            # The question, the marked choices and the verdict with the note on the picked
            # choice fit together: keep them so, the question whole and in view.
            self.verticalScrollBar().setValue(max(0, min(wanted, top)))
            return
        first = self._choice_buttons[0] if self._choice_buttons else self._marked
        edge = self._top_of(first) - _MARGIN if first is not None else 0
        if 0 < wanted < edge:
            fits = self._top_of(headline) + headline.height() + _MARGIN <= height
            wanted = 0 if fits else edge
        self.verticalScrollBar().setValue(max(0, wanted))

    def _top_of(self, widget: QWidget) -> int:
        """Where a widget's top is on the scrolled page."""
        return widget.mapTo(self._page, QPoint(0, 0)).y()

    def _clear_choices(self) -> None:
        for button in self._choice_buttons:
            self._choices_box.removeWidget(button)
            button.deleteLater()
        self._choice_buttons = []
        self._marked = None
