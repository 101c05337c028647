"""How much room the state database takes (a metric)."""

from __future__ import annotations

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
