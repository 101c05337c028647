"""`herald db copy` keeps every row of every table: SQLite -> PostgreSQL -> SQLite.

Every copied table holds rows of awkward values of its columns' types (:mod:`tests.db.every_type`):
each one reads back the same through the models on PostgreSQL and on the SQLite copy, and the
SQLite copy stores each value as the source did (storage class and bytes; JSON compared as
values, since PostgreSQL keeps objects' keys in its own order).
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import psycopg
from sqlalchemy import JSON
from sqlalchemy.engine import make_url

from herald.db.copy import copied_tables, copy_database
from tests.conftest import PG_ADMIN_URL
from tests.db.every_type import ROWS, fill_every_table
from tests.db.filled import all_rows


def _stored(path: Path) -> dict[str, list[list[Any]]]:
    """Every row as SQLite stores it, each value with its storage class (JSON parsed)."""
    found = {}
    with sqlite3.connect(path) as connection:
        for table in copied_tables():
            columns = ", ".join(f"typeof({c.name}), {c.name}" for c in table.columns)
            keys = ", ".join(c.name for c in table.primary_key.columns)
            rows = connection.execute(f"SELECT {columns} FROM {table.name} ORDER BY {keys}")
            found[table.name] = [
                [
                    json.loads(row[2 * n + 1])
                    if isinstance(c.type, JSON) and row[2 * n + 1] is not None
                    else row[2 * n + 1]
                    for n, c in enumerate(table.columns)
                ]
                + [row[2 * n] for n in range(len(table.columns))]
                for row in rows
            ]
    return found


def test_every_table_round_trips_with_awkward_values(pg_url: str, tmp_path: Path) -> None:
    """Through a PostgreSQL database whose time zone is east of UTC (the end of year 9999 UTC is
    in year 10000 there)."""
    with psycopg.connect(PG_ADMIN_URL, autocommit=True) as admin:
        admin.execute(
            f"ALTER DATABASE \"{make_url(pg_url).database}\" SET timezone TO 'Asia/Kolkata'"
        )
    source = tmp_path / "a" / "herald.db"
    back = tmp_path / "b" / "herald.db"
    fill_every_table(f"sqlite:///{source}")
    rows = all_rows(f"sqlite:///{source}")
    assert {name: len(found) for name, found in rows.items()} == dict.fromkeys(rows, ROWS)
    stored = _stored(source)

    copy_database(f"sqlite:///{source}", pg_url)
    assert all_rows(pg_url) == rows
    copy_database(pg_url, f"sqlite:///{back}")
    assert all_rows(f"sqlite:///{back}") == rows
    assert _stored(back) == stored
