"""Online backups of the SQLite database, with SQLite's own backup API.

Copying ``herald.db`` while Herald runs can give a torn file, and misses what still sits in
``herald.db-wal``. The backup API copies the database as one reader sees it: the pages are read
in one step inside one read transaction, so the copy is one committed state (WAL included), and
since readers never block writers in WAL mode, Herald keeps serving and writing meanwhile.

The copy is written beside the destination and renamed into place once it is complete and
passes SQLite's ``quick_check``, so a file at the destination is always a whole backup. It is
switched out of WAL mode, so the one file is the whole database. The search indexes are not
part of it: they are projections of the database, rebuilt from it on restore.
"""

from __future__ import annotations

import os
import sqlite3
import time
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from herald.core.files import fsync_path

BUSY_TIMEOUT_MS = 30_000


class BackupRefused(Exception):
    """The backup was not written (or not kept); the message says why."""


@dataclass(frozen=True)
class BackupReport:
    path: Path
    size_bytes: int
    schema_revision: str
    content_items: int
    seconds: float


def backup_sqlite(database: Path, destination: Path) -> BackupReport:
    """Write a consistent copy of the live SQLite ``database`` to ``destination`` (a new file)."""
    if not database.is_file():
        raise BackupRefused(f"there is no SQLite database at {database}")
    if destination.exists():
        raise BackupRefused(f"{destination} already exists: give a new file name")
    destination.parent.mkdir(parents=True, exist_ok=True)
    partial = destination.with_name(destination.name + ".partial")
    partial.unlink(missing_ok=True)
    started = time.monotonic()
    try:
        with (
            closing(sqlite3.connect(database)) as source,
            closing(sqlite3.connect(partial)) as copy,
        ):
            source.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
            source.backup(copy)  # every page in one step: one snapshot, never restarted
            copy.execute("PRAGMA journal_mode=DELETE")
            check = copy.execute("PRAGMA quick_check").fetchone()[0]
            if check != "ok":
                raise BackupRefused(f"the copy failed SQLite's quick_check ({check}); not kept")
            revision = _one(copy, "SELECT group_concat(version_num) FROM alembic_version")
            items = _one(copy, "SELECT count(*) FROM content_items")
        fsync_path(partial)
        os.replace(partial, destination)
        fsync_path(destination.parent)
    finally:
        partial.unlink(missing_ok=True)
    return BackupReport(
        path=destination,
        size_bytes=destination.stat().st_size,
        schema_revision=str(revision or ""),
        content_items=int(items or 0),
        seconds=time.monotonic() - started,
    )


def _one(connection: sqlite3.Connection, query: str) -> Any:
    try:
        return connection.execute(query).fetchone()[0]
    except sqlite3.OperationalError:  # a database Herald never migrated
        return None
