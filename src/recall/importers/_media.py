"""Images a package's fields show, copied out under generated names into a staging folder."""

from __future__ import annotations

import re
from pathlib import Path, PurePosixPath
from urllib.parse import unquote

from recall import cardhtml
from recall.errors import DeckError
from recall.importers import StagedMedia
from recall.importers._package import PackageMedia
from recall.importers._shared import Tally
from recall.importers._svg import svg_problem

_SOUND = re.compile(r"\[sound:[^\]]*\]")
_AUDIO_VIDEO = re.compile(r"\[sound:[^\]]*\]|<(?:audio|video)\b", re.IGNORECASE)
_REMOTE = re.compile(r"^(?:[a-z][a-z0-9+.-]*:|//)", re.IGNORECASE)


def count_audio_video(text: str) -> int:
    """How many sounds, audio or video elements text refers to."""
    return len(_AUDIO_VIDEO.findall(text))


def without_sounds(text: str) -> str:
    """Text without Anki's ``[sound:...]`` tags (the sanitizer drops audio and video tags)."""
    return _SOUND.sub("", text)


def _shown(name: str) -> str:
    return repr(name if len(name) <= 60 else name[:57] + "...")


class MediaStager:
    """Cleans fields, copying each image they show out of the package once.

    Image sources are looked up in the package's media list; the image is read from the
    numbered entry the list names (capped, and checked against the size and SHA-1 the list
    gives when it gives them), and written into the staging folder under
    ``cardhtml.media_name``, so no name from the package ever becomes a path.

    Attributes:
        media: The staged images, each once.
        created: Files this stager wrote (the caller removes them if the import fails).
        left_out: Images that were dropped, with the reason and the note.
    """

    def __init__(
        self,
        files: PackageMedia,
        staging: Path,
        source: str,
        max_image_bytes: int,
    ) -> None:
        """Prepare to stage images.

        Args:
            files: The package's media files, by their names in Anki.
            staging: The folder to write images into.
            source: The package, for error messages.
            max_image_bytes: The most one image may unpack to.
        """
        self.media: list[StagedMedia] = []
        self.created: list[Path] = []
        self.left_out = Tally()
        self._files = files
        self._staging = staging
        self._source = source
        self._max_image_bytes = max_image_bytes
        self._stored: dict[str, str | None] = {}
        self._staged: set[str] = set()
        self._failure: Exception | None = None

    def sanitize(self, fragment: str, note_id: int) -> str:
        """Sanitized HTML whose images point at staged files (or are dropped).

        Raises:
            DeckError: An image entry is damaged or too large, or cannot be staged.
        """

        def resolve(source: str) -> str | None:
            if self._failure is not None:
                return None
            try:
                return self._resolve(source, note_id)
            except Exception as error:  # nh3 would swallow it; raised below
                self._failure = error
                return None

        cleaned = cardhtml.sanitize(fragment, resolve)
        if self._failure is not None:
            raise self._failure
        return cleaned

    def _resolve(self, source: str, note_id: int) -> str | None:
        if source not in self._stored:
            self._stored[source] = self._stage(source, note_id)
        return self._stored[source]

    def _stage(self, source: str, note_id: int) -> str | None:
        where = f"{_shown(source)} in note {note_id}"
        name = source if source in self._files else unquote(source)
        listed = name in self._files
        if not listed and _REMOTE.match(source):
            self.left_out.add(f"{where} (not in the package: Recall shows only packaged images)")
            return None
        if PurePosixPath(name).suffix.lower() not in cardhtml.IMAGE_SUFFIXES:
            self.left_out.add(f"{where} (not a kind of image Recall shows)")
            return None
        if not self._files.present(name):
            self.left_out.add(f"{where} (missing from the package)")
            return None
        data = self._files.read(name, self._max_image_bytes)
        problem = svg_problem(data) if name.lower().endswith(".svg") else None
        if problem is not None:
            self.left_out.add(f"{where} ({problem})")
            return None
        stored = cardhtml.media_name(data, name)
        if not cardhtml.is_media_name(stored):  # pragma: no cover (the suffix was checked)
            return None
        target = self._staging / stored
        if stored not in self._staged:
            self._write(target, data)
            self._staged.add(stored)
            self.media.append(StagedMedia(name=stored, path=target))
        return stored

    def _write(self, target: Path, data: bytes) -> None:
        try:
            with target.open("xb") as file:
                self.created.append(target)
                file.write(data)
        except FileExistsError:
            pass  # an earlier file of the same import staged the same image
        except OSError as error:
            raise DeckError(
                self._source, [f"cannot stage an image in {self._staging} ({error.strerror})"]
            ) from None
