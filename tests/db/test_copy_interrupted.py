"""`herald db copy` killed mid-way (SIGKILL, in a real process) leaves the target empty, and the
same copy run again fills it whole: SQLite to PostgreSQL and PostgreSQL to SQLite."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

from sqlalchemy import create_engine

from herald.db.copy import copy_database, nonempty_tables
from tests.db.filled import all_rows
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
