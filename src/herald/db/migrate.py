"""Programmatic Alembic: the same migrations serve SQLite and PostgreSQL."""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Engine

MIGRATIONS_DIR = Path(__file__).parent / "migrations"


def alembic_config(url: str) -> Config:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    config.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    return config


def upgrade(url: str, revision: str = "heads") -> None:
    command.upgrade(alembic_config(url), revision)


def current_revisions(engine: Engine) -> set[str]:
    with engine.connect() as connection:
        return set(MigrationContext.configure(connection).get_current_heads())


def head_revisions(url: str) -> set[str]:
    return set(ScriptDirectory.from_config(alembic_config(url)).get_heads())


def is_up_to_date(engine: Engine, url: str) -> bool:
    return current_revisions(engine) == head_revisions(url)
