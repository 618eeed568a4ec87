"""What the review screen shows and says of a card: its question with the rating bar's key
hints, an answer's verdict, marks and explanation, and the text screen readers are told of
each."""

from __future__ import annotations

from datetime import tzinfo

from recall.content.deck_format import BasicCard, ChoiceCard
from recall.content.sound import CardSounds
from recall.core.i18n import tr
from recall.core.memory import Rating
from recall.study.values import Answer, QueueCounts, StudyCard
from recall.ui.feedback_panel import earlier_picks_line, follow_up_banner, follow_up_note
from recall.ui.review.card_panel import CardPanel
from recall.ui.review.choice_outcome import choice_result
from recall.ui.review.rating_bar import RatingBar, rating_name


def show_question(
    panel: CardPanel,
    ratings: RatingBar,
    deck_name: str,
    left: QueueCounts,
    shown: StudyCard,
    sounds: CardSounds,
) -> None:
    """Show a card's question: the card panel with its follow-up banner and the question's
    sounds, and the keys that answer it on the rating bar.

    Args:
        panel: The card panel.
        ratings: The rating bar.
        deck_name: The deck studied, shown above the card.
        left: The cards left today, shown beside it.
        shown: The card to show, with its choices' order.
        sounds: The card's sounds.
    """
    card = shown.card
    panel.show_card(deck_name, left, card, shown.order, shown.as_recall)
    banner = follow_up_banner(shown.follow_up) if shown.follow_up is not None else ""
    panel.follow_up_banner.setText(banner)
    panel.follow_up_banner.setVisible(bool(banner))
    panel.sound_bar.clear()
    question_sounds = sounds.playable(sounds.question)
    panel.sound_bar.show_media(bool(question_sounds), sounds.external_of(sounds.question))
    _ask_question(ratings, shown)


def _ask_question(ratings: RatingBar, shown: StudyCard) -> None:
    """Put the keys that answer the card shown, and its button, on the rating bar."""
    card = shown.card
    if shown.as_recall:
        ratings.ask(tr("Type the answer · Enter: check · Alt+C: show choices"), tr("Check"))
    elif isinstance(card, ChoiceCard):
        many = len(card.correct_indexes) > 1
        count = len(shown.order)
        if many:
            keys = choice_keys(count)
            ratings.ask(
                tr("{keys}: toggle choices · Space: submit").format(keys=keys),
                tr("Submit"),
                False,
            )
        else:
            ratings.ask(choose_hint(count), None)
    elif card.type_answer:
        ratings.ask(tr("Type the answer · Enter: check"), tr("Check"))
    else:
        ratings.ask(tr("Space: show answer"), tr("Show answer"))


def spoken_question(
    panel: CardPanel, card: ChoiceCard | BasicCard, as_recall: bool, banner_shown: bool
) -> str:
    """What a screen reader is told when a card appears: the question, then the choices
    (or, for a card asked as type-in, why and how to see them).

    Args:
        panel: The card panel showing the card.
        card: The card shown.
        as_recall: Whether a choice card is asked as type-in.
        banner_shown: Whether the follow-up banner is on screen (it is said first).
    """
    parts = [tr("Question: {question}").format(question=panel.question_text())]
    if banner_shown:
        parts.insert(0, panel.follow_up_banner.text())
    if as_recall:
        parts.append(panel.recall_text() + " " + tr("Type the answer; Alt+C shows the choices."))
    elif isinstance(card, ChoiceCard):
        if len(card.correct_indexes) > 1:
            parts.append(tr("Select all that apply."))
        parts += [button.accessibleName() + "." for button in panel.choice_buttons]
    return " ".join(parts)


def show_answer(panel: CardPanel, answer: Answer, typed: str, zone: tzinfo | None) -> None:
    """Show a graded answer on the card panel: the marked choices or the typed comparison,
    the back, and the feedback (verdict, notes, explanation, source, earlier picks).

    Args:
        panel: The card panel showing the answered card.
        answer: The graded answer.
        typed: What was typed, as typed (the comparison shows it).
        zone: The learner's time zone, for the dates of earlier picks.
    """
    card = answer.card.card
    if isinstance(card, ChoiceCard) and answer.typed is not None:
        # Asked as type-in: the comparison shows the right option; notes as for a pick.
        panel.show_comparison(answer.typed, typed)
        verdict = typed_verdict(answer)
        notes = choice_result(card, answer.card.order, answer.picked).notes
    elif isinstance(card, ChoiceCard):
        result = choice_result(card, answer.card.order, answer.picked)
        panel.show_choice_result(result)
        verdict, notes = result.verdict, result.notes
    elif answer.typed is not None:
        panel.show_comparison(answer.typed, typed)
        panel.show_back(card)
        verdict, notes = typed_verdict(answer), ""
    else:
        if card.type_answer:
            panel.show_comparison(None, "")
        panel.show_back(card)
        verdict, notes = tr("How well did you remember it?"), ""
        occlusion = card.occlusion
        if occlusion is not None and (occlusion.masked(answer=True) or occlusion.answer_mask):
            verdict = tr("How well did you remember it? (O shows or hides the other masks.)")
    panel.feedback.show_result(
        verdict,
        answer.correct,
        notes,
        card.explanation,
        card.source,
        earlier_picks_line(answer.earlier_picks, zone),
        follow_up_note(answer.card.follow_up) if answer.card.follow_up is not None else "",
    )


def spoken_answer(panel: CardPanel, proposed: Rating) -> str:
    """What a screen reader is told of an answer: the comparison, the back, the feedback,
    then the suggested rating."""
    back = panel.back_text()
    compared = panel.comparison_text()
    spoken = (f"{compared}\n" if compared else "") + (
        tr("Answer: {answer}").format(answer=back) + "\n" if back else ""
    )
    spoken += panel.feedback.spoken()
    suggested_name = tr("Suggested: {rating}").format(rating=rating_name(proposed))
    return f"{spoken}\n{suggested_name}"


def choice_keys(count: int) -> str:
    """The keys of ``count`` choices: "1-4", or "1-9 and 0" for ten."""
    if count == 10:
        return tr("1-9 and 0")
    return f"1-{min(count, 9)}"


def choose_hint(count: int) -> str:
    """The key hint of a single-answer choice card with ``count`` choices: "1-4: choose"."""
    return tr("{keys}: choose").format(keys=choice_keys(count))


def typed_verdict(answer: Answer) -> str:
    """The verdict on a typed answer: right, one slip from right, or not quite."""
    if answer.typed is not None and answer.typed.one_slip:
        return tr("One slip from right")
    return tr("Correct") if answer.correct else tr("Not quite")
