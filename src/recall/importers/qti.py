"""IMS QTI 2.1 items: a lone ``assessmentItem`` ``.xml``, or a content package ``.zip``.

A package's ``imsmanifest.xml`` lists its items as resources of type
``imsqti_item_xmlv2p1`` (2.0 and 2.2 items are read the same way); they are read in the
manifest's order into one deck named after the package, as a lone item goes into a deck
named after its file. Every entry name of the zip is checked before anything is read (none
may lead outside the package), entries are read by exact name within a size bound each and
a total for the package, and every XML document is read as ``_xml_tree`` reads it (no
document type or entity declaration, bounded nesting and elements). Images an item shows
are read from the package and staged under their generated names, with the checks Moodle
XML's embedded images get: a kind of image Recall shows, within the image bound, an SVG
without scripts.
"""

from __future__ import annotations

import posixpath
import re
from pathlib import Path, PurePosixPath
from urllib.parse import unquote

from recall.content import card_html
from recall.core import wording
from recall.core.errors import DeckError, ImportCancelledError
from recall.core.i18n import mark, tr, trn
from recall.importers import Cancelled, ImportedPackage, StagedMedia, never_cancelled
from recall.importers._qti_item import Skipped, item_question
from recall.importers._question_bank import BankBuilder, file_deck_name
from recall.importers._report import Tally
from recall.importers._svg import svg_problem
from recall.importers._xml_tree import XmlNode, parse_xml, read_bounded, root_name
from recall.importers._zip import SafeZip

MANIFEST = "imsmanifest.xml"
MAX_XML_BYTES = 16 * 1024**2  # one item, or the manifest
MAX_IMAGE_BYTES = 64 * 1024**2  # one image
MAX_ENTRIES = 100_000  # checked from the zip's end record, before its directory is loaded
MAX_TOTAL_BYTES = 2 * 1024**3  # everything unpacked from one package
MAX_ELEMENTS = 1_000_000  # in one document
MAX_DEPTH = 64
SNIFF_BYTES = 64 * 1024
ITEM_TYPES = ("imsqti_item_xmlv2p0", "imsqti_item_xmlv2p1", "imsqti_item_xmlv2p2")
_DRIVE = re.compile(r"^[A-Za-z]:")
_REMOTE = re.compile(r"^(?:[a-z][a-z0-9+.-]*:|//)", re.IGNORECASE)
_WRITER = "a QTI 2.1 editor"


def is_qti_item(path: Path) -> bool:
    """Whether an ``.xml`` file's root element is a QTI ``assessmentItem``.

    Only the start of the file is read; a file that cannot be read, or is not XML, is left
    to the Moodle XML reader, which says what is wrong with it.
    """
    try:
        with path.open("rb") as handle:
            head = handle.read(SNIFF_BYTES)
    except OSError:
        return False
    return root_name(head) == "assessmentItem"


def read_qti(path: Path, staging: Path, cancelled: Cancelled = never_cancelled) -> ImportedPackage:
    """Read a QTI item file or content package into one deck.

    Args:
        path: An ``assessmentItem`` ``.xml`` file, or a ``.zip`` content package.
        staging: An existing folder inside the data directory; the images the items show
            are left here for the caller to move into the media folder.
        cancelled: Checked between items.

    Raises:
        DeckError: The file cannot be read; is not a QTI item or package; declares a
            document type or entities; is larger, nests deeper or holds more than the bounds
            allow; has an entry or reference that leads outside the package; lists an item
            it lacks; holds an oversized image; or holds no item Recall asks. Each problem
            names the file inside the package and the line.
        ImportCancelledError: ``cancelled()`` became true.
    """
    source = str(path)
    if path.suffix.lower() == ".zip":
        return _read_package(path, staging, source, cancelled)
    data = read_bounded(path, MAX_XML_BYTES, mark("a QTI item may be"))
    root = _item_root(data, source, "")
    images = _Images(source, staging, None)
    builder = BankBuilder(source, file_deck_name(path), images.resolve)
    _add(builder, images, root, "")
    return builder.package(images.media, images.notes())


def _item_root(data: bytes, source: str, member: str) -> XmlNode:
    root = _parse(data, source, member)
    if root.local != "assessmentItem":
        where = _line(member, 1)
        raise DeckError(
            source,
            [
                tr("{where}: not a QTI item (its root is <{root}>, not <assessmentItem>)").format(
                    where=where, root=root.tag[:40]
                )
            ],
        )
    return root


