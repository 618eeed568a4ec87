"""How much a card may hold and the window will lay out, and linear measures of card text.

Qt's rich-text layout slows down with a card's length, sharply with list nesting, and
doubles its work with every level of tables inside tables; the HTML parser behind the
sanitizer slows down with element nesting. So every card field is bounded in length, and
HTML and Markdown in nesting: imports refuse (and report) longer fields, the sanitizer drops
formatting nested deeper than the bound (keeping the text), and the window shows anything
over a bound as plain text with a note.

The measures here never parse: they scan the text once, counting the way the HTML parser
could nest at most (every start tag of a non-void element opens one; an end tag closes the
element opened last, and only paragraphs, list items and cells are closed the way the
parser closes them by itself), so the real nesting stays within a small multiple of what
they report (tests/content/test_cardlimits.py checks it on generated tag soup).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from recall.core.i18n import tr

MAX_FIELD_CHARS = 65_536
"""A card's question, answer, choice, explanation or source, in characters, as stored."""

MAX_SOURCE_FIELD_CHARS = 1_048_576
"""An outside app's field before cleaning (its HTML may shrink); longer ones are refused."""

MAX_HTML_SIDE_CHARS = 4 * MAX_SOURCE_FIELD_CHARS
"""An HTML card's front, back or hint, as stored: Anki's fields of up to
``MAX_SOURCE_FIELD_CHARS`` are kept whole, a template may show several on one side. The
window lays out at most ``MAX_FIELD_CHARS`` of it as rich text (``ui/text.py``)."""

MAX_NAME_CHARS = 500
"""A deck name or a tag, in characters."""

MAX_NESTING = 100
"""HTML elements inside one another."""

MAX_MARKDOWN_NESTING = 16
"""Markdown lists and quotes inside one another (Qt lays each level out again)."""

MAX_TABLE_NESTING = 3
"""Tables inside tables: Qt's layout work doubles with each level."""

MAX_CLOZE_CARDS = 500
"""Cards one cloze note may give (one per cloze number)."""

VOID_ELEMENTS = frozenset(
    {
        "area", "base", "br", "col", "embed", "hr", "img", "image", "input", "keygen",
        "link", "meta", "param", "source", "track", "wbr", "basefont", "bgsound", "frame",
    }
)  # fmt: skip

