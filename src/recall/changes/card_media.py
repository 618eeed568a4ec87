"""Images and sounds added to a card by hand, kept in the media folder under their hash.

A file is stored as ``card_html.media_name`` names it (its SHA-256 and its suffix), so the
same picture added twice is one file, and no name the learner's file had becomes a path.
"""

from __future__ import annotations

from pathlib import Path

from recall.content.card_html import SOUND_SUFFIXES, media_name
from recall.core.errors import RecallError
from recall.core.i18n import tr
from recall.host.files import OutputError, output_file

# As an import allows for one image or sound.
MAX_MEDIA_BYTES = 64 * 1024**2
# SVG is left out: a file from the disk is not checked for references as imported SVG is.
IMAGE_SUFFIXES = frozenset({".png", ".jpg", ".jpeg", ".gif", ".webp", ".bmp"})


class MediaError(RecallError):
    """A file cannot be added to a card; the message says which and why."""


def store_media(media_dir: Path, data: bytes, original_name: str) -> str:
    """Keep an image or sound in the media folder, once however often it is added.

    Args:
        media_dir: Recall's media folder (made when missing).
        data: The file's bytes.
        original_name: The file's name, for its suffix and for messages.

    Returns:
        The stored name, for ``![](name)`` or ``[sound:name]``.

    Raises:
        MediaError: The file is not an image or sound Recall shows, is too large, or
            cannot be written.
    """
    name = media_name(data, original_name)
    suffix = Path(name).suffix
    if suffix not in IMAGE_SUFFIXES | SOUND_SUFFIXES:
        kinds = ", ".join(sorted(IMAGE_SUFFIXES | SOUND_SUFFIXES))
        raise MediaError(
            tr("{file}: not an image or sound Recall can show ({kinds})").format(
                file=original_name, kinds=kinds
            )
        )
    if len(data) > MAX_MEDIA_BYTES:
        raise MediaError(
            tr("{file}: larger than {size} MiB, the most a card's image or sound may be").format(
                file=original_name, size=MAX_MEDIA_BYTES // 1024**2
            )
        )
    target = media_dir / name
    if target.is_file():
        return name
    try:
        media_dir.mkdir(parents=True, exist_ok=True)
        with output_file(target) as stream:
            stream.write(data)
    except OSError as error:
        raise MediaError(
            tr("cannot copy {file} into {folder}: {reason}").format(
                file=original_name, folder=media_dir, reason=error.strerror
            )
        ) from None
    except OutputError as error:
        raise MediaError(
            tr("cannot copy {file} into the media folder: {error}").format(
                file=original_name, error=error
            )
        ) from None
    return name


def store_media_file(media_dir: Path, path: Path) -> str:
    """Keep the image or sound at ``path`` in the media folder (see ``store_media``).

    Raises:
        MediaError: As ``store_media``, or the file cannot be read.
    """
    try:
        with path.open("rb") as stream:
            data = stream.read(MAX_MEDIA_BYTES + 1)  # one byte over says it is too large
    except OSError as error:
        raise MediaError(
            tr("cannot read {path}: {reason}").format(path=path, reason=error.strerror)
        ) from None
    return store_media(media_dir, data, path.name)


def is_sound_name(name: str) -> bool:
    """Whether a stored name is a sound's (it goes in as ``[sound:name]``)."""
    return Path(name).suffix in SOUND_SUFFIXES
