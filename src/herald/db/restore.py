"""Putting a SQLite backup in place of the database, the one way that cannot be undone by SQLite.

A database in WAL mode is two files: ``herald.db`` and the commits still in ``herald.db-wal``.
A backup copied over ``herald.db`` beside a leftover ``herald.db-wal`` (Herald crashed, or still
runs) is not restored: SQLite replays the old log into it at the next open. So a restore:

- refuses while any process has the database open (SQLite's own locks, read without taking them:
  every connection to a WAL database holds a shared lock on a byte of ``herald.db-shm`` for as
  long as it is open, and a transaction in rollback mode locks bytes of ``herald.db``);
- reads the backup whole before touching anything: SQLite's ``integrity_check``, Herald's schema
  revision present and known to this version (a newer Herald's backup is refused);
- copies it with SQLite's backup API (a backup that still has its own ``-wal`` comes whole) to a
  file beside the database, flushed to disk, then renamed over ``herald.db`` once the old log is
  out of the way. The database it replaces is kept, with its log, as ``herald.db.replaced-<time>``
  (and ``-wal``), renamed, not copied.

Migrating it and the search index are the caller's (:mod:`herald.cli.db`).
"""

from __future__ import annotations

import fcntl
import os
import sqlite3
import struct
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path

from alembic.script import ScriptDirectory

from herald.core.files import fsync_path
from herald.db.backup import BackupRefused, backup_sqlite

# SQLite's lock bytes (its os_unix.c): the WAL index's "dead man switch", held shared by every
# open connection, and the rollback-mode locks of the database file.
SHM_DMS_OFFSET = 128
DB_LOCK_OFFSET = 0x40000000
DB_LOCK_LENGTH = 2 + 510


class RestoreRefused(Exception):
    """Nothing was changed; the message says why."""


@dataclass(frozen=True)
class RestoreReport:
    database: Path
    replaced: Path | None
    schema_revision: str
    content_items: int


def open_by_another_process(database: Path) -> bool:
    """Whether a process other than this one holds a SQLite lock on ``database`` (open in WAL
    mode, or inside a transaction). Read with ``F_GETLK``, which takes no lock."""
    shm = database.with_name(database.name + "-shm")
    return _locked(shm, SHM_DMS_OFFSET, 1) or _locked(database, DB_LOCK_OFFSET, DB_LOCK_LENGTH)


def _locked(path: Path, offset: int, length: int) -> bool:
    try:
        descriptor = os.open(path, os.O_RDONLY)
    except FileNotFoundError:
        return False
    try:
        # struct flock: l_type, l_whence, l_start, l_len, l_pid (Linux's layout).
        query = struct.pack("hhqqi", fcntl.F_WRLCK, os.SEEK_SET, offset, length, 0)
        answer = fcntl.fcntl(descriptor, fcntl.F_GETLK, query)
        return bool(struct.unpack("hhqqi", answer)[0] != fcntl.F_UNLCK)
    finally:
        # Closing a descriptor drops this process's own POSIX locks on the file: the restore's
        # process holds no connection to the database it replaces.
        os.close(descriptor)


def check_backup(backup: Path, known_revisions: set[str]) -> tuple[str, int]:
    """The backup's schema revision and item count, once it is proven a whole Herald database
    this version can migrate; :class:`RestoreRefused` otherwise."""
    if not backup.is_file():
        raise RestoreRefused(f"there is no file at {backup}")
    try:
        with closing(sqlite3.connect(f"{backup.resolve().as_uri()}?mode=ro", uri=True)) as db:
            check = [row[0] for row in db.execute("PRAGMA integrity_check").fetchall()]
            if check != ["ok"]:
                raise RestoreRefused(
                    f"{backup} failed SQLite's integrity_check ({'; '.join(check[:3])})"
                )
            revisions = {row[0] for row in db.execute("SELECT version_num FROM alembic_version")}
            items = int(db.execute("SELECT count(*) FROM content_items").fetchone()[0])
    except sqlite3.DatabaseError as exc:
        raise RestoreRefused(f"{backup} is not a Herald database: {exc}") from None
    if not revisions:
        raise RestoreRefused(f"{backup} is not a Herald database: it has no schema revision")
    unknown = revisions - known_revisions
    if unknown:
        raise RestoreRefused(
            f"{backup} is at schema revision {', '.join(sorted(unknown))}, which this version "
            "of Herald does not know: a newer version made it. Restore it with that version "
            "(or a newer one)"
        )
    return ", ".join(sorted(revisions)), items


def known_revisions(script: ScriptDirectory) -> set[str]:
    return {revision.revision for revision in script.walk_revisions()}


def restore_sqlite(backup: Path, database: Path, known: set[str], stamp: str) -> RestoreReport:
    """Put the SQLite ``backup`` in place of ``database`` (see the module's docstring)."""
    if backup.resolve() == database.resolve():
        raise RestoreRefused(f"{backup} is the database itself")
    _refuse_if_open(database)
    revision, items = check_backup(backup, known)
    incoming = database.with_name(database.name + ".restoring")
    _remove_leftovers(incoming)
    try:
        backup_sqlite(backup, incoming)  # whole, quick_check'ed, flushed, out of WAL mode
    except BackupRefused as exc:
        raise RestoreRefused(str(exc)) from None
    try:
        _refuse_if_open(database)  # a process started meanwhile
        replaced = _move_aside(database, stamp)
        os.replace(incoming, database)
        fsync_path(database.parent)
    finally:
        _remove_leftovers(incoming)
    return RestoreReport(database, replaced, revision, items)


def _refuse_if_open(database: Path) -> None:
    if open_by_another_process(database):
        raise RestoreRefused(
            f"a process has {database} open (Herald is running: `herald serve`, `herald "
            "worker`, or another command): stop every Herald process using it, then restore"
        )


def _move_aside(database: Path, stamp: str) -> Path | None:
    """Rename the database and its log out of the way, together (they are one state); the
    shared-memory index is only a cache of the log and is deleted. The log goes first: from then
    on no open can replay it into the restored file."""
    wal = database.with_name(database.name + "-wal")
    shm = database.with_name(database.name + "-shm")
    kept = database.with_name(f"{database.name}.replaced-{stamp}")
    if not database.exists():
        wal.unlink(missing_ok=True)  # a log without its database: nothing to keep it with
        shm.unlink(missing_ok=True)
        return None
    if wal.exists():
        os.replace(wal, kept.with_name(kept.name + "-wal"))
    shm.unlink(missing_ok=True)
    os.link(database, kept)  # the old file stays at its name until the new one replaces it
    fsync_path(database.parent)
    return kept


def _remove_leftovers(incoming: Path) -> None:
    for suffix in ("", ".partial", "-journal", "-wal", "-shm"):
        incoming.with_name(incoming.name + suffix).unlink(missing_ok=True)
