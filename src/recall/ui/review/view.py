"""The review screen: one study session's cards, driven by keys and clicks.

It owns the session and the order of things (question, answer, rating, next card); what is
on screen belongs to its parts: the card panel (``card_panel.py``), the rating bar
(``rating_bar.py``) and the choice marks (``choice_outcome.py``, pure logic). What those
show and say of a question and of an answer is ``presenting.py``'s; what its keys do,
``keys.py``'s.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from enum import Enum, auto
from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QHideEvent, QKeyEvent, QKeySequence, QShortcut
from PySide6.QtWidgets import QPushButton, QVBoxLayout, QWidget

from recall.content.deck_format import BasicCard, ChoiceCard
from recall.content.sound import CardSounds, card_sounds
from recall.core.errors import DatabaseChangedError, RecallError
from recall.core.i18n import tr
from recall.core.memory import Rating
from recall.host.audio import DeviceOutput, Output
from recall.study.custom import CustomQueue
from recall.study.session import StudySession
from recall.study.values import Answer, StudyCard, Summary
from recall.ui.accessibility import announce
from recall.ui.override_errors import reports_errors
from recall.ui.prompts import Prompts, as_sentence
from recall.ui.review.card_panel import CardPanel
from recall.ui.review.choice_button import ChoiceButton
from recall.ui.review.keys import card_key_action, screen_key_pressed
from recall.ui.review.presenting import (
    choose_hint,
    show_answer,
    show_question,
    spoken_answer,
    spoken_question,
)
from recall.ui.review.rating_bar import RatingBar
from recall.ui.review.sound_bar import SoundBar
from recall.ui.review.sound_player import SoundPlayer


class Phase(Enum):
    """What the review screen is waiting for."""

    QUESTION = auto()  # a choice, or the reveal of a basic card
    FEEDBACK = auto()  # a rating: accept the proposed one or pick 1-4


@reports_errors
class ReviewView(QWidget):
    """Shows the cards of one study session, one at a time, driven by the keyboard or mouse.

    Keys: 1-9 and 0 pick a choice (toggle on "select all" cards, then Space submits);
    Space/Enter reveals a basic card; after the answer Space/Enter accepts the proposed
    rating and 1-4 choose Again/Hard/Good/Easy. R and F5 replay the card's sounds; 5
    pauses and resumes them (where 5 does not pick a choice). On a choice card asked as
    type-in, Enter checks what was typed and Alt+C (or Enter on an empty box) shows its
    choices instead.

    Args:
        session: The study session shown.
        clock: The current time, aware UTC.
        media_dir: The media folder images and sounds come from.
        prompts: Asks and tells the learner; tests answer for them.
        audio_output: Where sounds go (the system's device unless a test records them).
    """

    finished = Signal()
    left = Signal()
    stale = Signal()  # the database changed under the session: back to the deck list
    undo_available = Signal(bool)
    card_key = Signal(str, int)  # E, -, @, Ctrl+1..7 on the card shown (review_keys)
    became_leech = Signal()
    announced = Signal(str)  # each announcement sent to screen readers

    def __init__(
        self,
        session: StudySession,
        clock: Callable[[], datetime],
        media_dir: Path,
        prompts: Prompts | None = None,
        audio_output: Callable[[], Output] = DeviceOutput,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self._media_dir = media_dir
        self.sounds = SoundPlayer(media_dir, audio_output, self)
        self._card_sounds = CardSounds()
        self._session = session
        self._clock = clock
        self._prompts = prompts or Prompts(self)
        self._shown: StudyCard | None = None
        self._answer: Answer | None = None
        self._selected: set[int] = set()
        self._typed = ""
        self.phase = Phase.QUESTION
        self.setObjectName("reviewView")
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.setAccessibleName(tr("Review"))
        self._build()
        self._connect_signals()

    # Public API

    @property
    def shown(self) -> StudyCard | None:
        """The card on screen, if any."""
        return self._shown

    @property
    def answer(self) -> Answer | None:
        """The graded answer waiting for a rating, if any."""
        return self._answer

    @property
    def choice_buttons(self) -> list[ChoiceButton]:
        """The choice buttons in the order shown."""
        return self._card.choice_buttons

    @property
    def rating_buttons(self) -> dict[Rating, QPushButton]:
        """The four rating buttons."""
        return dict(self._ratings.buttons)

    @property
    def sound_bar(self) -> SoundBar:
        """The card's sound button, video links and sound problems."""
        return self._card.sound_bar

    @property
    def card_panel(self) -> CardPanel:
        """The card on screen with its choices, answer, feedback and sounds."""
        return self._card

    @property
    def rating_asked(self) -> bool:
        """Whether an answer is on screen, waiting for its rating."""
        return self.phase is Phase.FEEDBACK

    @property
    def deck_key(self) -> str:
        """The file id of the deck being studied."""
        return self._session.deck_key

    @property
    def custom(self) -> CustomQueue | None:
        """The queue of a custom session (None when a deck is studied)."""
        return self._session.custom

    @property
    def deck_name(self) -> str:
        """The name of the deck being studied."""
        return self._session.deck.name

    @property
    def can_undo(self) -> bool:
        """Whether a recorded rating can be taken back."""
        return self._session.can_undo

    def summary(self) -> Summary:
        """How today's study of the deck has gone, every sitting of the day together."""
        return self._session.summary(self._clock())

    def start(self) -> None:
        """Show the first card, or report that there is nothing to study."""
        self._show_next()

    def pick(self, position: int) -> None:
        """Pick the choice shown at ``position`` (0-based), as a click or digit does."""
        shown = self._shown
        if self.phase is not Phase.QUESTION or shown is None:
            return
        card = shown.card
        if not isinstance(card, ChoiceCard) or not 0 <= position < len(shown.order):
            return
        if shown.as_recall:
            return  # its choices are not on screen
        index = shown.order[position]
        if len(card.correct_indexes) > 1:
            self._selected ^= {index}
            self._card.set_checked(position, index in self._selected)
            self._ratings.set_submit_enabled(bool(self._selected))
            return
        self._answer_with({index})

    def submit(self) -> None:
        """Submit the picked choices of a "select all" card, or reveal a basic card."""
        shown = self._shown
        if self.phase is not Phase.QUESTION or shown is None:
            return
        if shown.as_recall or (isinstance(shown.card, BasicCard) and shown.card.type_answer):
            self.submit_typed(self._card.type_box.text())
        elif isinstance(shown.card, BasicCard):
            self._show_feedback(self._session.reveal(shown, self._clock()))
        elif self._selected:
            self._answer_with(set(self._selected))

    def submit_typed(self, typed: str) -> None:
        """Check what was typed on a type-in card (Enter in its box); nothing typed reveals a
        type-in card, and shows the choices of a choice card asked as type-in."""
        shown = self._shown
        if self.phase is not Phase.QUESTION or shown is None:
            return
        if shown.as_recall and not typed.strip():
            self.show_choices()
            return
        typing = isinstance(shown.card, BasicCard) and bool(shown.card.type_answer)
        if not (typing or shown.as_recall):
            return
        self._typed = typed
        self._show_feedback(self._session.answer_typed(shown, typed, self._clock()))

    def show_choices(self) -> None:
        """Show the choices of a card asked as type-in (Alt+C, or the Show choices button).

        Asking for them is asking for help: a right choice then suggests at most Hard.
        """
        shown = self._shown
        if self.phase is not Phase.QUESTION or shown is None or not shown.as_recall:
            return
        card = shown.card
        assert isinstance(card, ChoiceCard)  # only choice cards are asked as type-in
        self._shown = self._session.show_choices(shown)
        self._card.show_choices(card, shown.order)
        self._ratings.ask(choose_hint(len(shown.order)), None)
        self.setFocus()
        choices = " ".join(button.accessibleName() + "." for button in self._card.choice_buttons)
        self._announce(f"{self._card.recall_text()} {choices}")

    def show_hint(self) -> None:
        """Reveal the shown card's next hint (H, or the Show hint button)."""
        if self.phase is Phase.QUESTION and self._card.hints_left:
            self._card.show_hint()
            self._announce(tr("Hint: {hint}").format(hint=self._card.hints_text()))

    def rate(self, rating: Rating | None = None) -> None:
        """Record the pending answer with ``rating`` (the proposed one if None), then move on."""
        answer = self._answer
        if self.phase is not Phase.FEEDBACK or answer is None:
            return
        if not self._record(answer, rating or answer.proposed):
            return  # the answer stays on screen, to be rated again
        self._show_next()

    def undo(self) -> bool:
        """Take back the last rating and show that card again, its choices as they were.

        An answer on screen that has no rating yet is dropped: it was never recorded.

        Returns:
            Whether a rating was taken back.
        """
        if not self._session.can_undo:
            return False
        try:
            shown = self._session.undo(self._clock())
        except DatabaseChangedError as error:
            self._lost(error)
            return False
        self._show_card(shown)
        self._announce(tr("Rating taken back."), assertive=True)
        self.undo_available.emit(self._session.can_undo)
        return True

    def commit_pending(self) -> bool:
        """Record an answer still waiting for its rating, with the suggested rating.

        Returns:
            False when the answer could not be saved and the learner gave up retrying.
        """
        if self._answer is None:
            return True
        return self._record(self._answer, self._answer.proposed)

    def show_next(self) -> None:
        """Move on to the next card (after the one shown was buried or suspended)."""
        self._show_next()

    def show_again(self) -> None:
        """Show the card on screen again as it is stored now (after it was edited)."""
        if self._shown is not None:
            self.show_card(self._shown.card_id)

    def show_card(self, card_id: int) -> None:
        """Show a card of this session as it is stored now (an undone bury brings it back)."""
        self._show_card(self._session.show(card_id, self._clock()))

    def leave(self) -> None:
        """Go back to the deck list; an answer waiting for its rating keeps the suggested one."""
        if self.commit_pending():
            self.left.emit()

    def replay_sounds(self) -> None:
        """Play the sounds of the side on screen again (R, F5, the sound button)."""
        answered = self.phase is Phase.FEEDBACK
        skip = self._session.preferences.skip_question_sounds_on_replay
        self.sounds.play(self._card_sounds.to_play(answered, replay=True, skip_question=skip))

    def toggle_masks(self) -> bool:
        """Show or hide the other masks of the answered image occlusion card (O).

        Returns:
            False when no occlusion with other masks is on screen.
        """
        occlusion = self._card.occlusion
        if not occlusion.isVisibleTo(self) or not occlusion.toggle_masks():
            return False
        self._announce(occlusion.accessibleName())
        return True

    def _autoplay(self) -> None:
        if self._session.preferences.play_sounds_automatically:
            answered = self.phase is Phase.FEEDBACK
            self.sounds.play(self._card_sounds.to_play(answered, False, False))

    def _announce(self, text: str, assertive: bool = False) -> None:
        if text and self.isVisible():
            announce(self, text, assertive)
        self.announced.emit(text)

    def _record(self, answer: Answer, rating: Rating) -> bool:
        """Store the answer; if that fails, say why and offer to try again."""
        while True:
            try:
                recorded = self._session.record(answer, rating, self._clock())
            except DatabaseChangedError as error:
                self._lost(error)
                return False
            except RecallError as error:
                problem = tr(
                    "Your answer could not be saved: {problem}\n\nIt is still on screen."
                ).format(problem=error)
                if self._prompts.retry(tr("Answer not saved"), problem):
                    continue
                return False
            self._answer = None
            self.undo_available.emit(self._session.can_undo)
            if recorded.became_leech:
                self.became_leech.emit()
            return True

    # Qt overrides

    def keyPressEvent(self, event: QKeyEvent) -> None:
        action = card_key_action(event)
        if action is not None and self._shown is not None:
            self.card_key.emit(*action)
            event.accept()
        elif screen_key_pressed(self, event):
            event.accept()
        else:
            super().keyPressEvent(event)

    def hideEvent(self, event: QHideEvent) -> None:
        self.sounds.close()  # leaving the screen silences it; the next sound reopens
        super().hideEvent(event)

    # Building

    def _build(self) -> None:
        self._card = CardPanel(self._media_dir)
        self._ratings = RatingBar()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addWidget(self._card, 1)
        layout.addWidget(self._ratings)
        # Alt+C and not a letter alone: the type-in box has the focus and takes letters.
        self._choices_key = QShortcut(QKeySequence("Alt+C"), self)
        self._choices_key.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)

    def _connect_signals(self) -> None:
        self._card.choice_clicked.connect(self.pick)
        self._card.typed.connect(self.submit_typed)
        self._ratings.submitted.connect(self.submit)
        self._ratings.rated.connect(self._on_rated)
        self._card.choices_wanted.connect(self.show_choices)
        self._choices_key.activated.connect(self.show_choices)
        self._card.sound_bar.replay_requested.connect(self.replay_sounds)
        self.sounds.problem.connect(self._on_sound_problem)
        self.sounds.unavailable.connect(self._on_sound_unavailable)

    def _on_rated(self, rating: Rating) -> None:
        self.rate(rating)

    def _on_sound_problem(self, text: str) -> None:
        self._card.sound_bar.add_problem(text)
        self._announce(text)

    def _on_sound_unavailable(self, text: str) -> None:
        self._card.sound_bar.add_problem(text)
        self._announce(text)

    # Showing

    def _lost(self, error: DatabaseChangedError) -> None:
        """The stored deck is not the one on screen: say so and go back to the deck list."""
        self._answer = None
        self._prompts.tell(tr("Deck changed"), as_sentence(str(error)))
        self.stale.emit()

    def _show_next(self) -> None:
        try:
            shown = self._session.next_card(self._clock())
        except DatabaseChangedError as error:
            self._lost(error)
            return
        if shown is None:
            self._shown = None
            self.finished.emit()
            return
        self._show_card(shown)

    def _show_card(self, shown: StudyCard) -> None:
        self._shown = shown
        self._answer = None
        self._selected = set()
        self.phase = Phase.QUESTION
        card = shown.card
        left = self._session.counts(self._clock())
        self.sounds.stop()
        self._card_sounds = card_sounds(card)
        show_question(
            self._card, self._ratings, self._session.deck.name, left, shown, self._card_sounds
        )
        if shown.as_recall or (isinstance(card, BasicCard) and card.type_answer):
            self._card.type_box.setFocus(Qt.FocusReason.OtherFocusReason)
        else:
            self.setFocus()
        self._autoplay()
        banner_shown = self._card.follow_up_banner.isVisibleTo(self)
        self._announce(spoken_question(self._card, card, shown.as_recall, banner_shown))

    def _answer_with(self, picked: set[int]) -> None:
        assert self._shown is not None
        self._show_feedback(self._session.answer_choice(self._shown, picked, self._clock()))

    def _show_feedback(self, answer: Answer) -> None:
        self._answer = answer
        self.phase = Phase.FEEDBACK
        show_answer(self._card, answer, self._typed, self._session.zone)
        suggested = self._ratings.offer(
            answer.intervals, answer.proposed, self._session.preferences.show_next_intervals
        )
        sounds = self._card_sounds
        self._card.sound_bar.show_media(
            bool(sounds.playable(sounds.question + sounds.answer)), sounds.external
        )
        self._card.reveal_feedback()
        suggested.setFocus(Qt.FocusReason.OtherFocusReason)  # where Space acts
        self._autoplay()
        self._announce(spoken_answer(self._card, answer.proposed), assertive=True)
