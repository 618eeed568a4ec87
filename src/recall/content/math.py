"""Formulas in card text: found in MathJax's and Anki's notations, typeset to SVG once each.

MathJax's ``\\( \\)`` (inline) and ``\\[ \\]`` (display), and Anki's LaTeX forms ``[$]…[/$]``,
``[$$]…[/$$]`` and ``[latex]…[/latex]``, are typeset by ziamath: pure Python, LaTeX math
to SVG paths with its own STIX Two Math font, about 4 MiB with its font and parser, and
nothing to run besides (no TeX installation, no web engine). Anki draws its LaTeX forms
into images (``latex-<sha1>.png``) that packages carry: where a package has the image,
the importer shows it instead (``with_anki_images``), so the card looks as it did.

A formula that cannot be typeset (a command ziamath does not know, unbalanced braces, a
TeX package such as chemfig) gives None, and the window shows its source in code style:
never an error. Typesetting is bounded (``MAX_FORMULA_CHARS``, ``MAX_BRACE_DEPTH``) and
cached, so a formula is typeset once per size and colour.
"""

from __future__ import annotations

import functools
import hashlib
import html
import re
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass

# Longer or deeper sources are shown as source: typesetting time grows with both.
MAX_FORMULA_CHARS = 2_000
MAX_BRACE_DEPTH = 24
# Formulas typeset in one text; the rest show as source (a page of formulas is a table).
MAX_FORMULAS = 64
_CACHE_SIZE = 1024

# Anki's own pattern for its three LaTeX forms (rslib/src/latex.rs), for its image names.
_ANKI_LATEX = re.compile(
    r"\[latex\](?P<latex>.+?)\[/latex\]"
    r"|\[\$\](?P<inline>.+?)\[/\$\]"
    r"|\[\$\$\](?P<display>.+?)\[/\$\$\]",
    re.DOTALL | re.IGNORECASE,
)
_ANKI_KINDS = frozenset({"latex", "anki_inline", "anki_display"})
_TOKEN = "RECALLFORMULA"
_TOKENS = re.compile(_TOKEN + r"(\d+)Z")
_LINE_BREAKS = re.compile(r"<br( /)?>|<div>", re.IGNORECASE)
_TAG = re.compile(r"<[^>]*>")
# A command name ziamath passed through untypeset: it shows as its own letters.
_UNKNOWN_COMMAND = re.compile(r"<m[io][^>]*>\\[A-Za-z]+")


@dataclass(frozen=True)
class Formula:
    """One formula found in card text.

    Attributes:
        source: The LaTeX, as plain text (tags taken out, entities decoded).
        display: Set on its own line, centred (``\\[ \\]``, ``[$$]``), else inline.
        text: A ``[latex]`` fragment: text with ``$…$`` math inside, not math itself.
        written: The formula as the card text holds it, delimiters included.
    """

    source: str
    display: bool
    text: bool
    written: str


@dataclass(frozen=True)
class Typeset:
    """A typeset formula.

    Attributes:
        svg: The SVG document.
        width: Its width in pixels at the size asked for.
        height: Its height in pixels.
    """

    svg: bytes
    width: float
    height: float


# Each notation's opening delimiter: its closing one and its kind.
_NOTATIONS = {
    "\\(": ("\\)", "inline"),
    "\\[": ("\\]", "display"),
    "[$]": ("[/$]", "anki_inline"),
    "[$$]": ("[/$$]", "anki_display"),
    "[latex]": ("[/latex]", "latex"),
}
_DELIMITER = re.compile(r"\\[()\[\]]|\[/?\$\$?\]|\[/?latex\]", re.IGNORECASE)


def _formulas(
    fragment: str, kinds: frozenset[str] | None = None
) -> Iterator[tuple[int, int, str, str]]:
    """Each formula of ``fragment`` (of ``kinds``, or every notation) as (start, end, kind,
    body), in order: an opening delimiter up to the first closing one of its notation after
    at least one character, other delimiters inside it read as its text.

    One pass over the delimiters: a pattern searched from every opening delimiter would
    read the rest of the text each time, minutes for a field of unclosed ``\\(``.
    """
    opened: tuple[int, int, str, str] | None = None  # start, body start, closer, kind
    for found in _DELIMITER.finditer(fragment):
        written = found.group(0).lower()
        if opened is None:
            notation = _NOTATIONS.get(written)
            if notation is not None and (kinds is None or notation[1] in kinds):
                opened = (found.start(), found.end(), *notation)
        elif written == opened[2] and found.start() > opened[1]:
            yield opened[0], found.end(), opened[3], fragment[opened[1] : found.start()]
            opened = None


def split(fragment: str) -> list[str | Formula]:
    """``fragment`` as its text and its formulas, in order (text pieces may be empty)."""
    pieces: list[str | Formula] = []
    end = 0
    for start, stop, kind, body in _formulas(fragment):
        pieces.append(fragment[end:start])
        pieces.append(
            Formula(
                source=_plain(body),
                display=kind in ("display", "anki_display"),
                text=kind == "latex",
                written=fragment[start:stop],
            )
        )
        end = stop
    pieces.append(fragment[end:])
    return pieces


def protect(text: str) -> tuple[str, list[str]]:
    """``text`` with each formula replaced by a token that Markdown leaves as it is (it
    would take ``\\(`` for an escaped parenthesis), and the formulas as written."""
    written: list[str] = []
    pieces: list[str] = []
    for piece in split(text):
        if isinstance(piece, Formula):
            written.append(piece.written)
            piece = f"{_TOKEN}{len(written) - 1}Z"
        pieces.append(piece)
    return "".join(pieces), written