# One piece of markup as the HTML tokenizer could see it. A tag ends at its first ">"
# (quotes are ignored, so a tag is never taken to end later than the parser ends it); a
# comment, doctype or processing instruction also ends at its first ">", so tags inside a
# comment are counted too. Counting too many only ever makes the measure safer.
_MARKUP = re.compile(r"<(?:(/?)([a-zA-Z][^\t\n\f\r />]*)|[!?]|/(?![a-zA-Z]))[^>]*>?")
_MARKDOWN_PREFIX = re.compile(
    r"^(?:[ \t]*(?:>|[-*+](?=[ \t]|$)|\d{1,9}[.)](?=[ \t]|$)))*[ \t]*", re.MULTILINE
)
_LIST_MARKER = re.compile(r"[-*+]|\d{1,9}[.)]")
# A line prefix shorter than this nests at most 16 levels: each character opens one level at
# most, or two for a tab (four columns, two per level), so 17 levels take 9 characters.
_DEEP_PREFIX = re.compile(r"\n[ \t>*+\-.)0-9]{" + str((MAX_MARKDOWN_NESTING + 2) // 2) + "}")


@dataclass(frozen=True)
class Nesting:
    """How deeply a text nests: elements (or Markdown containers) and tables."""

    depth: int = 0
    tables: int = 0

    def problem(self) -> str | None:
        """What is over the bounds, as a predicate (``the front ...``), or None."""
        if self.tables > MAX_TABLE_NESTING:
            return tr(
                "has tables nested {depth} deep (cards show at most {most} tables inside one "
                "another)"
            ).format(depth=f"{self.tables:,}", most=MAX_TABLE_NESTING)
        if self.depth > MAX_NESTING:
            return tr(
                "nests its formatting {depth} levels deep (cards show at most {most})"
            ).format(depth=f"{self.depth:,}", most=MAX_NESTING)
        return None


def length_problem(text: str, limit: int = MAX_FIELD_CHARS) -> str | None:
    """``is 61,234,567 characters long (cards hold at most 65,536 per field)``, or None."""
    if len(text) <= limit:
        return None
    return tr("is {count} characters long (cards hold at most {most} per field)").format(
        count=f"{len(text):,}", most=f"{limit:,}"
    )


def html_nesting(fragment: str) -> Nesting:
    """At least as deep as the HTML parser could nest ``fragment``'s elements and tables."""
    return _scan(fragment, MAX_NESTING, MAX_TABLE_NESTING).nesting


def html_nesting_problem(fragment: str) -> str | None:
    """``html_nesting(fragment).problem()``, without the scan when too few tags are there to
    pass the bounds (each element and table the scan counts starts with a ``<``)."""
    markup = fragment.count("<")
    if markup <= MAX_NESTING and (
        markup <= MAX_TABLE_NESTING or fragment.lower().count("<table") <= MAX_TABLE_NESTING
    ):
        return None
    return html_nesting(fragment).problem()


@dataclass(frozen=True)
class Flattened:
    """HTML with the elements nested past the bounds taken out (their text stays).

    Attributes:
        html: The fragment, unchanged when it was within the bounds.
        nesting: How deeply the original could nest.
        dropped: How many tags were taken out.
    """

    html: str
    nesting: Nesting
    dropped: int


# Elements the parser closes by itself when the same kind starts again or an enclosing
# block ends ("generate implied end tags"); only these are closed without an end tag, and
# only where the parser surely closes them too.
_IMPLIED = frozenset({"dd", "dt", "li", "optgroup", "option", "p", "rb", "rp", "rt", "rtc"})
_CELLS = frozenset({"td", "th", "tr", "tbody", "thead", "tfoot", "caption"})
_CLOSED_BY_START = {
    "p": frozenset({"p"}),
    "li": frozenset({"li"}),
    "dd": frozenset({"dd", "dt"}),
    "dt": frozenset({"dd", "dt"}),
    "td": frozenset({"td", "th"}),
    "th": frozenset({"td", "th"}),
    "tr": frozenset({"td", "th", "tr"}),
    "option": frozenset({"option"}),
    **{f"h{level}": frozenset({f"h{other}" for other in range(1, 7)}) for level in range(1, 7)},
}
_P_CLOSERS = frozenset(
    {
        "address", "article", "aside", "blockquote", "center", "details", "dialog", "dir",
        "div", "dl", "fieldset", "figcaption", "figure", "footer", "header", "hgroup",
        "main", "menu", "nav", "ol", "p", "section", "summary", "ul", "h1", "h2", "h3",
        "h4", "h5", "h6", "pre", "listing", "table", "hr", "xmp", "li", "dd", "dt",
    }
)  # fmt: skip
# End tags that close every implied element above them ("generate implied end tags, then
# pop until the element"), with what else they may close on the way.
_BLOCK_ENDS = _P_CLOSERS | {"button", "applet", "marquee", "object"}
_TABLE_ENDS = frozenset({"table", "tbody", "thead", "tfoot", "tr", "td", "th", "caption"})

# A dropped tag becomes an empty comment, so the text on either side of it can never join
# into a new tag (``<<b>div>`` must not become ``<div>``).
_INERT = "<!---->"


class _Elements:
    """The elements open at a point of a scan, and how deep the scan has been."""

    def __init__(self, max_nesting: int, max_tables: int) -> None:
        self.max_nesting = max_nesting
        self.max_tables = max_tables
        self.stack: list[str] = []
        self.tables = 0
        self.waiting: dict[str, int] = {}
        self.waiting_total = 0
        self.deepest = 0
        self.deepest_tables = 0

    def pop(self) -> None:
        self.tables -= self.stack.pop() == "table"

    def start(self, name: str) -> bool:
        """Open an element; False when it is past the bounds (then it is dropped)."""
        if self.stack and self.stack[-1] == "p" and name in _P_CLOSERS:
            self.pop()
        closed = _CLOSED_BY_START.get(name)
        if closed is not None:
            if name == "tr" and self.stack and self.stack[-1] in ("td", "th"):
                self.pop()
            if self.stack and self.stack[-1] in closed:
                self.pop()
        if name in VOID_ELEMENTS:
            return True
        is_table = name == "table"
        self.deepest = max(self.deepest, len(self.stack) + self.waiting_total + 1)
        if is_table:
            self.deepest_tables = max(self.deepest_tables, self.tables + 1)
        if len(self.stack) >= self.max_nesting or (is_table and self.tables >= self.max_tables):
            self.waiting[name] = self.waiting.get(name, 0) + 1
            self.waiting_total += 1
            return False
        self.stack.append(name)
        self.tables += is_table
        return True

    def end(self, name: str) -> bool:
        """Close an element; False when its start tag was dropped (then so is this)."""
        if self.stack and self.stack[-1] == name:
            self.pop()
            return True
        if self.waiting.get(name):
            self.waiting[name] -= 1
            self.waiting_total -= 1
            return False
        if name in _BLOCK_ENDS or name in _TABLE_ENDS:
            passable = _IMPLIED | _CELLS if name in _TABLE_ENDS else _IMPLIED
            index = len(self.stack) - 1
            while index >= 0 and self.stack[index] in passable and self.stack[index] != name:
                index -= 1
            if index >= 0 and self.stack[index] == name:
                while len(self.stack) > index:
                    self.pop()
        return True


def flatten_html(
    fragment: str, max_nesting: int = MAX_NESTING, max_tables: int = MAX_TABLE_NESTING
) -> Flattened:
    """Take out the tags that would open an element past ``max_nesting`` or a table past
    ``max_tables``, and the end tags that would close them; keep everything else.

    One pass over the text whatever its nesting (the open elements never number more than
    ``max_nesting``). Elements the HTML parser closes by itself (paragraphs, list items,
    cells) are closed as it would; anything else stays open until its end tag comes when
    it is the innermost open element, so the parser can never nest the result deeper than
    this count, and so never past the bounds.
    """
    markup = fragment.count("<")
    if markup <= max_nesting:
        # Too few tags to pass the bounds: nothing to scan (most card fields).
        tables = fragment.lower().count("<table") if markup else 0
        if tables <= max_tables:
            return Flattened(fragment, Nesting(markup, tables), 0)
    return _scan(fragment, max_nesting, max_tables)


def _scan(fragment: str, max_nesting: int, max_tables: int) -> Flattened:
    elements = _Elements(max_nesting, max_tables)
    pieces: list[str] = []
    position = dropped = 0
    for match in _MARKUP.finditer(fragment):
        name = match.group(2)
        if name is None:
            continue
        name = name.lower()
        keep = elements.end(name) if match.group(1) else elements.start(name)
        if not keep:
            pieces += (fragment[position : match.start()], _INERT)
            position = match.end()
            dropped += 1
    nesting = Nesting(elements.deepest, elements.deepest_tables)
    if not dropped:
        return Flattened(fragment, nesting, 0)
    pieces.append(fragment[position:])
    return Flattened("".join(pieces), nesting, dropped)


def markdown_problem(text: str) -> str | None:
    """What makes Markdown card text too large or deep to lay out, or None."""
    too_long = length_problem(text)
    if too_long is not None:
        return too_long
    depth = markdown_nesting(text)
    if depth > MAX_MARKDOWN_NESTING:
        return tr("nests lists or quotes {depth} levels deep (cards show at most {most})").format(
            depth=f"{depth:,}", most=MAX_MARKDOWN_NESTING
        )
    return None


def may_nest_markdown_deeply(text: str) -> bool:
    """Whether any line of ``text`` starts with enough marker and space characters to nest
    Markdown past ``MAX_MARKDOWN_NESTING``: one regular expression search, so a batch of
    texts joined by newlines is checked at once and ``markdown_nesting`` runs only on a
    text this finds."""
    # Each line's start is after a newline; starting with a newline, not "^", lets the
    # search skip from newline to newline.
    return _DEEP_PREFIX.search("\n" + text) is not None


def markdown_nesting(text: str) -> int:
    """The deepest any line of Markdown could nest lists and quotes.

    Each ``>`` and list marker at the start of a line counts as a level, and so do every
    two columns of indentation beyond the one space after each marker (a tab is four
    columns): never fewer than the levels the line opens. Indentation without a marker
    opens one level at most (a code block).
    """
    deepest = 0
    for match in _MARKDOWN_PREFIX.finditer(text):
        prefix = match.group(0)
        if len(prefix) <= deepest:
            continue  # a prefix opens at most one level per character
        markers = prefix.count(">") + len(_LIST_MARKER.findall(prefix))
        columns = prefix.count(" ") + 4 * prefix.count("\t")
        if not markers:  # indentation alone opens one level at most (a code block)
            deepest = max(deepest, 1 if columns >= 4 else 0)
            continue
        deepest = max(deepest, markers + max(0, columns - markers) // 2)
    return deepest
