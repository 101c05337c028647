"""Bulk writes on PostgreSQL: many rows in one ``COPY`` stream instead of a statement per row."""

from __future__ import annotations

from collections.abc import Iterable

import psycopg
from sqlalchemy import Connection

_COPY_BLOCK = 1 << 20  # characters sent per write


def copy_text(connection: Connection, target: str, chunks: Iterable[str]) -> None:
    """``COPY target FROM STDIN`` in the connection's transaction (PostgreSQL), with data already
    in COPY's text format: columns separated by tabs, one line per row, every value escaped by the
    caller (rows of integers and plain identifiers need no escaping).

    ``target`` is ``table (column, ...)``. COPY checks constraints as an INSERT does: a duplicate
    key fails the statement (and the transaction), so callers send only rows they know to be new.
    Writing the text directly costs a fraction of adapting every value of every row."""
    raw = connection.connection.driver_connection
    assert isinstance(raw, psycopg.Connection)
    with raw.cursor() as cursor, cursor.copy(f"COPY {target} FROM STDIN") as copy:
        buffer: list[str] = []
        size = 0
        for chunk in chunks:
            buffer.append(chunk)
            size += len(chunk)
            if size >= _COPY_BLOCK:
                copy.write("".join(buffer))
                buffer, size = [], 0
        if buffer:
            copy.write("".join(buffer))
