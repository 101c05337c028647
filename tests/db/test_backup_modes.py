"""A backup holds every secret of the database (webhook signing secrets, key hashes, monitor
feed token hashes): `herald db backup` writes it readable by its owner only, whatever the umask."""

from __future__ import annotations

import os
import shutil
import sqlite3
import stat
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path

import pytest

from herald.db.backup import backup_postgresql, backup_sqlite
from tests.db.filled import herald


@pytest.fixture
def usual_umask() -> Iterator[None]:
    previous = os.umask(0o022)  # the usual default: new files readable by every local user
    try:
        yield
    finally:
        os.umask(previous)


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_a_sqlite_backup_is_readable_by_its_owner_only(tmp_path: Path, usual_umask: None) -> None:
    database = tmp_path / "herald.db"
    with closing(sqlite3.connect(database)) as connection:
        connection.executescript(
            "CREATE TABLE alembic_version (version_num TEXT);"
            "INSERT INTO alembic_version VALUES ('0026_enrichment_input');"
            "CREATE TABLE content_items (id TEXT);"
            "CREATE TABLE webhook_signing_secrets (secret TEXT);"
            "INSERT INTO webhook_signing_secrets VALUES ('whsec_example');"
        )
    report = backup_sqlite(database, tmp_path / "backups" / "herald.db")
    assert report.schema_revision == "0026_enrichment_input"
    assert mode(report.path) == 0o600
    assert list(report.path.parent.iterdir()) == [report.path]  # no journal or partial left


@pytest.mark.skipif(shutil.which("pg_dump") is None, reason="needs PostgreSQL's client tools")
def test_a_postgresql_dump_is_readable_by_its_owner_only(
    pg_url: str, tmp_path: Path, usual_umask: None
) -> None:
    assert herald(["db", "upgrade"], tmp_path / "home", pg_url).exit_code == 0
    report = backup_postgresql(pg_url, tmp_path / "herald.dump")
    assert report.size_bytes > 0
    assert mode(report.path) == 0o600
