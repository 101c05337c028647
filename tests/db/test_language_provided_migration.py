"""Migration 0021 on SQLite and PostgreSQL: rows stored before it get ``language_provided``
(false where no language is stored, or where the content hash shows the item's only ingestion
gave none; true otherwise, since a given language cannot be told from a detected one), the table
keeps its triggers, and the downgrade drops the column alone."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from alembic import command
from sqlalchemy import create_engine, inspect, text

from herald.db.migrate import alembic_config
from herald.ingest.model import IncomingItem, SourceRef
from herald.ingest.normalize import item_from_mapping
from herald.ingest.service import store_items
from herald.runtime import Runtime
from tests.db.test_upgrade_from_0_1_0 import ROWS, T0, insert_row

BEFORE = "0020_content_tombstones"
(ITEM,) = [row for table, row in ROWS if table == "content_items"]


def _item(item_id: str, **values: Any) -> dict[str, Any]:
    return ITEM | {"id": item_id, "canonical_key": f"url:https://example.com/{item_id}"} | values


def _insert(connection: Any, row: dict[str, Any]) -> None:
    insert_row(connection, "content_items", row)


def _flags(connection: Any) -> dict[str, bool]:
    rows = connection.execute(text("SELECT id, language_provided FROM content_items"))
    return {row.id: bool(row.language_provided) for row in rows}


def test_rows_stored_before_get_the_flag_and_keep_their_triggers(database_url: str) -> None:
    config = alembic_config(database_url)
    command.downgrade(config, BEFORE)
    engine = create_engine(database_url)
    try:
        with engine.begin() as connection:
            _insert(connection, _item("cnt_enriched", language="en", enriched_at=T0))
            _insert(connection, _item("cnt_given", language="fr", enriched_at=None))
            _insert(connection, _item("cnt_unknown", language=None, enriched_at=T0))
        command.upgrade(config, "heads")
        with engine.begin() as connection:
            assert _flags(connection) == {
                "cnt_enriched": True,  # given or detected: kept as today, as if given
                "cnt_given": True,  # never enriched: its source gave it
                "cnt_unknown": False,  # nothing to keep: detection runs
            }
            # A row written without the flag (a raw copy) reads as not given.
            _insert(connection, _item("cnt_later", language=None))
            assert _flags(connection)["cnt_later"] is False
            # The removal trigger still records a row deleted outright (no copied table).
            connection.execute(text("DELETE FROM content_items WHERE id = 'cnt_unknown'"))
            removed = connection.execute(text("SELECT content_id FROM content_removals"))
            assert "cnt_unknown" in set(removed.scalars())

        command.downgrade(config, BEFORE)
        columns = {c["name"] for c in inspect(engine).get_columns("content_items")}
        assert "language_provided" not in columns
        assert {"language", "summary_provided"} <= columns
        with engine.begin() as connection:
            connection.execute(text("DELETE FROM content_items WHERE id = 'cnt_later'"))
            removed = connection.execute(text("SELECT content_id FROM content_removals"))
            assert "cnt_later" in set(removed.scalars())
    finally:
        engine.dispose()
        command.upgrade(config, "heads")


BODY = "The council approved the budget on Tuesday after a long debate about school funding."


def _news(name: str, **fields: Any) -> IncomingItem:
    entry = {
        "url": f"https://example.com/{name}",
        "media_type": "news",
        "title": f"Council news {name}",
        "published_date": "2026-11-20T09:00:00.250000Z",
        "source": {"name": "Example News", "domain": "example.com"},
        "authors": ["Ann Example", "Bo Writer"],
        "body": BODY,
    }
    return item_from_mapping(entry | fields)


def test_rows_one_ingestion_stored_without_a_language_are_marked_detected(
    runtime: Runtime,
) -> None:
    """As 0.x stored them: ingested, then enrichment wrote the detected language into the same
    column. Rows whose content hash shows their source gave no language become false."""
    estimated = IncomingItem(
        media_type="wire",
        title="Wire story without a date",
        published_date=datetime(2026, 11, 21, 8, tzinfo=UTC),
        source=SourceRef("Example Wire", "wire.example.org"),
        url="https://wire.example.org/undated",
        body=BODY,
        published_is_estimate=True,
    )
    with runtime.sessions.write() as session:
        store_items(
            session,
            [
                _news("detected"),
                _news("summarised", summary="A given summary."),
                _news("given", language="fr"),
                _news("updated"),
                estimated,
            ],
            clock=runtime.clock,
        )
    with runtime.sessions.write() as session:  # version 2: the first version may have given one
        store_items(session, [_news("updated", body=BODY + " Updated.")], clock=runtime.clock)
    url = runtime.settings.resolved_database_url
    config = alembic_config(url)
    runtime.engine.dispose()
    command.downgrade(config, BEFORE)
    engine = create_engine(url)
    try:
        with engine.begin() as connection:  # what enrichment wrote before this revision
            connection.execute(
                text("UPDATE content_items SET language = 'en' WHERE language IS NULL")
            )
        command.upgrade(config, "heads")
        with engine.connect() as connection:
            rows = connection.execute(
                text("SELECT url, language, language_provided FROM content_items")
            )
            found = {
                row.url.rsplit("/", 1)[1]: (row.language, bool(row.language_provided))
                for row in rows
            }
    finally:
        engine.dispose()
        command.upgrade(config, "heads")
    assert found == {
        "detected": ("en", False),
        "summarised": ("en", False),
        "given": ("fr", True),
        "updated": ("en", True),  # its first version may have given the language it keeps
        "undated": ("en", False),
    }
