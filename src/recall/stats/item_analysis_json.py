"""The item analysis as ``recall stats --json`` prints it: plain values, or each card's line."""

from __future__ import annotations

import json
from collections.abc import Iterator

from recall.stats.item_analysis import FLAGS, ItemAnalysis


def as_json(analysis: ItemAnalysis) -> list[dict[str, object]]:
    """The analysis as plain values, one entry per card, for ``recall stats --json``."""
    return [
        {
            "deck": card.deck_key,
            "card": card.card_key,
            "answers": card.answers,
            "strong_answers": card.strong,
            "first_right": card.first_right,
            "weak_right": _rounded(card.weak_right),
            "flag": card.flag,
            "options": [
                {
                    "text": option.text,
                    "correct": option.correct,
                    "picks": option.picks,
                    "share": _rounded(option.share),
                    "strong_share": _rounded(option.strong_share),
                    "weak_share": _rounded(option.weak_share),
                    "discrimination": _rounded(option.discrimination),
                    "flag": option.flag,
                }
                for option in card.options
            ],
        }
        for card in analysis.cards
    ]


def json_lines(analysis: ItemAnalysis) -> Iterator[str]:
    """Each entry of ``as_json`` as compact JSON, as ``json.dumps(entry, ensure_ascii=False)``
    writes it: what ``recall stats --json`` prints, one card per line, made as it is read.

    Written here rather than by the JSON module from ``as_json``'s dictionaries, which took
    longer than the analysis itself: the keys are written once in the format below, and the
    part of an option after its text is written once for each set of figures (a card's
    shares are fractions of a few answers: 40,000 options had 1,619 sets). Equal figures
    are written alike: no figure is -0.0 (a share is never negative, and equal shares
    differ by 0.0), the one float equal to another that JSON writes otherwise.
    """
    text = json.JSONEncoder(ensure_ascii=False).encode  # a str written as json.dumps does
    words: dict[object, str] = {None: "null", True: "true", False: "false"}
    words.update((flag, text(flag)) for flag in FLAGS)
    decks: dict[str, str] = {}
    figured: dict[tuple[object, ...], str] = {}
    for card in analysis.cards:
        deck = decks.get(card.deck_key)
        if deck is None:
            deck = decks[card.deck_key] = text(card.deck_key)
        options = []
        for option in card.options:
            figures = option[1:]  # all but the text
            rest = figured.get(figures)
            if rest is None:
                _text, correct, picks, share, strong_share, weak_share, discrimination, flag = (
                    option
                )
                rest = figured[figures] = (
                    f'"correct": {words[correct]}, "picks": {picks}, "share": {_figure(share)}, '
                    f'"strong_share": {_figure(strong_share)}, '
                    f'"weak_share": {_figure(weak_share)}, '
                    f'"discrimination": {_figure(discrimination)}, "flag": {words[flag]}}}'
                )
            options.append(f'{{"text": {text(option.text)}, {rest}')
        yield (
            f'{{"deck": {deck}, "card": {text(card.card_key)}, "answers": {card.answers}, '
            f'"strong_answers": {card.strong}, "first_right": {words[card.first_right]}, '
            f'"weak_right": {_figure(card.weak_right)}, "flag": {words[card.flag]}, '
            f'"options": [{", ".join(options)}]}}'
        )


def _figure(value: float | None) -> str:
    """A figure as ``as_json`` gives it (rounded), written as JSON."""
    return "null" if value is None else repr(round(value, 3))


def _rounded(value: float | None) -> float | None:
    return None if value is None else round(value, 3)
