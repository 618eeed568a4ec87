"""HTML card text from other apps (Anki fields): an allow-list sanitizer, and media names.

Imported HTML keeps basic formatting, lists, tables and images that point at files in
Recall's media folder; scripts, styles, frames, forms, event handlers, links that would be
followed and every remote or local URL are removed. Formatting nested past
``card_limits.MAX_NESTING`` (or tables past ``MAX_TABLE_NESTING``) is taken out first, its
text kept, so cleaning takes time in proportion to the text however deep it nests. The
window sanitizes again when it shows a card, and loads images only from the media folder.
"""

from __future__ import annotations

import hashlib
import html
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import PurePosixPath

import nh3

from recall.content.card_limits import MAX_NESTING, MAX_TABLE_NESTING, Nesting, flatten_html

# SVG comes in only when it references nothing outside itself (importers/_svg.py).
IMAGE_SUFFIXES = frozenset({".png", ".jpg", ".jpeg", ".gif", ".webp", ".bmp", ".svg"})
# Sounds Recall plays, then videos and sounds it opens with the system's player (sound.py).
SOUND_SUFFIXES = frozenset({".mp3", ".ogg", ".flac", ".wav"})
VIDEO_SUFFIXES = frozenset(
    {".mp4", ".webm", ".mkv", ".mov", ".avi", ".ogv", ".mpg", ".mpeg", ".m4v", ".3gp"}
    | {".m4a", ".aac", ".opus", ".oga", ".wma"}
)
MEDIA_SUFFIXES = IMAGE_SUFFIXES | SOUND_SUFFIXES | VIDEO_SUFFIXES
MEDIA_NAME = re.compile(
    r"^[0-9a-f]{64}\.(?:" + "|".join(sorted(s[1:] for s in MEDIA_SUFFIXES)) + r")$"
)

ALLOWED_TAGS = frozenset(
    {
        "b", "strong", "i", "em", "u", "s", "strike", "sub", "sup", "small", "big", "mark",
        "br", "hr", "p", "div", "span", "blockquote", "pre", "code", "kbd",
        "h1", "h2", "h3", "h4", "h5", "h6",
        "ul", "ol", "li", "dl", "dt", "dd",
        "table", "thead", "tbody", "tfoot", "tr", "td", "th", "caption",
        "img", "font", "center", "ruby", "rb", "rt", "rp",
    }
)  # fmt: skip
# Styles Qt's rich text shows that fetch nothing and move nothing: colours, fonts, sizes,
# alignment. Any other property is dropped (nh3), and so is a value that names a URL, an
# escape or an expression (``_safe_style``); sizes are bounded (``_bounded_size``).
STYLE_PROPERTIES = frozenset(
    {
        "color", "background-color", "font-size", "font-weight", "font-style",
        "font-family", "text-align", "text-decoration", "vertical-align",
    }
)  # fmt: skip
ALLOWED_ATTRIBUTES = {
    "*": {"style", "dir"},
    "img": {"src", "alt", "title", "width", "height"},
    "td": {"colspan", "rowspan"},
    "th": {"colspan", "rowspan"},
    "font": {"color"},
    "ol": {"start"},
}
DROPPED_WITH_CONTENT = frozenset({"script", "style", "iframe", "object", "embed", "template"})

MediaResolver = Callable[[str], str | None]
# Building nh3's cleaner costs far more than cleaning a field, so each thread keeps one;
# its attribute filter asks the resolver of the sanitize call running on that thread.
_local = threading.local()


_UNSAFE_STYLE = re.compile(r"url\s*\(|expression|\\|@|/\*|javascript|image", re.IGNORECASE)
_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(px|pt|em|rem|%)\s*$", re.IGNORECASE)
# The largest font size kept, by unit: a heading's size, never a page-filling letter.
_LARGEST = {"px": 96.0, "pt": 72.0, "em": 6.0, "rem": 6.0, "%": 600.0}
_SIZE_WORDS = frozenset(
    {"xx-small", "x-small", "small", "medium", "large", "x-large", "xx-large", "smaller", "larger"}
)


def safe_style(style: str) -> str | None:
    """The declarations of a ``style`` value that load nothing and stay within bounds."""
    kept: list[str] = []
    for declaration in style.split(";"):
        name, colon, value = declaration.partition(":")
        name, value = name.strip().lower(), value.strip()
        if not colon or name not in STYLE_PROPERTIES or not value or len(value) > 200:
            continue
        if _UNSAFE_STYLE.search(value) or any(c in value for c in "<>{}"):
            continue
        if name == "font-size" and not _bounded_size(value):
            continue
        kept.append(f"{name}: {value}")
    return "; ".join(kept) or None


def _bounded_size(value: str) -> bool:
    if value.lower() in _SIZE_WORDS:
        return True
    found = _SIZE.match(value)
    return found is not None and float(found.group(1)) <= _LARGEST[found.group(2).lower()]


def _keep_attribute(tag: str, attribute: str, value: str) -> str | None:
    if tag == "img" and attribute == "src":
        resolve: MediaResolver = _local.resolve
        return resolve(html.unescape(value).strip())
    if attribute == "style":
        return safe_style(html.unescape(value))
    if attribute == "dir":
        direction = value.strip().lower()
        return direction if direction in ("ltr", "rtl", "auto") else None
    return value


