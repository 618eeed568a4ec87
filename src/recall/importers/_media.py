"""Images and sounds a package's fields use, copied out under generated names into staging."""

from __future__ import annotations

import base64
import binascii
import re
from pathlib import Path, PurePosixPath
from urllib.parse import unquote

from recall.content import card_html, math, sound, speech
from recall.content.anki_note import media_key
from recall.core import wording
from recall.core.errors import DeckError
from recall.core.i18n import tr, trn
from recall.importers import StagedMedia
from recall.importers._package import PackageMedia
from recall.importers._report import Tally
from recall.importers._svg import svg_problem

_SOUND = re.compile(r"\[sound:[^\]]*\]")
_AUDIO_VIDEO = re.compile(r"\[sound:[^\]]*\]|<(?:audio|video)\b", re.IGNORECASE)
_REMOTE = re.compile(r"^(?:[a-z][a-z0-9+.-]*:|//)", re.IGNORECASE)
MAX_SOUND_BYTES = 64 * 1024**2  # one sound
MAX_VIDEO_BYTES = 256 * 1024**2  # one video


def count_audio_video(text: str) -> int:
    """How many sounds, audio or video elements text refers to."""
    return len(_AUDIO_VIDEO.findall(text))


def without_sounds(text: str) -> str:
    """Text without Anki's ``[sound:...]`` tags (the sanitizer drops audio and video tags)."""
    return _SOUND.sub("", text)


def _shown(name: str) -> str:
    return repr(name if len(name) <= 60 else name[:57] + "...")


# An image written into a field: its kind, then base64 (data without it is not read).
_DATA_URL = re.compile(r"data:image/(png|jpe?g|gif|webp|svg\+xml);base64,", re.IGNORECASE)
# Each kind's suffix and how its bytes begin (SVG is checked by ``svg_problem``).
_DATA_KINDS: dict[str, tuple[str, tuple[bytes, ...]]] = {
    "png": (".png", (b"\x89PNG\r\n\x1a\n",)),
    "jpeg": (".jpg", (b"\xff\xd8\xff",)),
    "jpg": (".jpg", (b"\xff\xd8\xff",)),
    "gif": (".gif", (b"GIF87a", b"GIF89a")),
    "webp": (".webp", (b"RIFF",)),
    "svg+xml": (".svg", (b"",)),
}


