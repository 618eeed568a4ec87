"""A deck checker for authors: the format's errors as import gives them, plus teaching warnings.

Errors come from the deck format itself (``deck_format``), word for word as ``recall import``
reports them. Warnings are about how well a valid deck teaches: cues that let a test-wise
learner guess (the right option is the longest, always in the same place, or echoed by the
question), options that say the same thing twice, "all/none of the above", and missing
notes, explanations and sources. ``lint_card`` checks one card, as an editor does while its
author types; ``lint_deck`` adds the checks that need the whole deck.
"""

from __future__ import annotations

import difflib
import re
import string
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from recall.content.deck_format import BasicCard, ChoiceCard, Deck, load_deck
from recall.content.lint_warning import CODES, HISTORY_CODES, LintWarning
from recall.core import wording
from recall.core.errors import DeckError, RecallError
from recall.core.i18n import tr, trn

NEAR_DUPLICATE_RATIO = 0.9
"""Options whose normalised texts are at least this alike (difflib's ratio) are near-duplicates."""

PATTERN_MIN_CARDS = 3
"""Deck-level cues (longest, same position) are only judged over at least this many cards."""

# Function words that say nothing about the answer when a question and an option share them.
_STOPWORD_TEXT = """
a about above after again against all also am an and any are as at be because been before being
below between both but by can could did do does doing down during each few for from further had
has have having he her here hers him his how i if in into is it its itself just may me might more
most must my no nor not now of off on once only or other our ours out over own same shall she
should so some such than that the their theirs them then there these they this those through to
too under until up upon very was we were what when where which while who whom why will with would
yet you your
"""
STOPWORDS = frozenset(_STOPWORD_TEXT.split())

_ABOVE = re.compile(
    r"\b(?P<kind>all|both|none|neither)\s+of\s+(?:the\s+)?"
    r"(?:above|below|these|those|others|other\s+(?:options|answers|choices))\b",
    re.IGNORECASE,
)
_WORD = re.compile(r"[^\W_]+")  # letters and digits of any script
_PUNCTUATION = str.maketrans(dict.fromkeys(string.punctuation, " "))


@dataclass(frozen=True)
class LintReport:
    """What checking one deck file found.

    Attributes:
        source: The file as given.
        deck_id: The deck's id, when the file is a valid deck.
        errors: Format errors as ``where: what``, the same lines ``recall import`` prints.
        warnings: Teaching warnings, card by card in file order, then deck-wide ones.
    """

    source: str
    deck_id: str | None = None
    errors: list[str] = field(default_factory=list)
    warnings: list[LintWarning] = field(default_factory=list)


def lint_file(path: Path) -> LintReport:
    """Check a Recall JSON deck file: its format errors, or else its teaching warnings."""
    if path.suffix.lower() != ".json":
        return LintReport(
            str(path), errors=[tr("not a Recall deck file (.json); lint checks only those")]
        )
    try:
        deck = load_deck(path)
    except DeckError as error:
        return LintReport(str(path), errors=list(error.problems))
    except OSError as error:
        return LintReport(
            str(path), errors=[tr("cannot be read ({reason})").format(reason=error.strerror)]
        )
    return LintReport(str(path), deck.id, warnings=lint_deck(deck))


def lint_deck(deck: Deck) -> list[LintWarning]:
    """Every warning about a valid deck: each card's own, then those about the whole deck."""
    warnings = [warning for card in deck.cards for warning in lint_card(card)]
    choice_cards = [card for card in deck.cards if isinstance(card, ChoiceCard)]
    warnings += _longest_is_correct(choice_cards)
    warnings += _same_position(choice_cards)
    return warnings


def lint_card(card: ChoiceCard | BasicCard) -> list[LintWarning]:
    """The warnings that one card earns on its own, in the order of its fields.

    A basic card's back is its answer and explanation, so only a missing source is
    reported for it.
    """
    if isinstance(card, BasicCard):
        return _missing_source(card)
    warnings = _give_away(card)
    warnings += _duplicate_choices(card)
    warnings += _above_options(card)
    for index, choice in enumerate(card.choices):
        if not choice.correct and choice.why is None:
            warnings.append(
                _warn(
                    "missing-why",
                    card,
                    f"choices[{index}].why",
                    tr(
                        "the wrong option {option} has no 'why': say why it is wrong, since a "
                        "learner who picks it sees this note"
                    ).format(option=_quote(choice.text)),
                )
            )
    if not card.explanation.strip():
        warnings.append(
            _warn(
                "missing-explanation",
                card,
                "explanation",
                tr("no explanation: say why the right option is right, shown after every answer"),
            )
        )
    return warnings + _missing_source(card)