def _cleaner() -> nh3.Cleaner:
    cleaner: nh3.Cleaner | None = getattr(_local, "cleaner", None)
    if cleaner is None:
        cleaner = nh3.Cleaner(
            tags=set(ALLOWED_TAGS),
            clean_content_tags=set(DROPPED_WITH_CONTENT),
            attributes={tag: set(names) for tag, names in ALLOWED_ATTRIBUTES.items()},
            attribute_filter=_keep_attribute,
            filter_style_properties=set(STYLE_PROPERTIES),
            # Only an image's source is a URL here, and it always goes through the media
            # resolver (which gives a stored name or drops it): ``data:`` reaches it, for an
            # importer to decode; every other scheme is dropped before.
            url_schemes={"data"},
            strip_comments=True,
            link_rel=None,
        )
        _local.cleaner = cleaner
    return cleaner


_IMAGE_WITHOUT_SOURCE = re.compile(r"<img(?![^>]*\ssrc=)[^>]*>")
# Text without these characters holds no markup and nothing the cleaner would rewrite.
_MARKUP_OR_REWRITTEN = re.compile("[<>&\x00\r\xa0\ufeff]")


# The strict subset the cleaner gives back as it is: lowercase inline formatting tags
# without attributes, properly nested, line breaks, the entities the cleaner writes itself,
# and text the cleaner leaves alone (no lone surrogate either: the cleaner refuses those).
# Each alternative starts with its own character and matches possessively, so a fragment
# outside the subset is told in one pass.
_SAFE_INLINE = frozenset(
    {"b", "strong", "i", "em", "u", "s", "sub", "sup", "small", "big", "mark", "span", "code"}
)
_SAFE_SUBSET = re.compile(
    r"(?:<(?:/?(?:" + "|".join(sorted(_SAFE_INLINE)) + r")|br)>|&(?:amp|lt|gt|nbsp);"
    r"|[^<>&\x00\r\xa0\ufeff\ud800-\udfff]++)*+"
)
_SAFE_TAG = re.compile(r"<(/?)([a-z]+)>")


def in_safe_subset(fragment: str) -> bool:
    """Whether ``fragment`` is in the strict subset the cleaner would return unchanged:
    allow-listed inline tags without attributes (each closed in order), ``<br>``, the
    entities ``&amp;``, ``&lt;``, ``&gt;`` and ``&nbsp;``, and text of nothing else markup
    or the cleaner rewrites; within the nesting bound (tests hold it equal to nh3's result)."""
    if fragment.count("<") > MAX_NESTING or _SAFE_SUBSET.fullmatch(fragment) is None:
        return False
    open_tags: list[str] = []
    for match in _SAFE_TAG.finditer(fragment):
        closing, name = match.groups()
        if name == "br":
            continue
        if not closing:
            open_tags.append(name)
        elif not open_tags or open_tags.pop() != name:
            return False
    return not open_tags


def media_name(data: bytes, original_name: str) -> str:
    """The safe stored name of a media file: its SHA-256 and its (lowercase) suffix."""
    suffix = PurePosixPath(original_name).suffix.lower()
    return f"{hashlib.sha256(data).hexdigest()}{suffix}"


def is_media_name(name: str) -> bool:
    """Whether ``name`` is a stored media name (so it can only address the media folder)."""
    return MEDIA_NAME.fullmatch(name) is not None


def is_image_name(name: str) -> bool:
    """Whether ``name`` is a stored media name of an image."""
    return is_media_name(name) and PurePosixPath(name).suffix in IMAGE_SUFFIXES


def stored_media_only(name: str) -> str | None:
    """The resolver for text that is already stored: keep stored image names, drop the rest."""
    return name if is_image_name(name) else None


@dataclass(frozen=True)
class Cleaned:
    """A cleaned fragment, and how deeply the original nested when formatting was dropped.

    Attributes:
        html: The allow-listed HTML.
        too_deep: The original's nesting when tags past the bounds were taken out, else None.
    """

    html: str
    too_deep: Nesting | None = None


def clean(
    fragment: str,
    resolve_media: MediaResolver = stored_media_only,
    *,
    max_nesting: int = MAX_NESTING,
    max_tables: int = MAX_TABLE_NESTING,
) -> Cleaned:
    """Clean an HTML fragment down to the allow-list, saying whether nesting was cut.

    Args:
        fragment: Untrusted HTML, such as an Anki field.
        resolve_media: Maps an ``<img src>`` value to a stored media name, or None to drop
            the image. The default keeps only names already in Recall's media form.
        max_nesting: Elements nested deeper are taken out (their text stays).
        max_tables: Tables nested deeper are taken out.

    Returns:
        HTML that loads nothing from outside the media folder, runs nothing and nests
        within the bounds, and the original's nesting if tags had to be taken out.
    """
    if _MARKUP_OR_REWRITTEN.search(fragment) is None:
        return Cleaned(fragment)  # plain text: the cleaner would return it unchanged
    if in_safe_subset(fragment):
        return Cleaned(fragment)  # simple formatting: so would it
    flattened = flatten_html(fragment, max_nesting, max_tables)
    _local.resolve = resolve_media
    try:
        cleaned = _cleaner().clean(flattened.html)
    finally:
        _local.resolve = stored_media_only
    html_out = _IMAGE_WITHOUT_SOURCE.sub("", cleaned)
    return Cleaned(html_out, flattened.nesting if flattened.dropped else None)


def sanitize(fragment: str, resolve_media: MediaResolver = stored_media_only) -> str:
    """Clean an HTML fragment down to the allow-list (see ``clean``).

    Args:
        fragment: Untrusted HTML, such as an Anki field.
        resolve_media: Maps an ``<img src>`` value to a stored media name, or None to drop
            the image. The default keeps only names already in Recall's media form.

    Returns:
        HTML that loads nothing from outside the media folder and runs nothing.
    """
    return clean(fragment, resolve_media).html


def plain_text_to_html(text: str) -> str:
    """Plain text as HTML that shows it exactly: escaped, with its line breaks."""
    return html.escape(text).replace("\r\n", "\n").replace("\n", "<br>")
