"""The migrations and the models describe the same schema, on both backends."""

from __future__ import annotations

from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import inspect

from herald.db.base import Base
from herald.db.migrate import head_revisions, is_up_to_date
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
