"""The migrations and the models describe the same schema, on both backends."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest
import typer
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import create_engine, insert, inspect, select, text

from herald.cli.serve import prepare_runtime
from herald.db.base import Base
from herald.db.migrate import alembic_config, head_revisions, is_up_to_date
from herald.db.models.entity import Entity, EntityAlias
from herald.runtime import Runtime


def test_upgrade_head_equals_the_models(runtime: Runtime) -> None:
    with runtime.engine.connect() as connection:
        context = MigrationContext.configure(connection, opts={"compare_type": True})
        differences = compare_metadata(context, Base.metadata)
    assert differences == []


def test_database_is_at_every_head(runtime: Runtime) -> None:
    assert head_revisions(runtime.settings.resolved_database_url)
    assert is_up_to_date(runtime.engine, runtime.settings.resolved_database_url)


def test_sqlite_runs_in_wal_with_foreign_keys(runtime: Runtime) -> None:
    if runtime.backend != "sqlite":
        assert "content_items" in inspect(runtime.engine).get_table_names()
        return
    with runtime.engine.connect() as connection:
        assert connection.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
        assert connection.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1


def test_stored_name_keys_of_spaced_initials_are_rebuilt(database_url: str) -> None:
    """An entity stored before spaced initials were joined ("a j smith") gets the keys of this
    release ("aj smith"); other entities' keys are left as they are."""
    config = alembic_config(database_url)
    command.downgrade(config, "0009_job_claim_indexes")
    engine = create_engine(database_url)
    now = datetime(2026, 11, 1, tzinfo=UTC)
    entities = [
        ("ent_ajsmith", "A. J. Smith", ["Anthony J. Smith"], ["a j smith", "anthony j smith"]),
        ("ent_horton", "Horton", ["D. R. Horton"], ["horton", "d r horton"]),
        ("ent_bush", "George W. Bush", [], ["george w bush"]),
    ]
    with engine.begin() as connection:
        for entity_id, name, aliases, keys in entities:
            connection.execute(
                insert(Entity).values(
                    id=entity_id,
                    display_name=name,
                    entity_kind="person",
                    description="",
                    aliases=aliases,
                    tags=[],
                    origin="import",
                    created_at=now,
                    updated_at=now,
                )
            )
            connection.execute(
                insert(EntityAlias), [{"alias_norm": k, "entity_id": entity_id} for k in keys]
            )
    command.upgrade(config, "heads")
    with engine.connect() as connection:
        stored = connection.execute(select(EntityAlias.entity_id, EntityAlias.alias_norm)).all()
    engine.dispose()
    keys: dict[str, set[str]] = {}
    for entity_id, key in stored:
        keys.setdefault(entity_id, set()).add(key)
    assert keys == {
        "ent_ajsmith": {"aj smith", "anthony j smith"},
        "ent_horton": {"horton", "dr horton"},
        "ent_bush": {"george w bush"},
    }


def test_page_fetch_failures_is_added_to_stored_items(database_url: str) -> None:
    """0022 gives stored rows a count of 0 (their pages are not fetched again, as before), keeps
    the table's triggers (no copied table on SQLite), and its downgrade drops the column alone."""
    from tests.db.test_language_provided_migration import _insert, _item

    config = alembic_config(database_url)
    command.downgrade(config, "0021_language_provided")
    engine = create_engine(database_url)
    try:
        with engine.begin() as connection:
            _insert(connection, _item("cnt_before"))
        command.upgrade(config, "heads")
        with engine.begin() as connection:
            _insert(connection, _item("cnt_after"))  # a raw copy that does not name it
            rows = connection.execute(text("SELECT id, page_fetch_failures FROM content_items"))
            assert {row.id: row.page_fetch_failures for row in rows} == {
                "cnt_before": 0,
                "cnt_after": 0,
            }
            connection.execute(text("DELETE FROM content_items WHERE id = 'cnt_before'"))
            removed = connection.execute(text("SELECT content_id FROM content_removals"))
            assert "cnt_before" in set(removed.scalars())  # the removal trigger still fires
        command.downgrade(config, "0021_language_provided")
        columns = {c["name"] for c in inspect(engine).get_columns("content_items")}
        assert "page_fetch_failures" not in columns
        assert {"language_provided", "word_count"} <= columns
    finally:
        command.upgrade(config, "heads")
        engine.dispose()


