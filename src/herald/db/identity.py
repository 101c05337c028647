"""Which database this is: the random id in ``database_identity`` (migration 0030).

Indexes kept outside the database (each machine's ``HERALD_HOME/index``) record the identity of
the database they were built from; one that finds another identity was built from other data and
is emptied and rebuilt (:mod:`herald.search.projection`). ``herald db restore`` and ``herald db
copy`` give the database they produce a new identity with :func:`renew_identity`: a restored
backup or a copy goes its own way from its source, even though it starts with the same rows and
change numbers.

Reading it never fails on a database whose migrations have not run (no table, or no row): the
identity is then unknown (``None``) and callers keep what they have.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from datetime import UTC, datetime
from typing import TypeVar

from sqlalchemy import Connection, delete, insert, inspect, select, update
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.orm import Session

from herald.db.engine import WRITE_OPTION, make_engine
from herald.db.models.identity import DatabaseIdentity

TABLE = DatabaseIdentity.__tablename__
T = TypeVar("T")


def read_identity(bind: Session | Connection) -> str | None:
    """The database's identity; ``None`` when it has none yet (migrations pending)."""
    connection = bind.connection() if isinstance(bind, Session) else bind
    if not inspect(connection).has_table(TABLE):
        return None
    return connection.execute(
        select(DatabaseIdentity.identity).where(DatabaseIdentity.id == 1)
    ).scalar_one_or_none()


def renew_identity(connection: Connection) -> str:
    """Give the database a new identity (inside the caller's write transaction); returns it."""
    identity = uuid.uuid4().hex
    connection.execute(delete(DatabaseIdentity))
    connection.execute(
        insert(DatabaseIdentity).values(id=1, identity=identity, created_at=datetime.now(UTC))
    )
    return identity


def _write_at(url: str, work: Callable[[Connection], T]) -> T:
    """``work`` in a write transaction of its own on the database of ``url``."""
    engine = make_engine(url, pool_size=1)
    try:
        connection = engine.connect().execution_options(**{WRITE_OPTION: True})
        with connection, connection.begin():
            return work(connection)
    finally:
        engine.dispose()


def renew_identity_at(url: str) -> str:
    """:func:`renew_identity` in a transaction of its own on the database of ``url`` (migrated)."""
    return _write_at(url, renew_identity)


def record_backup_at(url: str, when: datetime) -> str | None:
    """Record that a backup of the database of ``url`` ended at ``when``: None once recorded,
    else why it could not be (the backup itself stands either way)."""

    def record(connection: Connection) -> str | None:
        found = inspect(connection)
        if not found.has_table(TABLE) or "backed_up_at" not in {
            column["name"] for column in found.get_columns(TABLE)
        }:
            return "its migrations are pending (`herald db upgrade`)"
        connection.execute(
            update(DatabaseIdentity).where(DatabaseIdentity.id == 1).values(backed_up_at=when)
        )
        return None

    try:
        return _write_at(url, record)
    except SQLAlchemyError as exc:  # a read-only database or user, a lost connection
        return f"it refused the write ({str(getattr(exc, 'orig', None) or exc).strip()})"


def read_backed_up_at(session: Session) -> datetime | None:
    """When ``herald db backup`` last backed the database up (None: never recorded)."""
    return session.scalar(select(DatabaseIdentity.backed_up_at).where(DatabaseIdentity.id == 1))
