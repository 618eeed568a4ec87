"""The tables of the follow-ups' kept summary (``follow_up_summary``), as SQLModel declares
them for a new file (an upgrade creates them from ``follow_up_summary.TABLES``)."""

from __future__ import annotations

from sqlalchemy import BigInteger, Index, text
from sqlmodel import Field, SQLModel


class FollowUpSummary(SQLModel, table=True):
    """A card's follow-ups on misconceptions as worked out from its history, kept for the
    queue, the deck list and the statistics (``follow_up_summary``); derived, never synced."""

    __tablename__ = "follow_up_summary"
    __table_args__ = (
        Index(
            "ix_follow_up_summary_due",
            "due",
            "due_unfuzzed",
            "card_id",
            sqlite_where=text("standing = 0"),
        ),
    )

    card_id: int = Field(primary_key=True, description="Not a foreign key: a trigger clears it.")
    option: str = Field(primary_key=True)
    standing: int = Field(description="0 active, 1 waiting, 2 faded.")
    picks: int
    last_pick: int = Field(sa_type=BigInteger, description="UTC microseconds.")
    answers: int
    picked_lately: bool
    why: str
    state: int
    step: int | None = None
    stability: float | None = None
    difficulty: float | None = None
    due: int | None = Field(default=None, sa_type=BigInteger, description="UTC microseconds.")
    due_unfuzzed: int | None = Field(
        default=None, sa_type=BigInteger, description="The same, scheduled without fuzz."
    )
    last_review: int | None = Field(default=None, sa_type=BigInteger)


class FollowUpStale(SQLModel, table=True):
    """Cards whose ``follow_up_summary`` rows must be worked out again; written by triggers."""

    __tablename__ = "follow_up_stale"

    card_id: int = Field(primary_key=True, description="Not a foreign key: deleted cards too.")
