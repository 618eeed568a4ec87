"""Moodle XML question banks (``.xml``): questions, categories as decks, embedded images.

The file is read with expat directly into a small tree that keeps each element's line. A
document type declaration or an entity declaration is refused before it takes effect (no
entity expansion, no external file is ever loaded), and the file's size, the nesting and
the number of elements are bounded. Images embedded as ``<file encoding="base64">`` are
decoded (each within the image bound), staged under their generated names, and the
question's ``@@PLUGINFILE@@/name`` references point at them.
"""

from __future__ import annotations

import base64
import binascii
from pathlib import Path, PurePosixPath
from urllib.parse import unquote

from recall.content import card_html
from recall.core import i18n, wording
from recall.core.errors import DeckError
from recall.core.i18n import mark, tr, trn
from recall.importers import ImportedPackage, StagedMedia
from recall.importers._question_bank import (
    NO_TEXT,
    Answer,
    BankBuilder,
    Format,
    Kind,
    Question,
    Rich,
    file_deck_name,
)
from recall.importers._report import Tally, byte_size
from recall.importers._svg import svg_problem
from recall.importers._xml_tree import XmlNode as _Node
from recall.importers._xml_tree import parse_xml, read_bounded

MAX_XML_BYTES = 256 * 1024**2
MAX_IMAGE_BYTES = 64 * 1024**2
MAX_DEPTH = 64
MAX_ELEMENTS = 5_000_000
PLUGINFILE = "@@PLUGINFILE@@/"
_KINDS: dict[str, Kind] = {
    "multichoice": "multichoice",
    "truefalse": "truefalse",
    "shortanswer": "shortanswer",
    "numerical": "numerical",
    "matching": "matching",
}
_SKIPPED = {
    "essay": mark("an essay: Recall has no card for written answers"),
    "description": mark("a description, not a question"),
    "cloze": mark("an embedded-answers (cloze) question"),
    "multianswer": mark("an embedded-answers (cloze) question"),
    "calculated": mark("a calculated question"),
    "calculatedsimple": mark("a calculated question"),
    "calculatedmulti": mark("a calculated question"),
    "ddwtos": mark("a drag-and-drop question"),
    "ddimageortext": mark("a drag-and-drop question"),
    "ddmarker": mark("a drag-and-drop question"),
    "gapselect": mark("a select-missing-words question"),
    "randomsamatch": mark("a random matching question"),
}


def _parse(data: bytes, source: str) -> _Node:
    """The document's ``<quiz>`` root element.

    Raises:
        DeckError: It is not well-formed XML, declares a document type or entities, nests
            or holds more than the bounds allow, or its root is not ``<quiz>``.
    """
    root = parse_xml(data, source, "Moodle", max_elements=MAX_ELEMENTS, max_depth=MAX_DEPTH)
    if root.tag != "quiz":
        raise DeckError(
            source,
            [
                tr("line 1: not a Moodle XML file (its root is <{root}>, not <quiz>)").format(
                    root=root.tag[:40]
                )
            ],
        )
    return root


def read_moodle_xml(path: Path, staging: Path) -> ImportedPackage:
    """Read a Moodle XML question bank into decks, one per category.

    Args:
        path: The ``.xml`` file Moodle exported.
        staging: An existing folder inside the data directory; embedded images are left
            here for the caller to move into the media folder.

    Raises:
        DeckError: The file cannot be read, is not well-formed Moodle XML, declares a
            document type or entities, holds a damaged or oversized image, or holds no
            question Recall asks; each problem names its line.
    """
    source = str(path)
    data = read_bounded(path, MAX_XML_BYTES, mark("Moodle XML imports take"))
    root = _parse(data, source)
    del data
    images = _Images(source, staging)
    builder = BankBuilder(source, file_deck_name(path), images.resolve)
    for node in root.all("question"):
        kind = node.attributes.get("type", "")
        if kind == "category":
            category = node.child("category")
            if category is not None:
                text = category.child("text")
                info = node.child("info")
                description = _rich(info).plain() if info is not None else ""
                builder.category((text or category).text, description)
            continue
        if kind not in _KINDS:
            if kind in _SKIPPED:
                what = i18n.tr(_SKIPPED[kind])
            else:
                what = tr("of type {kind}, which Recall cannot ask").format(kind=repr(kind[:40]))
            builder.skip(node.line, what)
            continue
        images.files = _files(node)
        builder.add(_question(node, _KINDS[kind]))
        if images.failure is not None:
            raise images.failure
    left_out = trn(
        "{count} embedded file left out", "{count} embedded files left out", images.left_out.count
    )
    return builder.package(
        images.media,
        images.left_out.line(left_out.format(count=wording.number(images.left_out.count))),
    )


def _text(node: _Node | None) -> str:
    if node is None:
        return ""
    inner = node.child("text")
    return (inner if inner is not None else node).text


def _rich(node: _Node | None, default: str = "html") -> Rich:
    """The text of an element with a ``<text>`` child, in the element's ``format``."""
    if node is None:
        return NO_TEXT
    text = _text(node).strip()
    if not text:
        return NO_TEXT
    fmt = node.attributes.get("format", default)
    if fmt in ("moodle_auto_format", "moodle"):
        return Rich(text.replace("\n", "<br>"), "html")
    kinds: dict[str, Format] = {"html": "html", "plain_text": "plain", "markdown": "markdown"}
    return Rich(text, kinds.get(fmt, "html"))


