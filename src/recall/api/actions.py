"""The local API's actions: AnkiConnect's commonest, and Recall's own ``addChoiceCard``.

Every action runs on the server's thread through the same use cases the window uses
(``changes.editing`` adds cards, ``changes.decks`` makes decks, ``collection.browse``
finds them), each in its own short transaction, so the window's database watcher sees
what the API wrote. Every card added passes the deck format's checks, as ``recall lint``
gives them (an error refuses the note with its message), and its lint warnings come back
with the result.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from recall.api import notes
from recall.api.notes import NoteRequest
from recall.api.protocol import (
    API_VERSION,
    MAX_TEXT_CHARS,
    ApiError,
    Params,
    Request,
    key_matches,
    reply,
    request_from,
)
from recall.changes import decks as deck_changes
from recall.changes import editing
from recall.collection import browse
from recall.collection.browse import Finder
from recall.content import lint
from recall.content.deck_format import CARD_ADAPTER, BasicCard, ChoiceCard
from recall.content.lint_warning import LintWarning
from recall.content.plain_text import plain_text
from recall.core import deck_tree
from recall.core.errors import RecallError, one_line
from recall.scheduling import Scheduler
from recall.storage import Database, DeckRow

MAX_MULTI_ACTIONS = 100
"""The most actions one ``multi`` request may hold."""

MAX_NOTES = 1_000
"""The most notes one ``addNotes`` or ``canAddNotes`` request may hold."""

KEY_REFUSED = "valid api key must be provided"
"""AnkiConnect's words for a missing or wrong key, which its clients recognise."""

DUPLICATE = "cannot create note because it is a duplicate"
"""AnkiConnect's words for a duplicate note."""


@dataclass
class Outcome:
    """What an action gave back: its result and the lint warnings of the cards it added."""

    result: Any
    warnings: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class _Checked:
    """A note whose cards passed the deck format, ready to add to its deck."""

    deck: DeckRow
    cards: list[dict[str, Any]]
    warnings: list[str]
    allow_duplicate: bool


Browse = Callable[[str], None]
"""Opens the window's browser on a query; called from the server's thread."""


