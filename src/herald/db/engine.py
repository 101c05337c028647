"""Engines for the two supported backends.

SQLite: WAL (its file cut back to 64 MiB after a burst, and started over regularly by
:func:`restart_wal`), foreign keys on, a generous busy timeout, and explicit transactions:
read units of work begin DEFERRED, write units of work begin IMMEDIATE, so two writers queue on
the lock instead of failing on a lock upgrade.
PostgreSQL: psycopg 3 with a bounded pool, each session in UTC whatever the server's time zone
(an instant is read in the session's zone, and in another one the ends of the range Herald
stores, year 1 and the end of year 9999 UTC, fall in years no Python datetime holds).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.engine import make_url

from herald.db.size import sqlite_wal_bytes

SQLITE_BUSY_TIMEOUT_MS = 30_000
# The write-ahead log is reused from its start after each checkpoint, never shrunk: without a
# limit, one large transaction (a rebuild, a big import, a VACUUM) leaves the file at that size
# for good. With it, the file is cut back to this size once the log starts over.
SQLITE_WAL_SIZE_LIMIT_BYTES = 64 * 1024 * 1024
WRITE_OPTION = "herald_write"
# How long a checkpoint that starts the log over waits for readers of older snapshots; writers
# wait meanwhile, so it is short: a longer reader (a rebuild) makes it wait for its next turn.
SQLITE_WAL_RESTART_WAIT_MS = 1000
# Below this size the log is left alone: it costs nothing worth making writers wait.
SQLITE_WAL_RESTART_BYTES = 16 * 1024 * 1024


def make_engine(
    url: str,
    *,
    pool_size: int = 10,
    echo: bool = False,
    connect_args: dict[str, Any] | None = None,
) -> Engine:
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite":
        return _sqlite_engine(url, echo=echo)
    engine = create_engine(
        url,
        echo=echo,
        connect_args=connect_args or {},
        pool_size=pool_size,
        max_overflow=pool_size,
        pool_pre_ping=True,
        pool_recycle=1800,
    )
    event.listen(engine, "connect", _session_in_utc)
    return engine


def _session_in_utc(dbapi_connection: Any, _record: Any) -> None:
    autocommit = dbapi_connection.autocommit
    dbapi_connection.autocommit = True
    try:
        dbapi_connection.execute("SET TIME ZONE 'UTC'")
    finally:
        dbapi_connection.autocommit = autocommit


def _sqlite_engine(url: str, *, echo: bool) -> Engine:
    database = make_url(url).database
    if database and database != ":memory:":
        Path(database).parent.mkdir(parents=True, exist_ok=True)
    engine = create_engine(
        url,
        echo=echo,
        connect_args={"check_same_thread": False, "timeout": SQLITE_BUSY_TIMEOUT_MS / 1000},
        pool_size=20,
        max_overflow=10,
    )

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        # Take transaction control away from the sqlite3 module; we emit BEGIN ourselves.
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute(f"PRAGMA busy_timeout={SQLITE_BUSY_TIMEOUT_MS}")
        cursor.execute("PRAGMA cache_size=-65536")
        cursor.execute("PRAGMA temp_store=MEMORY")
        cursor.execute(f"PRAGMA journal_size_limit={SQLITE_WAL_SIZE_LIMIT_BYTES}")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(connection: Any) -> None:
        write = connection.get_execution_options().get(WRITE_OPTION, False)
        connection.exec_driver_sql("BEGIN IMMEDIATE" if write else "BEGIN")

    return engine


def is_sqlite(engine: Engine) -> bool:
    return engine.dialect.name == "sqlite"


@dataclass(frozen=True, slots=True)
class WalRestart:
    restarted: bool  # False: a reader of an older snapshot outlasted the wait (or not needed)
    frames: int  # pages in the log when it ran (0: the log was under the size to restart at)


def restart_wal(engine: Engine, *, min_bytes: int = SQLITE_WAL_RESTART_BYTES) -> WalRestart | None:
    """Copy SQLite's write-ahead log into the database and have the next write start it over,
    once its file is over ``min_bytes`` (None on PostgreSQL).

    The automatic checkpoints (every 1,000 pages written) copy what they can but never start the
    log over while a reader is open, and with readers whose transactions overlap one is always
    open: the file then grows with every write, for good. This checkpoint waits (at most
    :data:`SQLITE_WAL_RESTART_WAIT_MS`, writers waiting meanwhile) until the readers have moved
    to the newest snapshot; a smaller log is left alone, so writers never wait for it.
    """
    if not is_sqlite(engine):
        return None
    if sqlite_wal_bytes(engine.url.database) <= min_bytes:
        return WalRestart(restarted=False, frames=0)
    connection = engine.raw_connection()
    try:
        cursor = connection.cursor()
        try:
            cursor.execute(f"PRAGMA busy_timeout={SQLITE_WAL_RESTART_WAIT_MS}")
            busy, frames, _copied = cursor.execute("PRAGMA wal_checkpoint(RESTART)").fetchone()
        finally:
            cursor.execute(f"PRAGMA busy_timeout={SQLITE_BUSY_TIMEOUT_MS}")
            cursor.close()
    finally:
        connection.close()
    return WalRestart(restarted=busy == 0, frames=int(frames))
