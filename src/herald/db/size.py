"""How much room the state database takes (metrics)."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import text
from sqlalchemy.orm import Session


def database_size_bytes(session: Session) -> int:
    """The database's size: SQLite's main file (pages in use and free, not the WAL), or
    PostgreSQL's ``pg_database_size`` (tables, indexes and TOAST)."""
    if session.get_bind().dialect.name == "sqlite":
        pages = session.execute(text("PRAGMA page_count")).scalar_one()
        page_size = session.execute(text("PRAGMA page_size")).scalar_one()
        return int(pages) * int(page_size)
    return int(session.execute(text("SELECT pg_database_size(current_database())")).scalar_one())


def wal_size_bytes(session: Session) -> int | None:
    """The size of SQLite's write-ahead log file (``herald.db-wal``; 0 while there is none), or
    None on PostgreSQL, whose server manages its own."""
    if session.get_bind().dialect.name != "sqlite":
        return None
    rows = session.execute(text("PRAGMA database_list")).all()
    return sqlite_wal_bytes(next((row[2] for row in rows if row[1] == "main"), ""))


def sqlite_wal_bytes(database: str | None) -> int:
    """The size of the write-ahead log beside the SQLite database file ``database`` (0 while
    there is none, or for a database in memory)."""
    if not database or database == ":memory:":
        return 0
    try:
        return Path(f"{database}-wal").stat().st_size
    except FileNotFoundError:
        return 0