class Api:
    """Answers the local API's requests for one collection.

    Args:
        database: The collection.
        clock: The current time, aware UTC.
        key: The key every request but ``version`` and ``requestPermission`` must carry.
        browse: Opens the browser in the running window (the window hands the query to its
            own thread); None when there is no window.
    """

    def __init__(
        self,
        database: Database,
        clock: Callable[[], datetime],
        key: str,
        browse: Browse | None = None,
    ) -> None:
        if not key:
            raise ApiError("the local API needs a key; turn it on in Preferences first")
        self._database = database
        self._clock = clock
        self._key = key
        self.browse = browse
        self._finder: Finder | None = None
        self._actions: dict[str, Callable[[Params], Outcome]] = {
            "deckNames": self._deck_names,
            "deckNamesAndIds": self._deck_names_and_ids,
            "createDeck": self._create_deck,
            "addNote": self._add_note,
            "addNotes": self._add_notes,
            "canAddNotes": self._can_add_notes,
            "addChoiceCard": self._add_choice_card,
            "findCards": self._find_cards,
            "findNotes": self._find_notes,
            "cardsInfo": self._cards_info,
            "guiBrowse": self._gui_browse,
        }

    @property
    def action_names(self) -> list[str]:
        """Every action this API answers."""
        return sorted([*self._actions, "version", "requestPermission", "multi"])

    def answer(self, request: Request) -> Any:
        """The reply to one request: its result, or the error that refused it.

        Only a ``RecallError`` becomes an ``error``; anything else is a bug and is raised.
        """
        try:
            outcome = self._run(request)
        except RecallError as error:
            return reply(request.version, None, one_line(str(error)))
        return reply(request.version, outcome.result, None, outcome.warnings)

    def _run(self, request: Request) -> Outcome:
        if request.action == "version":
            return Outcome(API_VERSION)
        if request.action == "requestPermission":
            # The server has already refused any web page the learner did not allow.
            return Outcome({"permission": "granted", "requireApikey": True, "version": API_VERSION})
        if request.action != "multi" and request.action not in self._actions:
            raise ApiError(
                f"unsupported action: {request.action[:80]!r}; Recall answers "
                f"{', '.join(self.action_names)}"
            )
        if not key_matches(request.key, self._key):
            raise ApiError(KEY_REFUSED)
        if request.action == "multi":
            return self._multi(request)
        return self._actions[request.action](request.params)

    def _multi(self, request: Request) -> Outcome:
        answers = []
        for item in request.params.objects("actions", MAX_MULTI_ACTIONS):
            try:
                inner = request_from(item, request.key, request.version)
            except ApiError as error:
                answers.append(reply(request.version, None, str(error)))
                continue
            if inner.action == "multi":
                answers.append(reply(inner.version, None, "multi cannot hold another multi"))
                continue
            answers.append(self.answer(inner))
        return Outcome(answers)

    # Decks

    def _decks(self) -> list[DeckRow]:
        with self._database.reading() as transaction:
            return transaction.browsing.decks()

    def _deck_names(self, _params: Params) -> Outcome:
        return Outcome(sorted({deck.name for deck in self._decks()}, key=str.casefold))

    def _deck_names_and_ids(self, _params: Params) -> Outcome:
        return Outcome({deck.name: deck.id for deck in self._decks()})

    def _deck_named(self, name: str, decks: list[DeckRow] | None = None) -> DeckRow:
        folded = deck_tree.normalize(name).casefold()  # "A :: B" is the deck "A::B"
        found = [
            deck
            for deck in decks or self._decks()
            if deck_tree.normalize(deck.name).casefold() == folded
        ]
        if not found:
            raise ApiError(f"deck was not found: {name}")
        if len(found) > 1:
            raise ApiError(f"several decks are named {name!r}; rename one in Recall first")
        return found[0]

    def _create_deck(self, params: Params) -> Outcome:
        name = notes.deck_name(params, "deck")
        try:
            return Outcome(self._deck_named(name).id)
        except ApiError:
            pass  # a new one is made
        change = deck_changes.new_deck(self._database, name, self._clock())
        return Outcome(change.restore.added_decks[-1])

    # Adding cards

    def _check(self, note: NoteRequest, decks: list[DeckRow]) -> _Checked:
        """A note's deck found and its cards checked by the deck format, or why not."""
        deck = self._deck_named(note.deck_name, decks)
        warnings = []
        for card in note.cards:
            try:
                checked = editing.check_card(card)
            except editing.CardError as error:
                raise ApiError(
                    "the card breaks the deck format: " + "; ".join(error.problems)
                ) from None
            warnings += [_warning(warning) for warning in lint.lint_card(checked)]
        warnings = list(dict.fromkeys(warnings))  # siblings of one note earn the same ones
        question = _question(note)
        if not note.allow_duplicate and editing.is_duplicate(self._database, deck.id, question):
            raise ApiError(DUPLICATE)
        return _Checked(deck, note.cards, warnings, note.allow_duplicate)

    def _add(self, checked: _Checked) -> list[int]:
        _change, card_ids = editing.add_cards(
            self._database, checked.deck, checked.cards, self._clock()
        )
        return card_ids

    def _add_note(self, params: Params) -> Outcome:
        checked = self._check(notes.read_note(params.mapping("note")), self._decks())
        return Outcome(self._add(checked)[0], checked.warnings)

    def _read_notes(self, params: Params) -> list[Params]:
        return params.objects("notes", MAX_NOTES)

    def _add_notes(self, params: Params) -> Outcome:
        """Every note checked before any is added: one refused note adds none."""
        decks = self._decks()
        checked, problems = [], []
        for index, note in enumerate(self._read_notes(params)):
            try:
                checked.append(self._check(notes.read_note(note), decks))
            except RecallError as error:
                problems.append(f"notes[{index}]: {error}")
        seen: set[tuple[int, str]] = set()
        for index, item in enumerate(checked):
            question = (item.deck.id, _question_of(item.cards[0]))
            if question in seen and not item.allow_duplicate:
                problems.append(f"notes[{index}]: {DUPLICATE} of an earlier note")
            seen.add(question)
        if problems:
            raise ApiError("no note was added: " + "; ".join(problems))
        ids = [self._add(item)[0] for item in checked]
        warnings = [
            f"notes[{index}]: {w}" for index, item in enumerate(checked) for w in item.warnings
        ]
        return Outcome(ids, warnings)

    def _can_add_notes(self, params: Params) -> Outcome:
        decks = self._decks()
        answers = []
        for note in self._read_notes(params):
            try:
                self._check(notes.read_note(note), decks)
            except RecallError:
                answers.append(False)
            else:
                answers.append(True)
        return Outcome(answers)

    def _add_choice_card(self, params: Params) -> Outcome:
        checked = self._check(notes.read_choice_card(params), self._decks())
        card_id = self._add(checked)[0]
        return Outcome({"cardId": card_id, "warnings": checked.warnings}, checked.warnings)

    # Finding cards

    def _find(self, params: Params) -> list[int]:
        if self._finder is None:
            with self._database.reading() as transaction:
                preferences = transaction.options.preferences()
            self._finder = Finder(self._database, Scheduler(), preferences)
        query = params.text("query", limit=MAX_TEXT_CHARS)
        return list(self._finder.find(query, self._clock()).card_ids)

    def _find_cards(self, params: Params) -> Outcome:
        return Outcome(self._find(params))

    def _find_notes(self, params: Params) -> Outcome:
        """The notes of the cards found, each by its first card's id (as ``addNote`` gives)."""
        found = self._find(params)
        with self._database.reading() as transaction:
            firsts = transaction.browsing.first_of_notes(found)
        return Outcome(list(dict.fromkeys(firsts[i] for i in found if i in firsts)))

    def _cards_info(self, params: Params) -> Outcome:
        card_ids = params.integers("cards")
        with self._database.reading() as transaction:
            rows = {row.id: row for row in transaction.browsing.rows(card_ids)}
            notes = transaction.browsing.first_of_notes(list(rows))
        return Outcome([_card_info(rows[i], notes[i]) if i in rows else {} for i in card_ids])

    def _gui_browse(self, params: Params) -> Outcome:
        found = self._find(params)
        if self.browse is None:
            raise ApiError(
                "guiBrowse needs Recall's window; this API runs without one (recall api serve)"
            )
        self.browse(params.text("query"))
        return Outcome(found)