def _parse(data: bytes, source: str, member: str) -> XmlNode:
    return parse_xml(
        data, source, _WRITER, member=member, max_elements=MAX_ELEMENTS, max_depth=MAX_DEPTH
    )


def _add(builder: BankBuilder, images: _Images, root: XmlNode, member: str) -> None:
    """Add one item's card to the deck (or note why it has none)."""
    images.start_item(member)
    read = item_question(root, member, images.seen)
    if isinstance(read, Skipped):
        builder.skip(read.line, read.what, member)
        return
    builder.add(read)
    if images.failure is not None:
        raise images.failure


def _read_package(path: Path, staging: Path, source: str, cancelled: Cancelled) -> ImportedPackage:
    with SafeZip.open(
        path, source, MAX_ENTRIES, MAX_TOTAL_BYTES, mark("a QTI content package")
    ) as archive:
        names = archive.names()
        for name in names:
            if _outside(name):
                raise DeckError(
                    source,
                    [
                        tr(
                            "zip entry {name}: its name leads outside the package; refusing the "
                            "package"
                        ).format(name=repr(name[:80]))
                    ],
                )
        if not archive.has(MANIFEST):
            raise DeckError(
                source,
                [
                    tr(
                        "no {manifest} at the top of the zip: not a QTI content package (export "
                        "the items again as an IMS content package)"
                    ).format(manifest=MANIFEST)
                ],
            )
        manifest = _parse(archive.read(MANIFEST, MAX_XML_BYTES), source, MANIFEST)
        items, tests = _listed_items(manifest, source, archive)
        images = _Images(source, staging, archive)
        builder = BankBuilder(source, file_deck_name(path), images.resolve)
        for member in items:
            if cancelled():
                raise ImportCancelledError
            root = _item_root(archive.read(member, MAX_XML_BYTES), source, member)
            _add(builder, images, root, member)
        notes = images.notes()
        if tests:
            notes.append(
                trn(
                    "{count} assessment test not read (the order and sections of a test have no "
                    "place in a deck); the items the manifest lists are imported",
                    "{count} assessment tests not read (the order and sections of a test have no "
                    "place in a deck); the items the manifest lists are imported",
                    tests,
                ).format(count=wording.number(tests))
            )
        return builder.package(images.media, notes)


def _rooted(name: str) -> bool:
    """Whether a name holds a NUL or starts from a root of its own: ``/``, ``\\``, a drive."""
    return "\x00" in name or name.startswith(("/", "\\")) or bool(_DRIVE.match(name))


def _outside(name: str) -> bool:
    """Whether an entry name leads outside the package it is in (a backslash counting as
    the separator, as Windows' unzip tools take it)."""
    return _rooted(name) or ".." in PurePosixPath(name.replace("\\", "/")).parts


def _listed_items(manifest: XmlNode, source: str, archive: SafeZip) -> tuple[list[str], int]:
    """The entries of the items the manifest lists, in order, and how many tests it lists."""
    items: list[str] = []
    tests = 0
    for resources in manifest.walk():
        if resources.local != "resources":
            continue
        base = resources.attributes.get("xml:base", "")
        for resource in resources.all("resource"):
            kind = resource.attributes.get("type", "")
            if kind.startswith("imsqti_test_xmlv2"):
                tests += 1
            if kind not in ITEM_TYPES:
                continue
            href = resource.attributes.get("href", "")
            if not href:
                found = resource.child("file")
                href = found.attributes.get("href", "") if found is not None else ""
            where = _line(MANIFEST, resource.line)
            if not href:
                raise DeckError(
                    source,
                    [tr("{where}: the item resource names no file (href)").format(where=where)],
                )
            member = _joined(base + resource.attributes.get("xml:base", ""), href)
            if member is None:
                raise DeckError(
                    source,
                    [
                        tr(
                            "{where}: the item {name} leads outside the package; refusing the "
                            "package"
                        ).format(where=where, name=repr(href[:80]))
                    ],
                )
            if not archive.has(member):
                raise DeckError(
                    source,
                    [
                        tr("{where}: lists the item {name}, which the zip lacks").format(
                            where=where, name=repr(href[:80])
                        )
                    ],
                )
            if member not in items:
                items.append(member)
    if not items:
        raise DeckError(
            source,
            [
                tr("{manifest}: lists no QTI item (a resource of type imsqti_item_xmlv2p1)").format(
                    manifest=MANIFEST
                )
            ],
        )
    return items, tests


