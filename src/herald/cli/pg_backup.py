"""The lines that dump and restore a PostgreSQL database with PostgreSQL's own tools.

They are printed to be pasted as they are: the dump goes to the path the command was given, and
every line names the same server and user as ``HERALD_DATABASE_URL`` (a password stays in
PGPASSWORD or ~/.pgpass, never on a command line).
"""

from __future__ import annotations

import shlex
from pathlib import Path

from sqlalchemy.engine import URL

from herald.db.backup import plain_url, url_password


def pg_dump_procedure(url: str, path: Path) -> str:
    """Dumping and restoring, for when ``herald db backup`` could not make the dump itself."""
    dump = shlex.quote(str(path))
    return (
        "Back the database up with PostgreSQL's tools, which take a consistent dump while "
        "Herald runs:\n"
        f"  pg_dump --format=custom --file={dump} {_plain(plain_url(url))}\n"
        + pg_restore_procedure(url, path)
    )


def pg_restore_procedure(url: str, path: Path) -> str:
    """Restoring the dump at ``path`` into ``<database>_restored`` on the same server."""
    source = plain_url(url)
    restored = source.set(database=f"{source.database}_restored")
    server = [
        f"{flag} {shlex.quote(str(value))}"
        for flag, value in (("-h", source.host), ("-p", source.port), ("-U", source.username))
        if value is not None
    ]
    createdb = " ".join(["createdb", *server, shlex.quote(str(restored.database))])
    return (
        "To restore: create an empty database, load the dump, migrate, and rebuild each "
        "machine's search index with every Herald process stopped:\n"
        f"  {createdb}\n"
        f"  pg_restore --no-owner --dbname={_plain(restored)} {shlex.quote(str(path))}\n"
        f"  export HERALD_DATABASE_URL={_plain(restored, 'postgresql+psycopg')}\n"
        "  herald db upgrade\n"
        "  herald index rebuild   # on each machine\n"
        + (
            "The password is left out of these lines: give it in PGPASSWORD or ~/.pgpass.\n"
            if url_password(url)
            else ""
        )
        + "Details: docs/operations.md, Backups and restores."
    )


def _plain(target: URL, driver: str = "postgresql") -> str:
    return shlex.quote(target.set(drivername=driver).render_as_string(hide_password=False))