def _question(node: _Node, kind: Kind) -> Question:
    text = _rich(node.child("questiontext"))
    image = _text(node.child("image")).strip()
    if image and node.child("image_base64") is not None:
        # Moodle 1.9 kept one image beside the text, not in it.
        text = Rich(f'{text.html()}<br><img src="{PLUGINFILE}{image}">', "html")
    single_text = _text(node.child("single")).strip().lower()
    single = None if not single_text else single_text in ("true", "1")
    answers = []
    for answer in node.all("answer"):
        try:
            fraction = float(answer.attributes.get("fraction", "0"))
        except ValueError:
            fraction = 0.0
        value = _rich(answer, "moodle_auto_format")
        if kind == "numerical":
            value = Rich(_number(value.plain(), _text(answer.child("tolerance")).strip()), "plain")
        if kind == "truefalse":
            value = Rich("True" if value.plain().lower() == "true" else "False", "plain")
        answers.append(Answer(value, fraction, _rich(answer.child("feedback"))))
    pairs = tuple(
        (_rich(sub), Rich(_text(sub.child("answer")).strip(), "plain"))
        for sub in node.all("subquestion")
    )
    if kind == "truefalse":
        answers.sort(key=lambda answer: answer.text.text != "True")
    return Question(
        kind=kind,
        name=_text(node.child("name")).strip(),
        text=text,
        line=node.line,
        answers=tuple(answers),
        pairs=pairs,
        general_feedback=_rich(node.child("generalfeedback")),
        single=single,
    )


def _number(value: str, tolerance: str) -> str:
    try:
        spread = float(tolerance) if tolerance else 0.0
    except ValueError:
        spread = 0.0
    return f"{value} ± {spread:g}" if spread else value


def _files(question: _Node) -> dict[str, tuple[int, str]]:
    """The question's embedded files by name: (line, base64 text)."""
    files: dict[str, tuple[int, str]] = {}
    for node in question.walk():
        if node.tag == "file" and node.attributes.get("encoding") == "base64":
            files[node.attributes.get("name", "")] = (node.line, node.text)
        elif node.tag == "image_base64":
            name = _text(question.child("image")).strip()
            files[name] = (node.line, node.text)
    return files


class _Images:
    """Stages the images a question's HTML references, each file once."""

    def __init__(self, source: str, staging: Path) -> None:
        self.files: dict[str, tuple[int, str]] = {}
        self.media: list[StagedMedia] = []
        self.left_out = Tally()
        self.failure: DeckError | None = None
        self._source = source
        self._staging = staging
        self._staged: set[str] = set()

    def resolve(self, reference: str) -> str | None:
        """The stored name of the image ``reference`` names, or None to drop it.

        A damaged or oversized image is kept in ``failure`` (the sanitizer calling this
        would swallow an exception) for the reader to raise once the question is built.
        """
        if self.failure is not None:
            return None
        try:
            return self._stage(reference)
        except DeckError as error:
            self.failure = error
            return None

    def _stage(self, reference: str) -> str | None:
        if not reference.startswith(PLUGINFILE):
            return None
        name = unquote(reference[len(PLUGINFILE) :])
        found = self.files.get(name)
        if found is None:
            self.left_out.add(tr("{name} (not in the file)").format(name=repr(name[:60])))
            return None
        line, encoded = found
        if PurePosixPath(name).suffix.lower() not in card_html.IMAGE_SUFFIXES:
            self.left_out.add(
                tr("{name} at line {line} (not a kind of image Recall shows)").format(
                    name=repr(name[:60]), line=line
                )
            )
            return None
        compact = "".join(encoded.split())
        if len(compact) // 4 * 3 > MAX_IMAGE_BYTES:
            raise DeckError(
                self._source,
                [
                    tr("line {line}: the image {name} is larger than {limit}").format(
                        line=line, name=repr(name[:60]), limit=byte_size(MAX_IMAGE_BYTES)
                    )
                ],
            )
        try:
            data = base64.b64decode(compact, validate=True)
        except (binascii.Error, ValueError):
            raise DeckError(
                self._source,
                [
                    tr("line {line}: the image {name} is not valid base64").format(
                        line=line, name=repr(name[:60])
                    )
                ],
            ) from None
        problem = svg_problem(data) if name.lower().endswith(".svg") else None
        if problem is not None:
            self.left_out.add(
                tr("{name} at line {line} ({problem})").format(
                    name=repr(name[:60]), line=line, problem=problem
                )
            )
            return None
        stored = card_html.media_name(data, name)
        if stored not in self._staged:
            target = self._staging / stored
            try:
                target.write_bytes(data)
            except OSError as error:
                raise DeckError(
                    self._source,
                    [
                        tr("cannot stage an image in {folder} ({reason})").format(
                            folder=self._staging, reason=error.strerror
                        )
                    ],
                ) from None
            self._staged.add(stored)
            self.media.append(StagedMedia(name=stored, path=target))
        return stored
