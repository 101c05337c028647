"""Loading a ``herald db backup`` dump (pg_dump's custom format) into an empty PostgreSQL database.

PostgreSQL has no file to put in place: a restore loads the dump into the database
``HERALD_DATABASE_URL`` names, which must hold no tables (a new database: ``createdb``), while no
other session is connected to it. The dump's schema revision is read from the dump before
anything is loaded (a newer Herald's dump is refused), and ``pg_restore`` loads it in one
transaction, stopping at the first error: the database ends with the whole dump or stays empty.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from sqlalchemy import create_engine, inspect, text

from herald.db.backup import plain_url, run_tool, tool_env
from herald.db.copy import describe
from herald.db.restore import RestoreRefused


def restore_postgresql(dump: Path, url: str, known: set[str]) -> tuple[str, int]:
    """Load ``dump`` into the empty database of ``url``; its schema revision and item count."""
    if not dump.is_file():
        raise RestoreRefused(f"there is no file at {dump}")
    tool = shutil.which("pg_restore")
    if tool is None:
        raise RestoreRefused(
            "pg_restore was not found on PATH: install PostgreSQL's client tools (of the "
            "server's version or newer)"
        )
    env = tool_env(url)
    revision = _dump_revision(tool, dump, env)
    if not revision:
        raise RestoreRefused(f"{dump} is not a Herald dump: it has no schema revision")
    if revision - known:
        raise RestoreRefused(
            f"{dump} is at schema revision {', '.join(sorted(revision - known))}, which this "
            "version of Herald does not know: a newer version made it. Restore it with that "
            "version (or a newer one)"
        )
    _refuse_unless_empty_and_unused(url)
    target = plain_url(url).render_as_string(hide_password=False)
    load = [
        tool,
        "--no-owner",
        "--single-transaction",
        "--exit-on-error",
        f"--dbname={target}",
        str(dump),
    ]
    _run(load, env, "pg_restore")
    engine = create_engine(url)
    try:
        with engine.connect() as connection:
            items = connection.execute(text("SELECT count(*) FROM content_items")).scalar()
    finally:
        engine.dispose()
    return ", ".join(sorted(revision)), int(items or 0)


def _dump_revision(tool: str, dump: Path, env: dict[str, str]) -> set[str]:
    """The rows of the dump's ``alembic_version`` table, read from the dump (nothing loaded)."""
    command = [tool, "--data-only", "--table=alembic_version", "--file=-", str(dump)]
    script = _run(command, env, "pg_restore")
    rows: list[str] = []
    copying = False
    for line in script.splitlines():
        if line.startswith("COPY ") and "alembic_version" in line:
            copying = True
        elif copying and line == "\\.":
            copying = False
        elif copying:
            rows.append(line.strip())
    return set(filter(None, rows))


def _refuse_unless_empty_and_unused(url: str) -> None:
    engine = create_engine(url)
    try:
        with engine.connect() as connection:
            tables = inspect(connection).get_table_names()
            others = connection.execute(
                text(
                    "SELECT count(*) FROM pg_stat_activity "
                    "WHERE datname = current_database() AND pid <> pg_backend_pid()"
                )
            ).scalar()
    except Exception as exc:
        reason = str(exc).strip().splitlines()[0]
        raise RestoreRefused(f"the database could not be read: {reason}") from exc
    finally:
        engine.dispose()
    if tables:
        raise RestoreRefused(
            f"the database {describe(url)} is not empty ({len(tables)} tables): a dump is "
            "restored into a new, empty database (createdb), never over one. Point "
            "HERALD_DATABASE_URL at the new one; to move data between two databases that "
            "Herald has used, use `herald db copy`"
        )
    if others:
        raise RestoreRefused(
            f"{others} other sessions are connected to {describe(url)}: stop every Herald "
            "process using it, then restore"
        )


def _run(command: list[str], env: dict[str, str], name: str) -> str:
    return run_tool(command, env, name, refused=RestoreRefused, outcome="nothing restored")
