"""Where Recall keeps its data, and where its bundled decks and resources are."""

from __future__ import annotations

import os
from importlib.resources import files
from importlib.resources.abc import Traversable
from pathlib import Path

import platformdirs

from recall.core.errors import RecallError
from recall.core.i18n import tr

APP_NAME = "Recall"
DATA_DIR_VARIABLE = "RECALL_DATA_DIR"
DATABASE_NAME = "recall.sqlite3"
BACKUP_FOLDER = "backups"
MEDIA_FOLDER = "media"


def data_dir(override: str | os.PathLike[str] | None = None) -> Path:
    """The directory holding the database, in order of precedence.

    Args:
        override: A directory given on the command line (``--data-dir``).

    Returns:
        ``override`` if given, else ``$RECALL_DATA_DIR`` if set, else the platform's
        user data directory (for example ``~/.local/share/Recall`` on Linux).
    """
    if override is not None:
        return Path(override).expanduser()
    from_environment = os.environ.get(DATA_DIR_VARIABLE)
    if from_environment:
        return Path(from_environment).expanduser()
    return Path(platformdirs.user_data_dir(APP_NAME, appauthor=False))


def named_folder(text: str, what: str) -> Path:
    """A folder named in text by the learner, never the current one by accident.

    ``Path("")`` is the current folder, so an empty name (a script's unset variable) would
    quietly pick whatever folder the command runs in.

    Args:
        text: The name as given.
        what: What names it, for the message (``--folder``).

    Raises:
        RecallError: The name is empty or only spaces.
    """
    if not text.strip():
        raise RecallError(
            tr("{option}: {text} names no folder; give its path (. for the current folder)").format(
                option=what, text=repr(text)
            )
        )
    return Path(text)


def database_path(directory: Path) -> Path:
    """The SQLite database file inside a data directory."""
    return directory / DATABASE_NAME


def backup_dir(directory: Path) -> Path:
    """The folder of automatic and manual backups inside a data directory."""
    return directory / BACKUP_FOLDER


def media_dir(directory: Path) -> Path:
    """The folder of imported images inside a data directory."""
    return directory / MEDIA_FOLDER


def bundled_decks() -> list[Traversable]:
    """The deck files shipped with Recall, sorted by name."""
    deck_folder = files("recall.decks")
    return sorted(
        (entry for entry in deck_folder.iterdir() if entry.name.endswith(".json")),
        key=lambda entry: entry.name,
    )


def resource(name: str) -> Traversable:
    """A file from Recall's bundled resources (icons, style sheet)."""
    return files("recall.resources") / name
