"""The tables sync keeps (docs/sync.md): this device, the changes waiting to be sent, the
entities and files seen from other devices, what is held back until it can be applied, and
the media wanted. Declared for a new file with the rest (``tables``); migrations create them
in older ones."""

from __future__ import annotations

from sqlmodel import Field, SQLModel


class SyncDevice(SQLModel, table=True):
    """This device as sync knows it: one row (schema 10)."""

    __tablename__ = "sync_device"

    id: str = Field(primary_key=True, description="Random, made on first use.")
    name: str
    clock: int = Field(description="The hybrid logical clock: the last stamp made or seen.")
    folder: str | None = Field(default=None, description="The sync folder chosen.")
    next_file: int = Field(default=1, description="The number of this device's next file.")
    last_sync: int | None = Field(default=None, description="UTC microseconds of the last round.")
    owes_snapshot: bool = Field(
        default=False, description="A round meant to send everything could not (schema 12)."
    )


class SyncOutbox(SQLModel, table=True):
    """What changed since the last sync round: triggers write it, a round turns it into events."""

    __tablename__ = "sync_outbox"

    seq: int | None = Field(default=None, primary_key=True)
    kind: str = Field(description="'deck', 'card', 'schedule', 'review' or 'unreview'.")
    row_id: int = Field(description="The deck, card or review row changed.")
    detail: str | None = Field(default=None, description="Keys or id of a row deleted.")
    at: int = Field(description="UTC microseconds of the change, by SQLite's clock.")


class SyncQuiet(SQLModel, table=True):
    """A row here while a sync round applies others' events: the triggers record nothing."""

    __tablename__ = "sync_quiet"

    id: int = Field(primary_key=True)


class SyncEntity(SQLModel, table=True):
    """The last value of every field of a deck or card, each with the stamp that set it."""

    __tablename__ = "sync_entity"

    kind: str = Field(primary_key=True, description="'deck' or 'card'.")
    deck_key: str = Field(primary_key=True)
    card_key: str = Field(primary_key=True, description="'' for a deck.")
    fields: str = Field(description="JSON: field -> [stamp, device, value].")


class SyncFile(SQLModel, table=True):
    """How much of each event file in the sync folder has been read (or written)."""

    __tablename__ = "sync_file"

    device: str = Field(primary_key=True)
    name: str = Field(primary_key=True)
    offset: int = Field(description="Bytes read: the end of the last complete line.")
    own: bool = Field(default=False, description="Written by this device.")


class SyncHeldReview(SQLModel, table=True):
    """A review whose card has not arrived yet: kept until it does."""

    __tablename__ = "sync_held_review"

    uid: str = Field(primary_key=True)
    deck_key: str = Field(index=True)
    card_key: str
    event: str = Field(description="The review event as read, JSON.")


class SyncRetracted(SQLModel, table=True):
    """A review taken back (undone, or set aside) on some device: never stored again."""

    __tablename__ = "sync_retracted"

    uid: str = Field(primary_key=True)


class SyncDeviceSeen(SQLModel, table=True):
    """Every device whose files were read, with its name and when it last wrote."""

    __tablename__ = "sync_seen_device"

    id: str = Field(primary_key=True)
    name: str
    last_file: str = ""


class SyncPreset(SQLModel, table=True):
    """A preset's id on every device (the default preset is ``default`` everywhere)."""

    __tablename__ = "sync_preset"

    preset_id: int = Field(primary_key=True)
    uid: str = Field(index=True, unique=True)


class SyncHeldChange(SQLModel, table=True):
    """A change stamped more than a year ahead of this computer's clock (schema 12): kept
    until the clock comes within a year of it, then merged."""

    __tablename__ = "sync_held_change"

    id: str = Field(primary_key=True, description="The event's id.")
    stamp: int = Field(index=True)
    event: str = Field(description="The event as read, JSON.")


class SyncRevisit(SQLModel, table=True):
    """A file that held events of a type this Recall did not know (schema 12): read again
    from ``offset`` once a Recall that knows other types reads it."""

    __tablename__ = "sync_revisit"

    device: str = Field(primary_key=True)
    name: str = Field(primary_key=True)
    offset: int = Field(description="Where the first unknown event's line starts.")
    known: str = Field(description="The event types the reading Recall knew, JSON.")


class SyncPending(SQLModel, table=True):
    """An event stamped for sending while the sync folder could not be written (schema 12):
    written, before anything newer, by the next round that can."""

    __tablename__ = "sync_pending"

    seq: int | None = Field(default=None, primary_key=True)
    event: str = Field(description="The event, JSON.")


class SyncMediaWanted(SQLModel, table=True):
    """A media file a card merged here refers to that has not arrived yet (schema 13)."""

    __tablename__ = "sync_media_wanted"

    name: str = Field(primary_key=True, description="The stored media name (cardhtml).")
    deck_key: str = Field(primary_key=True)
    card_key: str = Field(primary_key=True)
