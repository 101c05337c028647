"""Online backups: SQLite's with its own backup API, PostgreSQL's with ``pg_dump``.

Copying ``herald.db`` while Herald runs can give a torn file, and misses what still sits in
``herald.db-wal``. The backup API copies the database as one reader sees it: the pages are read
in one step inside one read transaction, so the copy is one committed state (WAL included), and
since readers never block writers in WAL mode, Herald keeps serving and writing meanwhile.

The copy is written beside the destination and renamed into place once it is complete and
passes SQLite's ``quick_check``, so a file at the destination is always a whole backup. It is
switched out of WAL mode, so the one file is the whole database. The search indexes are not
part of it: they are projections of the database, rebuilt from it on restore.

On PostgreSQL the dump is ``pg_dump``'s custom format, written the same way (beside the
destination, renamed once ``pg_restore --list`` reads it whole).
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import time
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy import create_engine, text
from sqlalchemy.engine import URL, make_url

from herald.core.files import fsync_path

BUSY_TIMEOUT_MS = 30_000
OWNER_ONLY = 0o600  # the mode of a backup file


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
    partial = _partial_of(destination)
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
        _publish(partial, destination)
    finally:
        partial.unlink(missing_ok=True)
    return _report(destination, str(revision or ""), int(items or 0), started)


def url_password(url: URL | str) -> str | None:
    """The password a PostgreSQL URL gives, after the user name or as its ``password``
    parameter."""
    given = make_url(url)
    if given.password:
        return str(given.password)
    value = given.query.get("password")
    return (value if isinstance(value, str) else value[-1]) if value else None


def plain_url(url: URL | str) -> URL:
    """The libpq form of a PostgreSQL URL (the driver's name and the password, in either place,
    left out)."""
    given = make_url(url)
    query = {key: value for key, value in given.query.items() if key != "password"}
    return URL.create(
        "postgresql", given.username, None, given.host, given.port, given.database, query
    )


def backup_postgresql(url: str, destination: Path) -> BackupReport:
    """Dump the PostgreSQL database of ``url`` to ``destination`` (a new file) with ``pg_dump``.

    The password, if the URL has one (after the user name or as its ``password`` parameter),
    goes to ``pg_dump`` in ``PGPASSWORD``, never on its command line. The schema revision and
    item count are read just before the dump starts.
    """
    tools = {name: shutil.which(name) for name in ("pg_dump", "pg_restore")}
    missing = [name for name, found in tools.items() if found is None]
    if missing:
        raise BackupRefused(
            f"{' and '.join(missing)} {'was' if len(missing) == 1 else 'were'} not found on PATH: "
            "install PostgreSQL's client tools (of the server's version or newer), or run the "
            "lines below where they are installed"
        )
    partial = _partial_of(destination)
    env = tool_env(url)
    source = plain_url(url).render_as_string(hide_password=False)
    started = time.monotonic()
    revision, items = _pg_state(url)
    try:
        dump = [str(tools["pg_dump"]), "--format=custom", f"--file={partial}", source]
        run_tool(dump, env, "pg_dump")
        run_tool([str(tools["pg_restore"]), "--list", str(partial)], env, "pg_restore --list")
        _publish(partial, destination)
    finally:
        partial.unlink(missing_ok=True)
    return _report(destination, revision, items, started)


def _partial_of(destination: Path) -> Path:
    """Where a backup to ``destination`` (a new file) is written until it is complete: an empty
    file readable by its owner only, whatever the umask, since a backup holds every secret of
    the database (webhook signing secrets, key hashes). SQLite and ``pg_dump`` write into it and
    keep its mode, and so does the rename."""
    if destination.exists():
        raise BackupRefused(f"{destination} already exists: give a new file name")
    destination.parent.mkdir(parents=True, exist_ok=True)
    partial = destination.with_name(destination.name + ".partial")
    partial.unlink(missing_ok=True)
    os.close(os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_EXCL, OWNER_ONLY))
    os.chmod(partial, OWNER_ONLY)  # the umask may have taken bits from the mode asked for
    return partial


def _publish(partial: Path, destination: Path) -> None:
    """Put a complete backup in place, durably."""
    fsync_path(partial)
    os.replace(partial, destination)
    fsync_path(destination.parent)


def _report(destination: Path, revision: str, items: int, started: float) -> BackupReport:
    return BackupReport(
        path=destination,
        size_bytes=destination.stat().st_size,
        schema_revision=revision,
        content_items=items,
        seconds=time.monotonic() - started,
    )


def tool_env(url: str) -> dict[str, str]:
    """The environment of a PostgreSQL tool: the URL's password, if any, in ``PGPASSWORD``."""
    env = dict(os.environ)
    password = url_password(url)
    if password:
        env["PGPASSWORD"] = password
    return env


def run_tool(
    command: list[str],
    env: dict[str, str],
    name: str,
    *,
    refused: type[Exception] = BackupRefused,
    outcome: str = "no dump kept",
) -> str:
    """Run one of PostgreSQL's tools; its output, or ``refused`` with its last line of error."""
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)  # noqa: S603 - PostgreSQL's own tools
    if done.returncode != 0:
        said = done.stderr.strip().splitlines()
        reason = said[-1] if said else f"exit status {done.returncode}"
        raise refused(f"{name} failed, {outcome}: {reason}")
    return done.stdout


def _pg_state(url: str) -> tuple[str, int]:
    engine = create_engine(url)
    try:
        with engine.connect() as connection:
            revision = connection.execute(text("SELECT version_num FROM alembic_version")).scalar()
            items = connection.execute(text("SELECT count(*) FROM content_items")).scalar()
    except Exception as exc:
        reason = str(exc).strip().splitlines()[0]
        raise BackupRefused(f"the database could not be read: {reason}") from exc
    finally:
        engine.dispose()
    return str(revision or ""), int(items or 0)


def _one(connection: sqlite3.Connection, query: str) -> Any:
    try:
        return connection.execute(query).fetchone()[0]
    except sqlite3.OperationalError:  # a database Herald never migrated
        return None