def _joined(folder: str, reference: str) -> str | None:
    """The entry a reference relative to ``folder`` names, or None if it leads outside."""
    reference = unquote(reference.split("#", 1)[0].split("?", 1)[0])
    if _rooted(reference):
        return None
    joined = posixpath.normpath(posixpath.join(folder, reference))
    return None if _outside(joined) else joined


class _Images:
    """Stages the images an item shows from its package, each file once.

    A lone item file has no package: its images are left out, with a note.
    """

    def __init__(self, source: str, staging: Path, archive: SafeZip | None) -> None:
        self.media: list[StagedMedia] = []
        self.failure: DeckError | None = None
        self._source = source
        self._staging = staging
        self._archive = archive
        self._left_out = Tally()
        self._stored: dict[str, str | None] = {}
        self._item = ""
        self._lines: dict[str, int] = {}

    def start_item(self, member: str) -> None:
        """The images that follow are referenced by this item (its entry in the package)."""
        self._item = member
        self._lines = {}

    def seen(self, reference: str, line: int) -> None:
        """Remember the line of an image reference, for messages about it."""
        self._lines.setdefault(reference, line)

    def notes(self) -> list[str]:
        """The report's note on the images left out, if any were."""
        return self._left_out.line(
            trn("{count} image left out", "{count} images left out", self._left_out.count).format(
                count=wording.number(self._left_out.count)
            )
        )

    def resolve(self, reference: str) -> str | None:
        """The stored name of the image ``reference`` names, or None to drop it.

        A refused image is kept in ``failure`` (the sanitizer calling this would swallow an
        exception) for the reader to raise once the item is built.
        """
        if self.failure is not None:
            return None
        try:
            return self._stage(reference)
        except DeckError as error:
            self.failure = error
            return None

    def _where(self, reference: str) -> str:
        line = self._lines.get(reference)
        if line is None:
            return self._item or tr("the item")
        return _line(self._item, line)

    def _stage(self, reference: str) -> str | None:
        where = self._where(reference)
        shown = repr(reference[:60])
        if _REMOTE.match(reference):
            self._left_out.add(
                tr(
                    "{image} at {where} (not in the package: Recall shows only packaged images)"
                ).format(image=shown, where=where)
            )
            return None
        if self._archive is None:
            self._left_out.add(
                tr(
                    "{image} at {where} (a lone item file holds no images; import its content "
                    "package)"
                ).format(image=shown, where=where)
            )
            return None
        name = _joined(posixpath.dirname(self._item), reference)
        if name is None:
            raise DeckError(
                self._source,
                [
                    tr(
                        "{where}: the image {image} leads outside the package; refusing the package"
                    ).format(where=where, image=shown)
                ],
            )
        if name in self._stored:
            return self._stored[name]
        stored = self._read(name, shown, where)
        self._stored[name] = stored
        return stored

    def _read(self, name: str, shown: str, where: str) -> str | None:
        assert self._archive is not None
        if PurePosixPath(name).suffix.lower() not in card_html.IMAGE_SUFFIXES:
            self._left_out.add(
                tr("{image} at {where} (not a kind of image Recall shows)").format(
                    image=shown, where=where
                )
            )
            return None
        if not self._archive.has(name):
            self._left_out.add(
                tr("{image} at {where} (missing from the package)").format(image=shown, where=where)
            )
            return None
        data = self._archive.read(name, MAX_IMAGE_BYTES)
        problem = svg_problem(data) if name.lower().endswith(".svg") else None
        if problem is not None:
            self._left_out.add(
                tr("{image} at {where} ({problem})").format(
                    image=shown, where=where, problem=problem
                )
            )
            return None
        stored = card_html.media_name(data, name)
        target = self._staging / stored
        if not target.exists():
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
        if all(item.name != stored for item in self.media):
            self.media.append(StagedMedia(name=stored, path=target))
        return stored


def _line(member: str, line: int) -> str:
    """``items/q1.xml line 12``, or ``line 12`` for a lone file."""
    if member:
        return tr("{file} line {line}").format(file=member, line=line)
    return tr("line {line}").format(line=line)