class MediaStager:
    """Cleans fields, copying each image and sound they use out of the package once.

    Image sources and ``[sound:...]`` names (``<audio>``/``<video>`` elements become such
    tags first) are looked up in the package's media list; the file is read from the
    numbered entry the list names (capped, and checked against the size and SHA-1 the list
    gives when it gives them), and written into the staging folder under
    ``card_html.media_name``, so no name from the package ever becomes a path. A sound the
    package lacks is dropped from the text and noted; it does not fail the import.

    Attributes:
        media: The staged images, sounds and videos, each once.
        created: Files this stager wrote (the caller removes them if the import fails).
        left_out: Images that were dropped, with the reason and the note.
        sounds_left_out: Sounds and videos that were dropped, likewise.
        named: By note, each media name its sides used and the stored name it became.
    """

    def __init__(
        self,
        files: PackageMedia,
        staging: Path,
        source: str,
        max_image_bytes: int,
        max_sound_bytes: int = MAX_SOUND_BYTES,
        max_video_bytes: int = MAX_VIDEO_BYTES,
    ) -> None:
        """Prepare to stage images and sounds.

        Args:
            files: The package's media files, by their names in Anki.
            staging: The folder to write images into.
            source: The package, for error messages.
            max_image_bytes: The most one image may unpack to.
            max_sound_bytes: The most one sound may unpack to.
            max_video_bytes: The most one video may unpack to.
        """
        self.media: list[StagedMedia] = []
        self.created: list[Path] = []
        self.left_out = Tally()
        self.sounds_left_out = Tally()
        self._files = files
        self._staging = staging
        self._source = source
        self._max_image_bytes = max_image_bytes
        self._max_sound_bytes = max_sound_bytes
        self._max_video_bytes = max_video_bytes
        self._stored: dict[str, str | None] = {}
        self._stored_sounds: dict[str, str | None] = {}
        self.named: dict[int, dict[str, str]] = {}
        self._staged: set[str] = set()
        self._failure: Exception | None = None

    def sanitize(self, fragment: str, note_id: int) -> str:
        """Sanitized HTML whose images and sounds point at staged files (or are dropped).

        Raises:
            DeckError: A media entry is damaged or too large, or cannot be staged.
        """
        drawn = math.with_anki_images(fragment, self._files.present)  # Anki's LaTeX images
        return self._sanitize_html(self.keep_sounds(drawn, note_id), note_id)

    def keep_sounds(self, fragment: str, note_id: int) -> str:
        """``fragment`` with its sounds staged and named by their stored names (or dropped).

        Raises:
            DeckError: A sound's entry is damaged or too large, or cannot be staged.
        """
        fragment = speech.elements_as_markers(fragment)  # Anki's <tts> form, else dropped
        lowered = fragment.lower()
        if "[sound:" not in fragment and "<audio" not in lowered and "<video" not in lowered:
            return fragment
        tagged = sound.media_elements_as_tags(fragment)
        return sound.replace_references(tagged, lambda name: self._resolve_sound(name, note_id))

    def report_lines(self) -> list[str]:
        """Report notes: the images, sounds and videos left out, with examples.

        What was kept is counted from ``media`` by the import report.
        """
        left, sounds_left = self.left_out, self.sounds_left_out
        lines = left.line(
            trn("{count} image left out", "{count} images left out", left.count).format(
                count=wording.number(left.count)
            )
        )
        lines += sounds_left.line(
            trn(
                "{count} sound or video left out",
                "{count} sounds or videos left out",
                sounds_left.count,
            ).format(count=wording.number(sounds_left.count))
        )
        return lines

    def _resolve_sound(self, source: str, note_id: int) -> str | None:
        if source not in self._stored_sounds:
            self._stored_sounds[source] = self._stage_sound(source, note_id)
        return self._named(note_id, source, self._stored_sounds[source])

    def _stage_sound(self, source: str, note_id: int) -> str | None:
        where = tr("{file} in note {note}").format(file=_shown(source), note=note_id)
        name = source if source in self._files else unquote(source)
        kind = sound.kind_of(name)
        if name not in self._files and _REMOTE.match(source):
            self.sounds_left_out.add(
                tr("{where} (not in the package: Recall plays only packaged files)").format(
                    where=where
                )
            )
            return None
        if kind is None:
            self.sounds_left_out.add(
                tr("{where} (not a kind of sound or video Recall knows)").format(where=where)
            )
            return None
        if not self._files.present(name):
            self.sounds_left_out.add(_missing(where))
            return None
        limit = self._max_sound_bytes if kind is sound.MediaKind.SOUND else self._max_video_bytes
        return self._keep(name, self._files.read(name, limit))

    def _sanitize_html(self, fragment: str, note_id: int) -> str:

        def resolve(source: str) -> str | None:
            if self._failure is not None:
                return None
            try:
                return self._resolve(source, note_id)
            except Exception as error:  # nh3 would swallow it; raised below
                self._failure = error
                return None

        cleaned = card_html.sanitize(fragment, resolve)
        if self._failure is not None:
            raise self._failure
        return cleaned

    def _resolve(self, source: str, note_id: int) -> str | None:
        if source not in self._stored:
            self._stored[source] = self._stage(source, note_id)
        return self._named(note_id, source, self._stored[source])

    def _named(self, note_id: int, source: str, stored: str | None) -> str | None:
        """``stored``, noted as what ``source`` names in the note (``named``)."""
        if stored is not None:
            self.named.setdefault(note_id, {})[media_key(source)] = stored
        return stored

    def _stage(self, source: str, note_id: int) -> str | None:
        if source[:5].lower() == "data:":
            return self._stage_data(source, note_id)
        where = tr("{file} in note {note}").format(file=_shown(source), note=note_id)
        name = source if source in self._files else unquote(source)
        listed = name in self._files
        if not listed and _REMOTE.match(source):
            self.left_out.add(
                tr("{where} (not in the package: Recall shows only packaged images)").format(
                    where=where
                )
            )
            return None
        if PurePosixPath(name).suffix.lower() not in card_html.IMAGE_SUFFIXES:
            self.left_out.add(_not_an_image(where))
            return None
        if not self._files.present(name):
            self.left_out.add(_missing(where))
            return None
        data = self._files.read(name, self._max_image_bytes)
        problem = svg_problem(data) if name.lower().endswith(".svg") else None
        if problem is not None:
            self.left_out.add(_because(where, problem))
            return None
        return self._keep(name, data)

    def _stage_data(self, source: str, note_id: int) -> str | None:
        """An image written into the field itself (a ``data:`` URL): decoded within the
        image bound, its bytes checked to be the kind it says, staged as any image."""
        where = tr("an image written into note {note}").format(note=note_id)
        found = _DATA_URL.match(source[:64])
        if found is None:
            self.left_out.add(_not_an_image(where))
            return None
        payload = source[found.end() :]
        if len(payload) > self._max_image_bytes * 4 // 3 + 4:
            self.left_out.add(
                tr("{where} (larger than {size} MiB)").format(
                    where=where, size=self._max_image_bytes // 2**20
                )
            )
            return None
        try:
            data = base64.b64decode("".join(payload.split()), validate=True)
        except (binascii.Error, ValueError):
            self.left_out.add(tr("{where} (its base64 is damaged)").format(where=where))
            return None
        kind = found.group(1).lower()
        suffix, magic = _DATA_KINDS[kind]
        problem = svg_problem(data) if suffix == ".svg" else None
        if problem is None and not any(data.startswith(m) for m in magic):
            problem = tr("its bytes are not a {kind} image").format(kind=suffix[1:].upper())
        if problem is None and suffix == ".webp" and data[8:12] != b"WEBP":
            problem = tr("its bytes are not a {kind} image").format(kind="WEBP")
        if problem is not None:
            self.left_out.add(_because(where, problem))
            return None
        return self._keep(f"image{suffix}", data)

    def _keep(self, name: str, data: bytes) -> str | None:
        """Stage a file's bytes under its generated name, once; returns that name."""
        stored = card_html.media_name(data, name)
        if not card_html.is_media_name(stored):  # pragma: no cover (the suffix was checked)
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
                self._source,
                [
                    tr("cannot stage a media file in {folder} ({reason})").format(
                        folder=self._staging, reason=error.strerror
                    )
                ],
            ) from None


def _missing(where: str) -> str:
    return tr("{where} (missing from the package)").format(where=where)


def _not_an_image(where: str) -> str:
    return tr("{where} (not a kind of image Recall shows)").format(where=where)


def _because(where: str, problem: str) -> str:
    return tr("{where} ({problem})").format(where=where, problem=problem)