def apply_accepted(
    warnings: Sequence[LintWarning], accepted: Iterable[str]
) -> tuple[list[LintWarning], list[LintWarning], list[str]]:
    """Split warnings by a list of accepted ones.

    Args:
        warnings: What the deck earned.
        accepted: ``code`` (every warning of that code) or ``code:card-id`` (that card's).

    Returns:
        The warnings still standing, the accepted ones, and the accepted entries that
        matched no warning (a stale list is worth knowing about).
    """
    wanted = list(dict.fromkeys(accepted))
    standing: list[LintWarning] = []
    taken: list[LintWarning] = []
    used: set[str] = set()
    for warning in warnings:
        matches = [entry for entry in wanted if entry in (warning.code, warning.key)]
        (taken if matches else standing).append(warning)
        used.update(matches)
    return standing, taken, [entry for entry in wanted if entry not in used]


@dataclass(frozen=True)
class LintRun:
    """Reports of several files judged against a list of accepted warnings.

    Attributes:
        reports: One per file, in the order given.
        accepted: The warnings an ``--accept`` entry covers; they do not count.
        unmatched: ``--accept`` entries that matched no warning in any file.
    """

    reports: list[LintReport]
    accepted: list[LintWarning]
    unmatched: list[str]

    @property
    def status(self) -> int:
        """0 when clean, 1 when a file has errors, 2 when only warnings stand."""
        if any(report.errors for report in self.reports):
            return 1
        standing = sum(len(report.warnings) for report in self.reports) - len(self.accepted)
        return 2 if standing or self.unmatched else 0

    def lines(self) -> list[str]:
        """``FILE: card ID: field: message [code]`` lines, errors first in each file."""
        lines: list[str] = []
        for report in self.reports:
            lines += [f"{report.source}: {problem}" for problem in report.errors]
            for warning in report.warnings:
                if warning.card_id:
                    where = tr("card {card}").format(card=warning.card_id)
                else:
                    where = tr("deck {deck}").format(deck=report.deck_id)
                code = warning.code
                if warning in self.accepted:
                    code = tr("{code}, accepted").format(code=code)
                lines.append(
                    f"{report.source}: {where}: {warning.field}: {warning.message} [{code}]"
                )
        lines += [
            tr("--accept {entry}: matched no warning; drop it").format(entry=entry)
            for entry in self.unmatched
        ]
        return lines

    def summary(self) -> str:
        """One line: files checked, errors, warnings standing and accepted."""
        files = len(self.reports)
        errors = sum(len(report.errors) for report in self.reports)
        warnings = sum(len(report.warnings) for report in self.reports) - len(self.accepted)
        text = tr("{files} checked: {errors}, {warnings}").format(
            files=trn("{count} file", "{count} files", files).format(count=wording.number(files)),
            errors=trn("{count} error", "{count} errors", errors).format(
                count=wording.number(errors)
            ),
            warnings=trn("{count} warning", "{count} warnings", warnings).format(
                count=wording.number(warnings)
            ),
        )
        if self.accepted:
            text += " " + tr("({count} accepted)").format(count=len(self.accepted))
        return text

    def as_json(self) -> dict[str, object]:
        """The same findings as plain values, for scripts."""
        return {
            "status": self.status,
            "files": [
                {
                    "file": report.source,
                    "deck": report.deck_id,
                    "errors": report.errors,
                    "warnings": [
                        {
                            "code": warning.code,
                            "card": warning.card_id,
                            "field": warning.field,
                            "message": warning.message,
                            "accepted": warning in self.accepted,
                        }
                        for warning in report.warnings
                    ],
                }
                for report in self.reports
            ],
            "unmatched_accepts": self.unmatched,
        }


def lint_files(
    paths: Sequence[Path],
    accepted: Sequence[str] = (),
    history: Callable[[str], list[LintWarning]] | None = None,
) -> LintRun:
    """Check deck files and judge their warnings against accepted ones.

    Args:
        paths: Recall JSON deck files.
        accepted: ``code`` or ``code:card-id`` entries, as ``apply_accepted`` takes.
        history: Given a valid deck's id, the warnings its review history earns (added
            after the file's own).

    Raises:
        RecallError: An accepted entry names a code that does not exist.
    """
    for entry in accepted:
        code = entry.split(":", 1)[0]
        if code not in CODES and code not in HISTORY_CODES:
            raise RecallError(
                tr("--accept {entry}: there is no warning code {code} (codes: {codes})").format(
                    entry=entry, code=repr(code), codes=", ".join([*CODES, *HISTORY_CODES])
                )
            )
    reports = [lint_file(path) for path in paths]
    if history is not None:
        for report in reports:
            if report.deck_id is not None and not report.errors:
                report.warnings.extend(history(report.deck_id))
    every = [warning for report in reports for warning in report.warnings]
    _standing, taken, unmatched = apply_accepted(every, accepted)
    return LintRun(reports, taken, unmatched)


def _warn(code: str, card: ChoiceCard | BasicCard, where: str, message: str) -> LintWarning:
    return LintWarning(code, card.id, where, message)


