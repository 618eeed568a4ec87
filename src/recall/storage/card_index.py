"""What search reads beside a card's content: its texts in one column and its tags in a table.

Both are derived from ``card.content`` by triggers, so every way a card is written (import,
the editor, a bulk tag change) keeps them true without remembering to.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sqlalchemy import Connection


def _texts(content: str) -> str:
    """SQL for a card's searchable texts, one per line, from its JSON ``content``."""
    fields = ("question", "front", "back", "explanation", "source")
    parts = [f"coalesce(json_extract({content}, '$.{name}'), '')" for name in fields]
    choices = (
        "coalesce((SELECT group_concat(coalesce(json_extract(value, '$.text'), '') || char(10) "
        f"|| coalesce(json_extract(value, '$.why'), ''), char(10)) FROM json_each({content}, "
        "'$.choices')), '')"
    )
    return " || char(10) || ".join([*parts, choices])


def _tags(card_id: str, content: str) -> str:
    return (
        f"INSERT OR IGNORE INTO card_tag (card_id, tag) SELECT {card_id}, trim(value) "
        f"FROM json_each({content}, '$.tags') WHERE trim(value) <> ''"
    )


TRIGGERS = (
    f"""
CREATE TRIGGER card_index_insert AFTER INSERT ON card
BEGIN
    UPDATE card SET search_text = {_texts("NEW.content")} WHERE id = NEW.id;
    {_tags("NEW.id", "NEW.content")};
END
""",
    f"""
CREATE TRIGGER card_index_update AFTER UPDATE OF content ON card
BEGIN
    UPDATE card SET search_text = {_texts("NEW.content")} WHERE id = NEW.id;
    DELETE FROM card_tag WHERE card_id = NEW.id;
    {_tags("NEW.id", "NEW.content")};
END
""",
    """
CREATE TRIGGER card_index_delete BEFORE DELETE ON card
BEGIN
    DELETE FROM card_tag WHERE card_id = OLD.id;
END
""",
)


SEARCH_TEXT_ADDED = (
    f"UPDATE card SET search_text = {_texts('content')} WHERE id > ? AND search_text = ''"
)
"""``card_index_insert``'s search text for every card past an id at once, but those
written with theirs (a derived text is never '': it holds a line per field)."""
TAGS_ADDED = (
    _tags("card.id", "card.content")
    .replace("FROM json_each", "FROM card, json_each")
    .replace("WHERE trim", "WHERE card.id > ? AND trim")
)
"""``card_index_insert``'s tags for every card past an id at once."""


def create_triggers(connection: Connection) -> None:
    """Create the triggers that keep ``search_text`` and ``card_tag`` from each card's content."""
    for trigger in TRIGGERS:
        connection.exec_driver_sql(trigger)


def fill(connection: Connection) -> None:
    """Derive ``search_text`` and ``card_tag`` for every card there is (an upgrade's step)."""
    connection.exec_driver_sql(f"UPDATE card SET search_text = {_texts('content')}")
    connection.exec_driver_sql("DELETE FROM card_tag")
    connection.exec_driver_sql(
        _tags("card.id", "card.content").replace("FROM json_each", "FROM card, json_each")
    )