def restore(fragment: str, written: list[str]) -> str:
    """``fragment`` (HTML made from ``protect``'s text) with the formulas back, escaped."""
    if not written:
        return fragment

    def formula(found: re.Match[str]) -> str:
        index = int(found.group(1))
        return html.escape(written[index], quote=False) if index < len(written) else ""

    return _TOKENS.sub(formula, fragment)


def has_formula(fragment: str) -> bool:
    """Whether ``fragment`` holds a formula in any of the notations."""
    return next(_formulas(fragment), None) is not None


def typeset(formula: Formula, size: float, color: str) -> Typeset | None:
    """``formula`` typeset at ``size`` pixels in ``color`` (``#rrggbb``), or None when it
    cannot be (too long, too deep, unknown to the typesetter)."""
    source = formula.source.strip()
    if not source or len(source) > MAX_FORMULA_CHARS or _depth(source) > MAX_BRACE_DEPTH:
        return None
    return _typeset(source, formula.display, formula.text, round(size, 1), color)


@functools.lru_cache(maxsize=_CACHE_SIZE)
def _typeset(source: str, display: bool, text: bool, size: float, color: str) -> Typeset | None:
    with warnings.catch_warnings():
        # ziamath and ziafont find their fonts through importlib.resources.path, which
        # Python deprecates; the fonts are found all the same.
        warnings.simplefilter("ignore", DeprecationWarning)
        return _draw(source, display, text, size, color)


def _draw(source: str, display: bool, text: bool, size: float, color: str) -> Typeset | None:
    # About 60 ms to import: loaded when the first formula is shown.
    from ziamath.config import config
    from ziamath.zmath import Latex, Text

    config.svg2 = False  # plain paths: Qt's SVG renderer has no <symbol>
    drawn: Latex | Text
    try:
        if text and not (source.startswith("$") and source.endswith("$") and len(source) > 1):
            drawn = Text(source, size=size, color=color)
            mathml = "".join(_text_math(source))
        else:
            math = source.strip("$") if text else source
            drawn = Latex(math, size=size, color=color, inline=not display)
            mathml = drawn.mathmlstr()
        if _UNKNOWN_COMMAND.search(mathml):
            return None
        svg = drawn.svg()
        width, height = drawn.getsize()
    # ziamath and the parser under it raise what they meet on malformed input (assertion,
    # parse, key, index and recursion errors among them): every one means "not typeset".
    except Exception:
        return None
    if not width or not height:
        return None
    return Typeset(svg.encode("utf-8"), float(width), float(height))


def _text_math(source: str) -> list[str]:
    """The MathML of each ``$…$`` inside a ``[latex]`` text, to look for unknown commands."""
    from ziamath.zmath import Latex

    return [
        Latex(part).mathmlstr()
        for index, part in enumerate(source.split("$"))
        if index % 2 and part.strip()
    ]


def anki_image_name(written: str, svg: bool = False) -> str | None:
    """The name Anki gives the image it draws for one of its LaTeX forms, or None when
    ``written`` is not one: ``latex-`` and the SHA-1 of the LaTeX Anki typesets, as
    rslib/src/latex.rs makes it."""
    found = _ANKI_LATEX.fullmatch(written)
    return None if found is None else _anki_name(_anki_source(found), svg)


def with_anki_images(fragment: str, present: Callable[[str], bool]) -> str:
    """``fragment`` with each Anki LaTeX form whose image ``present`` says the package holds
    replaced by that image, as Anki shows it; the others are left for ``typeset``."""
    if "[" not in fragment:
        return fragment

    def image(written: str) -> str:
        found = _ANKI_LATEX.fullmatch(written)
        assert found is not None, "a formula of Anki's kinds matches Anki's pattern"
        source = _anki_source(found)
        for svg in (False, True):
            name = _anki_name(source, svg)
            if present(name):
                alt = html.escape(source, quote=True)
                return f'<img class="latex" alt="{alt}" src="{name}">'
        return written

    pieces: list[str] = []
    end = 0
    for start, stop, _kind, _body in _formulas(fragment, _ANKI_KINDS):
        pieces += [fragment[end:start], image(fragment[start:stop])]
        end = stop
    pieces.append(fragment[end:])
    return "".join(pieces)


def _anki_source(found: re.Match[str]) -> str:
    """The LaTeX Anki typesets for one of its forms: ``$…$`` around inline math,
    ``displaymath`` around display math, then ``strip_html_for_latex`` (line breaks and
    ``<div>`` as newlines, tags out, entities decoded, a no-break space as a space)."""
    if found.group("latex") is not None:
        latex = found.group("latex")
    elif found.group("inline") is not None:
        latex = f"${found.group('inline')}$"
    else:
        latex = f"\\begin{{displaymath}}{found.group('display')}\\end{{displaymath}}"
    text = _TAG.sub("", _LINE_BREAKS.sub("\n", latex))
    return html.unescape(text).replace("\xa0", " ")


def _anki_name(source: str, svg: bool) -> str:
    digest = hashlib.sha1(source.encode("utf-8"), usedforsecurity=False).hexdigest()
    return f"latex-{digest}.{'svg' if svg else 'png'}"


def _plain(body: str) -> str:
    """A formula's LaTeX from card HTML: line breaks as spaces, tags out, entities decoded."""
    text = _TAG.sub("", _LINE_BREAKS.sub(" ", body))
    return html.unescape(text).replace("\xa0", " ")


def _depth(source: str) -> int:
    deepest = depth = 0
    for character in source:
        if character == "{":
            depth += 1
            deepest = max(deepest, depth)
        elif character == "}":
            depth -= 1
    return deepest