def _missing_source(card: ChoiceCard | BasicCard) -> list[LintWarning]:
    if card.source.strip():
        return []
    return [_warn("missing-source", card, "source", tr("no source: say where a reader can check"))]


def _quote(text: str, limit: int = 40) -> str:
    shown = " ".join(text.split())
    return repr(shown if len(shown) <= limit else shown[: limit - 3] + "...")


def _normalised(text: str) -> str:
    """Lower case, punctuation as spaces, runs of spaces as one: what a reader compares."""
    return " ".join(text.lower().translate(_PUNCTUATION).split())


def _duplicate_choices(card: ChoiceCard) -> list[LintWarning]:
    warnings: list[LintWarning] = []
    texts = [_normalised(choice.text) for choice in card.choices]
    for later in range(len(texts)):
        for earlier in range(later):
            earlier_text = _quote(card.choices[earlier].text)
            if texts[later] == texts[earlier]:
                code = "duplicate-choice"
                message = tr(
                    "repeats choices[{earlier}] {option} apart from case, spacing or punctuation; "
                    "make each option a distinct idea"
                ).format(earlier=earlier, option=earlier_text)
            else:
                ratio = difflib.SequenceMatcher(None, texts[earlier], texts[later]).ratio()
                if ratio < NEAR_DUPLICATE_RATIO:
                    continue
                code = "near-duplicate-choice"
                message = tr(
                    "nearly repeats choices[{earlier}] {option} ({alike}% alike); make each "
                    "option a distinct idea"
                ).format(earlier=earlier, option=earlier_text, alike=round(ratio * 100))
            warnings.append(_warn(code, card, f"choices[{later}].text", message))
            break
    return warnings


def _above_options(card: ChoiceCard) -> list[LintWarning]:
    warnings: list[LintWarning] = []
    for index, choice in enumerate(card.choices):
        found = _ABOVE.search(choice.text)
        if found is None:
            continue
        code = (
            "all-of-the-above" if found["kind"].lower() in ("all", "both") else "none-of-the-above"
        )
        warnings.append(
            _warn(
                code,
                card,
                f"choices[{index}].text",
                tr(
                    "{option} points at other options, but Recall shuffles them: name what it "
                    "means, or make the card 'select all that apply'"
                ).format(option=_quote(found[0])),
            )
        )
    return warnings


def _words(text: str) -> set[str]:
    """Content words, lower case, with a plural's final 's' dropped ("states" is "state")."""
    words = set()
    for word in _WORD.findall(text.lower()):
        if len(word) < 3 or word in STOPWORDS:
            continue
        if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
            word = word[:-1]
        words.add(word)
    return words


def _give_away(card: ChoiceCard) -> list[LintWarning]:
    right = set().union(*(_words(choice.text) for choice in card.choices if choice.correct))
    wrong = set().union(*(_words(choice.text) for choice in card.choices if not choice.correct))
    echoed = sorted((_words(card.question) & right) - wrong)
    if not echoed:
        return []
    listed = ", ".join(repr(word) for word in echoed)
    return [
        _warn(
            "give-away",
            card,
            "question",
            tr(
                "repeats {words} from the right option, which no wrong option uses: a learner can "
                "match the word instead of knowing the answer; reword, or use it in a wrong option "
                "too"
            ).format(words=listed),
        )
    ]


def _longest_is_correct(cards: Sequence[ChoiceCard]) -> list[LintWarning]:
    if len(cards) < PATTERN_MIN_CARDS:
        return []
    longest_right = [card.id for card in cards if _longest_option_is_correct(card)]
    if len(longest_right) * 2 <= len(cards):
        return []
    return [
        LintWarning(
            "correct-longest",
            None,
            "cards",
            tr(
                "the right option is the longest in {count} of {cards} choice cards ({ids}): "
                "learners who pick the longest option score well without knowing; lengthen wrong "
                "options or tighten right ones"
            ).format(count=len(longest_right), cards=len(cards), ids=", ".join(longest_right)),
        )
    ]


def _longest_option_is_correct(card: ChoiceCard) -> bool:
    lengths = [len(choice.text) for choice in card.choices]
    longest = max(lengths)
    winners = [index for index, length in enumerate(lengths) if length == longest]
    return len(winners) == 1 and card.choices[winners[0]].correct


def _same_position(cards: Sequence[ChoiceCard]) -> list[LintWarning]:
    single = [card for card in cards if len(card.correct_indexes) == 1]
    if len(single) < PATTERN_MIN_CARDS:
        return []
    positions = {next(iter(card.correct_indexes)) for card in single}
    if len(positions) != 1:
        return []
    (position,) = positions
    return [
        LintWarning(
            "same-position",
            None,
            "cards",
            tr(
                "the right option is choices[{position}] in all {count} single-answer cards: "
                "Recall shuffles options, but other tools and printed copies may not; vary the "
                "order"
            ).format(position=position, count=len(single)),
        )
    ]
