"""Each local API action through a real server: what it answers and what it writes."""

from __future__ import annotations

import json

from recall.api.actions import DUPLICATE, KEY_REFUSED
from recall.api.server import ApiServer
from recall.changes import editing
from recall.content import lint
from recall.storage import Database
from tests.helpers.api_server import call, card_count, post


def _content(database: Database, card_id: int) -> dict[str, object]:
    with database.reading() as transaction:
        (row,) = transaction.browsing.rows([card_id])
    data: dict[str, object] = json.loads(row.content)
    return data


def _basic(
    front: str, back: str = "an answer", deck: str = "Biology", **extra: object
) -> dict[str, object]:
    note = {"deckName": deck, "modelName": "Basic", "fields": {"Front": front, "Back": back}}
    return {**note, **extra}


def test_version_and_permission_need_no_key(server: ApiServer) -> None:
    assert call(server, "version", key=None) == {"result": 6, "error": None}
    assert call(server, "requestPermission", key=None)["result"] == {
        "permission": "granted",
        "requireApikey": True,
        "version": 6,
    }
    # Without a version, AnkiConnect's version 4: the bare result.
    assert post(server, {"action": "version"}) == (200, 6)


def test_decks_are_listed_and_made(server: ApiServer) -> None:
    assert call(server, "deckNames")["result"] == ["Biology", "Chemistry"]
    made = call(server, "createDeck", deck="Physics::Optics")["result"]
    assert call(server, "createDeck", deck="physics :: optics")["result"] == made
    names_and_ids = call(server, "deckNamesAndIds")["result"]
    assert names_and_ids["Physics::Optics"] == made
    assert sorted(names_and_ids) == ["Biology", "Chemistry", "Physics", "Physics::Optics"]


def test_a_basic_note_is_a_sanitized_html_card_that_passes_lint(
    server: ApiServer, database: Database
) -> None:
    answer = call(
        server,
        "addNote",
        note=_basic("What is <b>ATP</b>?<script>alert(1)</script>", "energy", tags=["cells"]),
    )
    card_id = answer["result"]
    content = _content(database, card_id)
    assert content["front"] == "What is <b>ATP</b>?"
    assert content["markup"] == "html"
    assert content["tags"] == ["cells"]
    checked = editing.check_card({k: v for k, v in content.items() if k != "id"})
    expected = [f"{w.field}: {w.message} ({w.code})" for w in lint.lint_card(checked)]
    assert answer["warnings"] == expected
    assert [w.code for w in lint.lint_card(checked)] == ["missing-source"]
    assert call(server, "findCards", query="deck:Biology")["result"] == [card_id]


def test_a_duplicate_is_refused_unless_allowed(server: ApiServer, database: Database) -> None:
    call(server, "addNote", note=_basic("Where is DNA kept?"))
    again = call(server, "addNote", note=_basic("Where is DNA kept?"))
    assert again == {"result": None, "error": DUPLICATE}
    assert card_count(database) == 1
    other_deck = call(server, "addNote", note=_basic("Where is DNA kept?", deck="Chemistry"))
    assert other_deck["error"] is None
    allowed = _basic("Where is DNA kept?", options={"allowDuplicate": True})
    assert call(server, "addNote", note=allowed)["error"] is None
    assert card_count(database) == 3


def test_reversed_and_cloze_notes_make_sibling_cards(server: ApiServer, database: Database) -> None:
    reversed_note = {**_basic("cell", "Zelle"), "modelName": "Basic (and reversed card)"}
    first = call(server, "addNote", note=reversed_note)["result"]
    cloze = {
        "deckName": "Biology",
        "modelName": "cloze",
        "fields": {"Text": "The {{c1::nucleus}} holds {{c2::DNA}}", "Back Extra": "Eukaryotes"},
    }
    call(server, "addNote", note=cloze)
    found = call(server, "findCards", query="deck:Biology")["result"]
    sides = [(_content(database, i)["front"], _content(database, i)["note"]) for i in found]
    assert sides[0][0] == "cell"
    assert sides[1][0] == "Zelle"
    assert found[0] == first
    assert sides[0][1] == sides[1][1]
    assert "[...]" in str(sides[2][0])
    assert "DNA" in str(sides[2][0])
    assert "nucleus" in str(sides[3][0])
    assert sides[2][1] == sides[3][1] != sides[0][1]
    assert "Eukaryotes" in str(_content(database, found[2])["back"])


def test_find_notes_gives_each_note_by_its_first_card(server: ApiServer) -> None:
    reversed_note = {**_basic("nucleus", "Zellkern"), "modelName": "Basic (and reversed card)"}
    first = call(server, "addNote", note=reversed_note)["result"]
    single = call(server, "addNote", note=_basic("What is a vacuole?"))["result"]
    cards = call(server, "findCards", query="deck:Biology")["result"]
    assert len(cards) == 3
    assert call(server, "findNotes", query="deck:Biology")["result"] == [first, single]
    # Found by its second card alone, the note is still named by its first.
    assert call(server, "findCards", query="front:Zellkern")["result"] == [first + 1]
    assert call(server, "findNotes", query="front:Zellkern")["result"] == [first]
    (second,) = call(server, "cardsInfo", cards=[first + 1])["result"]
    assert second["note"] == first


