"""Programmatic Alembic: the same migrations serve SQLite and PostgreSQL.

A database migrated by a newer version of Herald is at a revision these migrations do not have:
it is refused by name (:class:`SchemaAhead`), never taken for one whose migrations are pending.
"""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Engine

from herald.db.engine import make_engine

MIGRATIONS_DIR = Path(__file__).parent / "migrations"


class SchemaAhead(Exception):
    """The database is at a schema revision this version of Herald does not know."""

    def __init__(self, unknown: set[str]) -> None:
        self.unknown = unknown
        super().__init__(
            f"the database is at schema revision {', '.join(sorted(unknown))}, which this "
            "version of Herald does not know: a newer version migrated it. Run that version "
            "(or a newer one), or restore the backup taken before the upgrade"
        )


def alembic_config(url: str) -> Config:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    config.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    return config


def upgrade(url: str, revision: str = "heads") -> None:
    """Apply the pending migrations; raises :class:`SchemaAhead` (changing nothing) for a
    database a newer version migrated."""
    engine = make_engine(url, pool_size=1)
    try:
        refuse_ahead(engine, url)
    finally:
        engine.dispose()
    command.upgrade(alembic_config(url), revision)


def current_revisions(engine: Engine) -> set[str]:
    with engine.connect() as connection:
        return set(MigrationContext.configure(connection).get_current_heads())


def head_revisions(url: str) -> set[str]:
    return set(ScriptDirectory.from_config(alembic_config(url)).get_heads())


def unknown_revisions(engine: Engine, url: str) -> set[str]:
    """The database's revisions that these migrations do not have (a newer version's)."""
    known = {
        script.revision
        for script in ScriptDirectory.from_config(alembic_config(url)).walk_revisions()
    }
    return current_revisions(engine) - known


def refuse_ahead(engine: Engine, url: str) -> None:
    unknown = unknown_revisions(engine, url)
    if unknown:
        raise SchemaAhead(unknown)


def is_up_to_date(engine: Engine, url: str) -> bool:
    return current_revisions(engine) == head_revisions(url)
