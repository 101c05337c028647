"""`herald db copy` killed mid-way (SIGKILL, in a real process) or losing its PostgreSQL
connection mid-way leaves the target empty, and the same copy run again fills it whole: SQLite to
PostgreSQL and PostgreSQL to SQLite."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import psycopg
import pytest
from sqlalchemy import Connection, Table, create_engine
from sqlalchemy.engine import make_url

import herald.db.copy
from herald.db.copy import copy_database, nonempty_tables
from tests.conftest import PG_ADMIN_URL
from tests.db.filled import all_rows, herald_copy
from tests.db.test_copy_values import _fill

ROOT = Path(__file__).resolve().parents[2]
# Killed while writing content_items, after other tables' rows were written in its transaction.
KILLED_COPY = """
import os, signal, sys
from herald.db.copy import copy_database

def on_rows(table, rows):
    if table == "content_items":
        os.kill(os.getpid(), signal.SIGKILL)

copy_database(sys.argv[1], sys.argv[2], batch=1, on_rows=on_rows)
"""


def _killed_copy(source: str, target: str) -> None:
    env = os.environ | {"PYTHONPATH": os.pathsep.join([str(ROOT / "src"), str(ROOT)])}
    done = subprocess.run(
        [sys.executable, "-c", KILLED_COPY, source, target], env=env, cwd=ROOT, timeout=120
    )
    assert done.returncode == -signal.SIGKILL


def _empty(url: str) -> bool:
    engine = create_engine(url)
    try:
        return nonempty_tables(engine) == []
    finally:
        engine.dispose()


def test_a_copy_killed_mid_way_leaves_nothing_and_runs_again(pg_url: str, tmp_path: Path) -> None:
    source = f"sqlite:///{tmp_path / 'a' / 'herald.db'}"
    back = f"sqlite:///{tmp_path / 'b' / 'herald.db'}"
    _fill(source)
    rows = all_rows(source)
    for origin, target in [(source, pg_url), (pg_url, back)]:
        _killed_copy(origin, target)
        assert _empty(target)
        copy_database(origin, target)
        assert all_rows(target) == rows


def test_a_connection_dropped_mid_way_is_said_and_leaves_nothing(
    pg_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """PostgreSQL ends the copy's connection while tables are being copied (the server
    restarted, an administrator terminated it): to PostgreSQL, the target keeps nothing; from
    PostgreSQL, the SQLite target keeps nothing. The command says so in a line and exits 1, and
    the same command then copies everything."""
    source = f"sqlite:///{tmp_path / 'a' / 'herald.db'}"
    back = f"sqlite:///{tmp_path / 'b' / 'herald.db'}"
    _fill(source)
    rows = all_rows(source)
    database = make_url(pg_url).database
    real_count = herald.db.copy._count
    counted = []

    def count_then_drop(connection: Connection, table: Table) -> int:
        counted.append(table.name)
        if table.name == "content_items":  # rows of earlier tables are written by now
            with psycopg.connect(PG_ADMIN_URL, autocommit=True) as admin:
                admin.execute(
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                    "WHERE datname = %s AND pid <> pg_backend_pid()",
                    (database,),
                )
        return real_count(connection, table)

    for origin, target in [(source, pg_url), (pg_url, back)]:
        with monkeypatch.context() as patch:
            patch.setattr(herald.db.copy, "_count", count_then_drop)
            dropped = herald_copy(origin, target, tmp_path / "home", "--no-index")
        assert dropped.exit_code == 1
        assert isinstance(dropped.exception, SystemExit)
        assert "cannot use a database" in dropped.output
        assert "none of it" in dropped.output
        assert _empty(target)
        again = herald_copy(origin, target, tmp_path / "home", "--no-index")
        assert again.exit_code == 0, again.output
        assert all_rows(target) == rows
