"""Statements whose spelling differs between the two databases Herald runs on."""

from __future__ import annotations

from typing import Any

from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.orm import Session


def insert_for(session: Session, table: Any) -> Any:
    """An INSERT into ``table`` that takes ``ON CONFLICT`` clauses, in the dialect of the
    session's database (PostgreSQL or SQLite)."""
    dialect = session.get_bind().dialect.name
    return pg_insert(table) if dialect == "postgresql" else sqlite_insert(table)
