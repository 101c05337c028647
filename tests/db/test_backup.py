"""Backups proven by restoring them: `herald db backup` (SQLite), pg_dump/pg_restore (PostgreSQL).

Each test backs up a home filled by the real pipeline, restores the backup into a fresh home (a
new database for PostgreSQL) the way docs/operations.md says, and checks that it serves the same:
the same key authenticates, the same searches return the same ids in the same order, the monitor
keeps its results, and a delivery signed there verifies with the secret the receiver was given.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import threading
from collections.abc import Callable
from contextlib import closing
from datetime import UTC, datetime
from pathlib import Path

import psycopg
import pytest
from sqlalchemy.engine import make_url

from herald.config import Settings
from herald.db.migrate import upgrade
from herald.metrics.shared import SharedState
from herald.runtime import Runtime
from tests.conftest import PG_ADMIN_URL
from tests.db.filled import (
    Filled,
    all_rows,
    assert_keeps_working,
    assert_serves_the_same,
    herald,
    herald_copy,
)

# One worker fills the home once for all of them.
pytestmark = pytest.mark.xdist_group("db-filled")


def sqlite_path(filled: Filled) -> Path:
    return Path(make_url(filled.settings.resolved_database_url).database or "")


@pytest.mark.slow
def test_sqlite_backup_taken_while_writing_restores_the_same(
    filled: Filled, tmp_path: Path
) -> None:
    database = sqlite_path(filled)
    # The fill's runtime is still open: recent commits sit in the write-ahead log, which a copy
    # of herald.db alone would miss.
    assert (database.parent / "herald.db-wal").stat().st_size > 0
    rows = all_rows(filled.settings.resolved_database_url)

    stop = threading.Event()
    written: list[int] = []

    def keep_writing() -> None:  # another process's writes, as a serving Herald makes them
        connection = sqlite3.connect(database, timeout=30, isolation_level=None)
        with closing(connection):
            while not stop.is_set():
                connection.execute(
                    "INSERT INTO rate_buckets (bucket, tokens, updated_at, allowed) "
                    "VALUES (?, 1.0, 0.0, 1)",
                    (f"writer-{len(written)}",),
                )
                written.append(1)

    writer = threading.Thread(target=keep_writing)
    writer.start()
    try:
        backup = tmp_path / "backups" / "herald.db"
        result = herald(["db", "backup", str(backup)], database.parent)
    finally:
        stop.set()
        writer.join()
    assert result.exit_code == 0, result.output
    assert written  # the writer kept committing around the backup
    assert not backup.with_name("herald.db.partial").exists()
    assert not backup.with_name("herald.db-wal").exists()  # one self-contained file

    again = herald(["db", "backup", str(backup)], database.parent)
    assert again.exit_code == 1
    assert "already exists" in again.output

    restored = tmp_path / "restored"
    restored.mkdir()
    shutil.copy(backup, restored / "herald.db")
    url = f"sqlite:///{restored / 'herald.db'}"
    upgrade = herald(["db", "upgrade"], restored, url)
    assert upgrade.exit_code == 0, upgrade.output
    copied = all_rows(url)
    buckets = copied.pop("rate_buckets")
    assert all(key.startswith("writer-") for key, *_ in buckets)  # a prefix of the writes
    assert copied == {name: found for name, found in rows.items() if name != "rate_buckets"}
    assert_serves_the_same(filled, restored, url)  # the index is built from the restored file
    assert_keeps_working(filled, restored, url)


def test_backup_into_a_directory_names_the_file_by_time(filled: Filled, tmp_path: Path) -> None:
    folder = tmp_path / "nightly"
    folder.mkdir()
    result = herald(["db", "backup", str(folder), "--json"], sqlite_path(filled).parent)
    assert result.exit_code == 0, result.output
    (made,) = folder.iterdir()
    assert made.name.startswith("herald-")
    assert made.suffix == ".db"
    with closing(sqlite3.connect(made)) as connection:
        items = connection.execute("SELECT count(*) FROM content_items").fetchone()[0]
    assert '"content_items": ' + str(items) in result.output
    assert items > 0


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_a_path_ending_in_a_slash_is_a_directory_made_if_missing(
    backend: str, new_pg_database: Callable[[], str], tmp_path: Path
) -> None:
    """The nightly line `herald db backup /backups/` before anyone made /backups: the backup
    goes into that directory, named by time (a file named /backups would make every later
    night's backup fail, since it exists)."""
    home = tmp_path / "home"
    url = f"sqlite:///{home / 'herald.db'}" if backend == "sqlite" else new_pg_database()
    assert herald(["db", "upgrade"], home, url).exit_code == 0
    folder = tmp_path / "nightly"
    result = herald(["db", "backup", f"{folder}/"], home, url)
    assert result.exit_code == 0, result.output
    assert folder.is_dir()
    (made,) = folder.iterdir()
    assert made.name.startswith("herald-")
    assert made.suffix == (".db" if backend == "sqlite" else ".dump")


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_each_backup_is_recorded_for_the_metric_an_alert_reads(
    backend: str, new_pg_database: Callable[[], str], tmp_path: Path
) -> None:
    """`herald_database_backed_up_timestamp_seconds` has no sample before the first backup (an
    install backed up by other means raises no alert), then the end of the newest one."""
    home = tmp_path / "home"
    url = f"sqlite:///{home / 'herald.db'}" if backend == "sqlite" else new_pg_database()
    assert herald(["db", "upgrade"], home, url).exit_code == 0
    assert _backed_up_at(home, url) is None
    for night in ("first", "second"):
        before = datetime.now(UTC).timestamp()
        result = herald(["db", "backup", str(tmp_path / night)], home, url)
        assert result.exit_code == 0, result.output
        recorded = _backed_up_at(home, url)
        assert recorded is not None
        assert before - 1 <= recorded <= datetime.now(UTC).timestamp()


def test_a_backup_of_a_database_that_cannot_record_it_is_kept_and_says_so(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    url = f"sqlite:///{home / 'herald.db'}"
    upgrade(url, "0030_database_identity")  # the revision before the record of backups
    result = herald(["db", "backup", str(tmp_path / "backup.db")], home, url)
    assert result.exit_code == 0, result.output
    assert (tmp_path / "backup.db").is_file()
    assert "did not record it: its migrations are pending" in " ".join(result.output.split())


def _backed_up_at(home: Path, url: str) -> float | None:
    runtime = Runtime(Settings(home=home, database_url=url, log_format="text"))
    try:
        (family,) = [
            f
            for f in SharedState(runtime).collect()
            if f.name == "herald_database_backed_up_timestamp_seconds"
        ]
        return family.samples[0].value if family.samples else None
    finally:
        runtime.close()


def _run_as_printed(lines: list[str], path: str) -> None:
    for line in lines:
        subprocess.run(["bash", "-c", line], check=True, env={"PATH": path})


def _drop(database: str) -> None:
    with psycopg.connect(PG_ADMIN_URL, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{database}" WITH (FORCE)')


def _assert_restored(export_line: str, restored: str) -> None:
    url = export_line.removeprefix("export HERALD_DATABASE_URL=")
    assert make_url(url).database == restored
    with closing(psycopg.connect(url.replace("+psycopg", ""))) as conn:
        assert conn.execute("SELECT count(*) FROM alembic_version").fetchone() == (1,)


def test_on_postgresql_the_command_makes_the_dump_and_exits_0(pg_url: str, tmp_path: Path) -> None:
    """A backup that was made is a success (it exited 1 after printing the procedure, having
    made nothing); the restore lines it prints run as printed, and no password is printed."""
    assert herald(["db", "upgrade"], tmp_path / "home", pg_url).exit_code == 0
    with_password = pg_url.replace("postgres@", "postgres:pw-not-shown@")  # trust auth ignores it
    folder = tmp_path / "backups"
    folder.mkdir()
    result = herald(["db", "backup", str(folder)], tmp_path / "home", with_password)
    assert result.exit_code == 0, result.output
    assert "pw-not-shown" not in result.output
    # A password given as the URL's parameter is kept out of what is printed as well.
    as_parameter = herald(
        ["db", "backup", str(tmp_path / "other.dump")],
        tmp_path / "home",
        f"{pg_url}?password=pw-not-shown",
    )
    assert as_parameter.exit_code == 0, as_parameter.output
    assert "pw-not-shown" not in as_parameter.output
    assert "PGPASSWORD" in as_parameter.output
    assert "***" not in result.output
    (dump,) = folder.iterdir()
    assert dump.name.startswith("herald-")
    assert dump.suffix == ".dump"
    assert "backed up" in result.output
    lines = [line.strip() for line in result.output.splitlines() if line.startswith("  ")]
    assert [line.split()[0] for line in lines] == [
        "createdb", "pg_restore", "export", "herald", "herald",
    ]  # fmt: skip
    restored = make_url(pg_url).database + "_restored"
    try:
        _run_as_printed(lines[:2], os.environ["PATH"])
        _assert_restored(lines[2], restored)
    finally:
        _drop(restored)
    again = herald(["db", "backup", str(dump)], tmp_path / "home", pg_url)
    assert again.exit_code == 1
    assert "already exists" in again.output


def test_on_postgresql_without_pg_dump_the_command_says_so_and_prints_a_procedure(
    pg_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No dump made is a failure (exit 1) that says so; its lines are pasted as they are where
    the tools are: the dump goes where the command was told, every line reaches the same server
    as the URL (not a local default), and no password is printed."""
    assert herald(["db", "upgrade"], tmp_path / "home", pg_url).exit_code == 0
    real_path = os.environ["PATH"]
    monkeypatch.setenv("PATH", str(tmp_path / "no-tools"))
    with_password = pg_url.replace("postgres@", "postgres:pw-not-shown@")
    folder = tmp_path / "backups"
    folder.mkdir()
    result = herald(["db", "backup", str(folder)], tmp_path / "home", with_password)
    assert result.exit_code == 1
    assert "no backup" in result.output
    assert "pg_dump and pg_restore were not found on PATH" in result.output
    assert list(folder.iterdir()) == []
    assert "pw-not-shown" not in result.output
    assert "***" not in result.output
    lines = [line.strip() for line in result.output.splitlines() if line.startswith("  ")]
    assert [line.split()[0] for line in lines] == [
        "pg_dump", "createdb", "pg_restore", "export", "herald", "herald",
    ]  # fmt: skip
    restored = make_url(pg_url).database + "_restored"
    try:
        _run_as_printed(lines[:3], real_path)  # pg_dump, createdb, pg_restore
        (dump,) = folder.iterdir()
        assert dump.name.startswith("herald-")
        assert dump.suffix == ".dump"
        _assert_restored(lines[3], restored)
    finally:
        _drop(restored)


@pytest.mark.slow
def test_pg_dump_and_pg_restore_restore_the_same(
    filled: Filled, new_pg_database: Callable[[], str], tmp_path: Path
) -> None:
    """The procedure of docs/operations.md, with PostgreSQL's own binaries."""
    live = new_pg_database()
    copied = herald_copy(
        filled.settings.resolved_database_url, live, tmp_path / "live", "--no-index"
    )
    assert copied.exit_code == 0, copied.output
    rows = all_rows(live)

    dump = tmp_path / "herald.dump"
    plain = make_url(live).set(drivername="postgresql").render_as_string(hide_password=False)
    subprocess.run(["pg_dump", "--format=custom", f"--file={dump}", plain], check=True)

    restored = new_pg_database()
    target = make_url(restored).set(drivername="postgresql").render_as_string(hide_password=False)
    subprocess.run(["pg_restore", "--no-owner", f"--dbname={target}", str(dump)], check=True)
    upgrade = herald(["db", "upgrade"], tmp_path / "restored-home", restored)
    assert upgrade.exit_code == 0, upgrade.output
    assert all_rows(restored) == rows
    assert_serves_the_same(filled, tmp_path / "restored-home", restored)
    assert_keeps_working(filled, tmp_path / "restored-home", restored)