def test_source_fetch_url_is_added_to_stored_sources(database_url: str) -> None:
    """0025 adds ``ingest_sources.fetch_url`` as null to existing sources (fetched from their
    configured URL, as before), and its downgrade drops the column alone."""
    config = alembic_config(database_url)
    command.downgrade(config, "0024_entity_removals")
    engine = create_engine(database_url)
    now = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
    row = {
        "id": "src_before",
        "url": "http://feeds.test/a.xml",
        "canonical_url": "http://feeds.test/a.xml",
        "media_type": "news",
        "format": "rss",
        "interval_seconds": 900,
        "enabled": True,
        "next_poll_at": now,
        "consecutive_failures": 2,
        "items_seen": 7,
        "created_at": now,
        "updated_at": now,
    }
    columns = ", ".join(row)
    values = ", ".join(f":{name}" for name in row)
    try:
        with engine.begin() as connection:
            connection.execute(
                text(f"INSERT INTO ingest_sources ({columns}) VALUES ({values})"), row
            )
        command.upgrade(config, "heads")
        with engine.begin() as connection:
            stored = connection.execute(
                text("SELECT url, fetch_url, consecutive_failures FROM ingest_sources")
            ).one()
            assert tuple(stored) == ("http://feeds.test/a.xml", None, 2)
        command.downgrade(config, "0024_entity_removals")
        names = {c["name"] for c in inspect(engine).get_columns("ingest_sources")}
        assert "fetch_url" not in names
        assert {"url", "retention_days", "consecutive_failures"} <= names
    finally:
        command.upgrade(config, "heads")
        engine.dispose()


def test_a_database_a_newer_version_migrated_is_refused_by_name(
    database_url: str, home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """After going back to an older Herald without restoring the backup, the database is at a
    revision it does not have: upgrading, starting, copying say so and change nothing, and
    `herald db current` does not call it pending migrations."""
    from tests.db.filled import herald, herald_copy

    engine = create_engine(database_url)
    with engine.begin() as connection:
        (current,) = connection.execute(text("SELECT version_num FROM alembic_version")).scalars()
        connection.execute(text("UPDATE alembic_version SET version_num = '0999_newer_release'"))
    try:
        upgraded = herald(["db", "upgrade"], home, database_url)
        assert upgraded.exit_code == 1
        assert "not upgraded" in upgraded.output
        assert "0999_newer_release" in upgraded.output
        assert "does not know" in upgraded.output
        assert upgraded.exception is None or isinstance(upgraded.exception, SystemExit)

        shown = herald(["db", "current"], home, database_url)
        assert shown.exit_code == 0, shown.output
        assert "does not know" in shown.output
        assert "pending" not in shown.output
        as_json = herald(["db", "current", "--json"], home, database_url)
        assert json.loads(as_json.stdout)["ahead"] is True

        copied = herald_copy(database_url, f"sqlite:///{tmp_path / 'copy.db'}", tmp_path)
        assert copied.exit_code == 1
        assert "does not know" in copied.output
        assert "run `herald db upgrade`" not in copied.output

        monkeypatch.setenv("HERALD_HOME", str(home))
        monkeypatch.setenv("HERALD_DATABASE_URL", database_url)
        monkeypatch.setenv("HERALD_EMBEDDING_MODEL", "herald-hashing")
        with pytest.raises(typer.Exit):  # what `herald serve` and `herald worker` start with
            prepare_runtime()

        with engine.connect() as connection:
            found = connection.execute(text("SELECT version_num FROM alembic_version")).scalars()
            assert list(found) == ["0999_newer_release"]
    finally:
        with engine.begin() as connection:
            connection.execute(text("UPDATE alembic_version SET version_num = :v"), {"v": current})
        engine.dispose()
