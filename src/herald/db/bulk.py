"""Bulk writes on PostgreSQL: many rows in one ``COPY`` stream instead of a statement per row."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import psycopg
from sqlalchemy import Connection


def copy_rows(connection: Connection, target: str, rows: Iterable[Sequence[Any]]) -> None:
    """``COPY target FROM STDIN`` with ``rows``, in the connection's transaction (PostgreSQL).

    ``target`` is ``table (column, ...)``; each row gives those columns' values in order. COPY
    checks constraints as an INSERT does: a duplicate key fails the statement (and the
    transaction), so callers send only rows they know to be new."""
    raw = connection.connection.driver_connection
    assert isinstance(raw, psycopg.Connection)
    with raw.cursor() as cursor, cursor.copy(f"COPY {target} FROM STDIN") as copy:
        for row in rows:
            copy.write_row(row)