def _question(note: NoteRequest) -> str:
    return _question_of(note.cards[0])


def _question_of(card: dict[str, Any]) -> str:
    """The card's question or front as stored (the deck format strips it)."""
    return str(card.get("question") or card.get("front") or "").strip()


def _warning(warning: LintWarning) -> str:
    return f"{warning.field}: {warning.message} ({warning.code})"


_MODEL_OF_KIND = {"choice": "Recall Choice", "basic": "Basic"}


def _card_info(row: browse.BrowseRow, note: int) -> dict[str, Any]:
    """A card as AnkiConnect's ``cardsInfo`` describes one, in Recall's terms."""
    card = CARD_ADAPTER.validate_json(row.content)
    if isinstance(card, ChoiceCard):
        markup = "markdown"
        question, answer = card.question, "; ".join(c.text for c in card.choices if c.correct)
        fields = {"Question": card.question}
        fields.update({f"Choice {n}": c.text for n, c in enumerate(card.choices, 1)})
        fields["Explanation"] = card.explanation
    else:
        assert isinstance(card, BasicCard)
        markup = card.markup
        question, answer = card.front, card.back
        fields = {"Front": card.front, "Back": card.back}
    state = int(row.memory.state)
    return {
        "cardId": row.id,
        "note": note,
        "deckName": row.deck_name,
        "modelName": _MODEL_OF_KIND.get(row.kind, row.kind),
        "question": plain_text(question, markup),
        "answer": plain_text(answer, markup),
        "fields": {
            name: {"value": value, "order": n} for n, (name, value) in enumerate(fields.items())
        },
        "tags": list(row.tags),
        "type": state,
        "queue": -1 if row.suspended else state,
        "due": row.memory.due.isoformat() if row.memory.due else None,
        "reps": row.reps,
        "lapses": row.lapses,
        "flags": row.flag,
        "content": json.loads(row.content),
    }
