"""Export to GIFT: choice cards with their notes and basic cards come back from an import equal."""

from __future__ import annotations

from pathlib import Path

from recall.collection import exporting
from recall.content.deck_format import BasicCard, Choice, ChoiceCard, Deck
from recall.importers.gift import read_gift

TRICKY = "Signs { } = ~ # : \\ and a\nline break"


def deck() -> Deck:
    return Deck(
        format="recall-deck",
        version=1,
        id="export-me",
        name="Physics::Waves",
        cards=[
            ChoiceCard(
                id="one-right",
                type="choice",
                question=f"Which is *right*? {TRICKY}",
                choices=[
                    Choice(text="This one", correct=True, why="Because it is."),
                    Choice(text=f"That {TRICKY}", why="It is not."),
                    Choice(text="Neither"),
                ],
                explanation="Shown after **every** answer.",
            ),
            ChoiceCard(
                id="several-right",
                type="choice",
                question="Which are waves?",
                choices=[
                    Choice(text="Sound", correct=True, why="Pressure waves."),
                    Choice(text="Light", correct=True),
                    Choice(text="Rocks", why="Not waves."),
                    Choice(text="Radio", correct=True),
                ],
            ),
            BasicCard(
                id="short",
                type="basic",
                front="What carries sound?",
                back=f"Air {TRICKY}",
                explanation="Or any medium.",
            ),
        ],
    )


def test_export_then_import_gives_the_same_cards(tmp_path: Path) -> None:
    target = tmp_path / "waves.gift"
    assert exporting.write_deck(deck(), target, tmp_path) == 3
    (imported,) = read_gift(target).decks
    assert imported.name == "Physics::Waves"
    original = [card.model_dump(exclude={"id"}) for card in deck().cards]
    assert [card.model_dump(exclude={"id"}) for card in imported.cards] == original


def test_an_html_card_goes_as_its_words(tmp_path: Path) -> None:
    card = BasicCard(
        id="html",
        type="basic",
        markup="html",
        front="<b>Capital</b> of France?",
        back="<i>Paris</i>",
    )
    target = tmp_path / "html.gift"
    exporting.write_deck(deck().model_copy(update={"cards": [card]}), target, tmp_path)
    assert "::html::[html]<b>Capital</b> of France?{=Paris}" in target.read_text()
    (imported,) = read_gift(target).decks
    (back,) = imported.cards
    assert isinstance(back, BasicCard)
    assert (back.markup, back.front, back.back) == ("html", "<b>Capital</b> of France?", "Paris")
