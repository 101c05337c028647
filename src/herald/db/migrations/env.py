"""Alembic environment: runs migrations on the URL given by herald.db.migrate.

On PostgreSQL every pending migration runs in one transaction that first takes an advisory
lock: an upgrade started while another runs (two machines deploying at once) waits for it, then
finds the database at the latest schema and applies nothing, instead of failing half-way on the
tables and revision the other one created.
"""

from __future__ import annotations

from alembic import context
from sqlalchemy import pool, text

from herald.db import models  # noqa: F401  (registers every table)
from herald.db.base import Base
from herald.db.engine import make_engine

config = context.config
target_metadata = Base.metadata
# The PostgreSQL advisory lock that serialises upgrades ("herald" and 3).
_UPGRADE_LOCK = 0x6865_7261_6C64_0003


def run_migrations_offline() -> None:
    context.configure(
        url=config.get_main_option("sqlalchemy.url"),
        target_metadata=target_metadata,
        literal_binds=True,
        render_as_batch=True,
    )
    with context.begin_transaction():
        context.run_migrations()


def run_migrations_online() -> None:
    url = config.get_main_option("sqlalchemy.url")
    assert url is not None
    engine = make_engine(url)
    if engine.dialect.name != "sqlite":
        engine.dispose()
        from sqlalchemy import create_engine

        engine = create_engine(url, poolclass=pool.NullPool)
    with engine.connect() as connection:
        context.configure(
            connection=connection,
            target_metadata=target_metadata,
            render_as_batch=connection.dialect.name == "sqlite",
            compare_type=True,
        )
        with context.begin_transaction():
            if connection.dialect.name == "postgresql":
                connection.execute(
                    text("SELECT pg_advisory_xact_lock(:key)"), {"key": _UPGRADE_LOCK}
                )
            context.run_migrations()
    engine.dispose()


if context.is_offline_mode():
    run_migrations_offline()
else:
    run_migrations_online()
