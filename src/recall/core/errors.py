"""Errors a user can act on, as opposed to bugs."""

from __future__ import annotations

import re

from recall.core.i18n import tr


def printable(text: str) -> str:
    """Text as it can be printed and stored: bytes that are not UTF-8 (a file name's, kept
    by Python as lone surrogates) become ``\\xe9`` escapes, and so does any lone surrogate."""
    try:
        return text.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    except UnicodeEncodeError:
        return text.encode("utf-8", "backslashreplace").decode("utf-8")


_CONTROL = re.compile("[\x00-\x08\x0a-\x1f\x7f-\x9f\u2028\u2029]")


def one_line(text: str) -> str:
    """Printable text on one line: line breaks and other control characters escaped
    (``\\n``, ``\\x0c``), as a terminal or a message box shows them."""
    return _CONTROL.sub(lambda match: ascii(match.group(0))[1:-1], printable(text))


class RecallError(Exception):
    """A problem with the user's input or environment, with a message they can act on.

    Anything that is not a ``RecallError`` is a bug and is reported with its traceback.
    """


class DeckError(RecallError):
    """A deck file that cannot be read or does not follow the deck format.

    Attributes:
        source: The file (or other origin) the deck came from.
        problems: Each problem as ``where: what``, in the order found.
    """

    def __init__(self, source: str, problems: list[str]) -> None:
        source = one_line(source)
        self.source = source
        self.problems = [one_line(problem) for problem in problems]
        super().__init__("\n".join(f"{source}: {problem}" for problem in self.problems))


class DeckErrors(RecallError):  # noqa: N818 (several DeckError)
    """Problems in one or more deck files imported together; nothing was imported."""

    def __init__(self, errors: list[DeckError]) -> None:
        self.errors = errors
        super().__init__("\n".join(str(error) for error in errors))


class UnknownDeckError(RecallError):
    """A deck id that no deck in the database has."""

    def __init__(self, deck_id: str) -> None:
        self.deck_id = deck_id
        super().__init__(
            tr("there is no deck with id {deck} (see `recall decks`)").format(deck=repr(deck_id))
        )


class CancelledError(RecallError):
    """The learner stopped a long operation before it finished; nothing was changed."""

    def __init__(self, message: str | None = None) -> None:
        super().__init__(tr("cancelled; nothing was changed") if message is None else message)


class ImportCancelledError(CancelledError):
    """The learner stopped an import; nothing was imported."""

    def __init__(self) -> None:
        super().__init__(tr("the import was cancelled; nothing was imported"))


class DatabaseChangedError(RecallError):
    """The database changed under a study session (a backup was restored from outside):
    the card or deck it shows is no longer the one stored. Nothing was recorded."""
