"""Untrusted XML read with expat into a small tree that keeps each element's line.

A document type declaration or an entity declaration is refused before it takes effect, so
no entity is ever expanded and no external file is ever loaded; the nesting and the number
of elements are bounded. Each element keeps its text and child elements in document order,
so mixed content (HTML written as XML, as QTI items hold it) can be written out again.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from xml.parsers import expat

from recall.core import i18n
from recall.core.errors import DeckError
from recall.core.i18n import tr
from recall.importers._report import byte_size


@dataclass
class XmlNode:
    """One element: its tag as written (with any prefix), attributes, line and content."""

    tag: str
    attributes: dict[str, str]
    line: int
    children: list[XmlNode] = field(default_factory=list)
    parts: list[str] = field(default_factory=list)
    content: list[str | XmlNode] = field(default_factory=list)

    @property
    def local(self) -> str:
        """The tag without its namespace prefix (``qti:value`` is ``value``)."""
        return self.tag.rpartition(":")[2]

    @property
    def text(self) -> str:
        """The element's own text, without its children's."""
        return "".join(self.parts)

    def child(self, tag: str) -> XmlNode | None:
        """The first child element of this local name, or None."""
        return next((node for node in self.children if node.local == tag), None)

    def all(self, tag: str) -> list[XmlNode]:
        """The child elements of this local name, in order."""
        return [node for node in self.children if node.local == tag]

    def walk(self) -> list[XmlNode]:
        """This element and every element inside it, in document order."""
        found, pending = [], [self]
        while pending:
            node = pending.pop()
            found.append(node)
            pending += reversed(node.children)
        return found


def read_bounded(path: Path, limit: int, what: str) -> bytes:
    """The bytes of the XML file at ``path``, read no further than ``limit`` past its bound.

    Raises:
        DeckError: It cannot be read, or it is larger than ``limit`` (``what`` words the
            bound, marked for translation: "Moodle XML imports take").
    """
    source = str(path)
    try:
        with path.open("rb") as handle:
            data = handle.read(limit + 1)
    except OSError as error:
        raise DeckError(
            source, [tr("cannot be read ({reason})").format(reason=error.strerror or error)]
        ) from None
    if len(data) > limit:
        raise DeckError(
            source,
            [
                tr("the file is larger than {what} ({limit})").format(
                    what=i18n.tr(what), limit=byte_size(limit)
                )
            ],
        )
    return data


class _RefusedError(Exception):
    """A declaration or size the reader does not allow; the message says which."""


def parse_xml(
    data: bytes,
    source: str,
    writer: str,
    *,
    member: str = "",
    max_elements: int,
    max_depth: int,
) -> XmlNode:
    """The document's root element.

    Args:
        data: The document's bytes.
        source: The file, for messages.
        writer: Who writes such documents, for the refusal of a declaration ("Moodle").
        member: The document's name inside a package, put before each line number.
        max_elements: The most elements the document may hold.
        max_depth: The deepest the elements may nest.

    Raises:
        DeckError: It is not well-formed XML, declares a document type or entities, or
            nests or holds more than the bounds allow.
    """
    parser = expat.ParserCreate()
    parser.SetParamEntityParsing(expat.XML_PARAM_ENTITY_PARSING_NEVER)
    stack: list[XmlNode] = []
    roots: list[XmlNode] = []
    count = 0
    where = f"{member} " if member else ""

    def start(tag: str, attributes: dict[str, str]) -> None:
        nonlocal count
        count += 1
        if count > max_elements or len(stack) >= max_depth:
            if count > max_elements:
                raise _RefusedError(tr("more elements than a question bank has"))
            raise _RefusedError(tr("more levels of nesting than a question bank has"))
        node = XmlNode(tag, attributes, parser.CurrentLineNumber)
        if stack:
            stack[-1].children.append(node)
            stack[-1].content.append(node)
        else:
            roots.append(node)
        stack.append(node)

    def end(_tag: str) -> None:
        stack.pop()

    def characters(text: str) -> None:
        if stack:
            stack[-1].parts.append(text)
            stack[-1].content.append(text)

    def doctype(*_args: object) -> None:
        raise _RefusedError(
            tr(
                "a document type declaration (<!DOCTYPE>) is not read; {writer} never writes one"
            ).format(writer=writer)
        )

    def entity(*_args: object) -> None:
        raise _RefusedError(
            tr("an entity declaration (<!ENTITY>) is not read; {writer} never writes one").format(
                writer=writer
            )
        )

    parser.StartElementHandler = start
    parser.EndElementHandler = end
    parser.CharacterDataHandler = characters
    parser.StartDoctypeDeclHandler = doctype
    parser.EntityDeclHandler = entity
    parser.buffer_text = True
    try:
        parser.Parse(data, True)
    except _RefusedError as error:
        line, column = parser.CurrentLineNumber, parser.CurrentColumnNumber + 1
        raise DeckError(
            source,
            [
                tr("{where}line {line}, column {column}: {problem}").format(
                    where=where, line=line, column=column, problem=error
                )
            ],
        ) from None
    except expat.ExpatError as error:
        message = expat.errors.messages.get(error.code, str(error)) if error.code else str(error)
        raise DeckError(
            source,
            [
                tr("{where}line {line}, column {column}: not XML ({reason})").format(
                    where=where, line=error.lineno, column=error.offset + 1, reason=message
                )
            ],
        ) from None
    if not roots:  # pragma: no cover (expat refuses a document without an element)
        raise DeckError(source, [tr("{where}line 1: no element").format(where=where)])
    return roots[0]


class _RootFoundError(Exception):
    """The root element's name, found."""

    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.name = name


def root_name(head: bytes) -> str | None:
    """The local name of the root element the start of a document declares, or None.

    Only the first element (or the document type declaration's name) is read: nothing in a
    declaration is expanded, and a document that is not XML gives None.
    """
    parser = expat.ParserCreate()
    parser.SetParamEntityParsing(expat.XML_PARAM_ENTITY_PARSING_NEVER)

    def found(name: str, *_args: object) -> None:
        raise _RootFoundError(name.rpartition(":")[2])

    parser.StartElementHandler = found
    parser.StartDoctypeDeclHandler = found
    try:
        parser.Parse(head, False)
    except _RootFoundError as stop:
        return stop.name
    except expat.ExpatError:
        return None
    return None