def test_a_type_in_note_expects_its_answer_as_plain_text(
    server: ApiServer, database: Database
) -> None:
    note = {**_basic("Symbol of sodium?", "<i>Na</i>"), "modelName": "Basic (type in the answer)"}
    card_id = call(server, "addNote", note=note)["result"]
    assert _content(database, card_id)["type_answer"] == "Na"


def test_notes_are_added_all_or_none(server: ApiServer, database: Database) -> None:
    good, bad = _basic("What is a ribosome?"), _basic("Lost", deck="Nowhere")
    assert call(server, "canAddNotes", notes=[good, bad, good])["result"] == [True, False, True]
    refused = call(server, "addNotes", notes=[good, bad])
    assert refused["result"] is None
    assert refused["error"] == "no note was added: notes[1]: deck was not found: Nowhere"
    twice = call(server, "addNotes", notes=[good, good])
    assert "notes[1]: cannot create note because it is a duplicate" in twice["error"]
    assert card_count(database) == 0
    added = call(server, "addNotes", notes=[good, _basic("What is a lysosome?")])
    assert len(added["result"]) == 2
    assert added["warnings"][0].startswith("notes[0]: source")
    assert card_count(database) == 2


def test_a_choice_card_keeps_its_why_notes_and_returns_its_warnings(
    server: ApiServer, database: Database
) -> None:
    answer = call(
        server,
        "addChoiceCard",
        deck="Biology",
        question="Which organelle makes most of a cell's ATP?",
        choices=[
            {"text": "Mitochondrion", "correct": True},
            {"text": "Ribosome", "why": "Ribosomes make proteins."},
            {"text": "Golgi apparatus"},
        ],
        explanation="Oxidative phosphorylation happens in the mitochondrion.",
        tags=["cells"],
    )
    result = answer["result"]
    content = _content(database, result["cardId"])
    assert content["choices"] == [
        {"text": "Mitochondrion", "correct": True},
        {"text": "Ribosome", "why": "Ribosomes make proteins."},
        {"text": "Golgi apparatus"},
    ]
    assert [w.rsplit("(", 1)[1] for w in result["warnings"]] == ["missing-why)", "missing-source)"]
    assert result["warnings"] == answer["warnings"]


def test_a_card_with_a_lint_error_is_refused_with_its_message(
    server: ApiServer, database: Database
) -> None:
    answer = call(
        server,
        "addChoiceCard",
        deck="Biology",
        question="Which is right?",
        choices=[{"text": "this"}, {"text": "that"}],
    )
    assert answer["result"] is None
    assert answer["error"].startswith("the card breaks the deck format: no choice is marked")
    one_choice = call(
        server, "addChoiceCard", deck="Biology", question="Q?", choices=[{"text": "a"}]
    )
    assert "Choices" in one_choice["error"]
    assert card_count(database) == 0


def test_cards_info_describes_found_cards_and_skips_missing_ones(server: ApiServer) -> None:
    card_id = call(server, "addNote", note=_basic("Is <b>RNA</b> a sugar", "a nucleic acid"))[
        "result"
    ]
    (info, missing) = call(server, "cardsInfo", cards=[card_id, 987654])["result"]
    assert missing == {}
    assert info["cardId"] == card_id
    assert info["deckName"] == "Biology"
    assert info["question"] == "Is RNA a sugar"
    assert info["answer"] == "a nucleic acid"
    assert info["modelName"] == "Basic"
    assert info["type"] == 0
    assert info["queue"] == 0
    assert info["fields"]["Front"] == {"value": "Is <b>RNA</b> a sugar", "order": 0}


def test_a_search_that_cannot_be_read_says_where(server: ApiServer) -> None:
    answer = call(server, "findCards", query="deck:Biology (")
    assert answer == {"result": None, "error": "a search was expected at column 15"}


def test_gui_browse_without_a_window_says_so(server: ApiServer) -> None:
    answer = call(server, "guiBrowse", query="deck:Biology")
    assert answer["error"] == (
        "guiBrowse needs Recall's window; this API runs without one (recall api serve)"
    )


def test_multi_answers_each_action_and_takes_the_outer_key(server: ApiServer) -> None:
    answer = call(
        server,
        "multi",
        actions=[
            {"action": "deckNames"},
            {"action": "nope"},
            {"action": "multi", "params": {"actions": []}},
            {"action": "version", "version": 4},
        ],
    )
    first, unknown, nested, old = answer["result"]
    assert first == {"result": ["Biology", "Chemistry"], "error": None}
    assert unknown["error"].startswith("unsupported action: 'nope'")
    assert nested["error"] == "multi cannot hold another multi"
    assert old == 6
    assert call(server, "multi", key=None, actions=[])["error"] == KEY_REFUSED
