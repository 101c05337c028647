"""SQLite's write-ahead log does not keep the size of its largest transaction for good.

SQLite reuses the log from its start after each checkpoint and never shrinks it by itself: one
large transaction (an index rebuild, a big import) would leave a log file that size beside the
database for the rest of its life. Herald's connections set a size limit, so once the log starts
over, the file is cut back. (PostgreSQL manages its own write-ahead log.)
"""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import text

from herald.db import engine as engine_module
from herald.db.engine import WRITE_OPTION, make_engine

LIMIT = 1024 * 1024


def test_the_log_is_cut_back_after_a_large_transaction(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(engine_module, "SQLITE_WAL_SIZE_LIMIT_BYTES", LIMIT)
    path = tmp_path / "herald.db"
    engine = make_engine(f"sqlite:///{path}")
    wal = Path(f"{path}-wal")
    try:
        with engine.connect().execution_options(**{WRITE_OPTION: True}) as conn:
            conn.execute(text("CREATE TABLE t (id INTEGER PRIMARY KEY, b BLOB)"))
            for _ in range(16):  # one 8 MiB transaction: the log grows past it
                conn.execute(text("INSERT INTO t (b) VALUES (randomblob(524288))"))
            conn.commit()
        assert wal.stat().st_size > 8 * LIMIT
        for _ in range(600):  # ordinary small commits: checkpoints, then the log starts over
            with engine.connect().execution_options(**{WRITE_OPTION: True}) as conn:
                conn.execute(text("INSERT INTO t (b) VALUES (randomblob(2000))"))
                conn.commit()
        assert wal.stat().st_size <= LIMIT
    finally:
        engine.dispose()


def test_herald_connections_carry_the_limit(tmp_path: Path) -> None:
    engine = make_engine(f"sqlite:///{tmp_path / 'herald.db'}")
    try:
        with engine.connect() as conn:
            limit = conn.execute(text("PRAGMA journal_size_limit")).scalar_one()
    finally:
        engine.dispose()
    assert limit == engine_module.SQLITE_WAL_SIZE_LIMIT_BYTES == 64 * 1024 * 1024
