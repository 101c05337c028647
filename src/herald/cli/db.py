"""`herald db ...`: schema migrations, copying a whole database to another one, backups and
restores."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Annotated

import typer
from alembic.script import ScriptDirectory
from rich.markup import escape
from rich.table import Table
from sqlalchemy.engine import make_url
from sqlalchemy.exc import DBAPIError, OperationalError

from herald.cli.common import (
    JsonOption,
    cli_runtime,
    console,
    load_settings,
    print_json,
    progress,
    stdout,
)
from herald.cli.pg_backup import pg_dump_procedure, pg_restore_procedure
from herald.config import Settings
from herald.core.clock import SystemClock
from herald.db.backup import BackupRefused, backup_postgresql, backup_sqlite
from herald.db.copy import CopyRefused, TableCount, copy_database, describe
from herald.db.engine import make_engine
from herald.db.identity import record_backup_at, renew_identity_at
from herald.db.migrate import (
    SchemaAhead,
    alembic_config,
    current_revisions,
    head_revisions,
    unknown_revisions,
    upgrade,
)
from herald.db.restore import RestoreRefused, known_revisions, restore_sqlite
from herald.db.restore_pg import restore_postgresql
from herald.search.service import get_search

ONE_TRANSACTION = (
    "The copy writes the target in one transaction: it holds all of the copy or none of it "
    "(a target left empty takes the same command again; one that holds the rows refuses it as "
    "not empty)."
)

app = typer.Typer(
    help="Database schema migrations, copies, backups and restores.", no_args_is_help=True
)


@app.command("upgrade")
def upgrade_command() -> None:
    """Apply every pending migration (SQLite or PostgreSQL, whichever is configured)."""
    settings = load_settings()
    settings.home.mkdir(parents=True, exist_ok=True)
    try:
        upgrade(settings.resolved_database_url)
    except SchemaAhead as exc:
        console.print(f"[red]not upgraded:[/] {escape(str(exc))}", soft_wrap=True)
        raise typer.Exit(1) from None
    console.print(f"[green]database at the latest schema[/] ({_describe(settings)})")


@app.command("current")
def current_command(as_json: JsonOption = False) -> None:
    """Show the schema revision of the database and the latest one available."""
    settings = load_settings()
    engine = make_engine(settings.resolved_database_url)
    try:
        found = sorted(current_revisions(engine))
        ahead = sorted(unknown_revisions(engine, settings.resolved_database_url))
    finally:
        engine.dispose()
    latest = sorted(head_revisions(settings.resolved_database_url))
    if as_json:
        print_json(
            {
                "current": found,
                "latest": latest,
                "up_to_date": found == latest,
                "ahead": bool(ahead),
            }
        )
        return
    current = ", ".join(found) or "(empty)"
    console.print(f"current: {current}\nlatest:  {', '.join(latest)}")
    if ahead:
        console.print(f"[red]{escape(str(SchemaAhead(set(ahead))))}[/]", soft_wrap=True)
    elif found != latest:
        console.print("[yellow]migrations are pending: run `herald db upgrade`[/]")


@app.command("copy")
def copy_command(
    source: Annotated[
        str,
        typer.Option(
            "--from",
            help="URL of the database to copy, e.g. sqlite:////home/herald/.herald/herald.db.",
        ),
    ],
    target: Annotated[
        str,
        typer.Option(
            "--to",
            help="URL of an empty database to copy into, e.g. "
            "postgresql+psycopg://herald@db:5432/herald.",
        ),
    ],
    index: Annotated[
        bool,
        typer.Option(
            "--index/--no-index",
            help="Rebuild the search index from the target afterwards: the one in a SQLite "
            "target's directory, or this machine's HERALD_HOME/index for PostgreSQL "
            "(--no-index: the first search builds it).",
        ),
    ] = True,
    as_json: JsonOption = False,
) -> None:
    """Copy every table of one Herald database into an empty one: SQLite to PostgreSQL, back,
    or between two of a kind.

    The target is migrated to the latest schema, then filled in one transaction from one
    consistent snapshot of the source (stop the processes writing to the source first: later
    writes are not copied). Row counts are compared per table before it commits; any failure
    leaves the target empty. A target that already holds data is refused.

    Keys, monitors, results, webhook targets and their signing secrets, items, enrichment,
    entities, clusters and jobs arrive as they were, with their change sequence, so searches
    answer the same. With --index (the default) the search index is rebuilt from the target:
    for a SQLite target the one in the database's directory (its HERALD_HOME), for PostgreSQL
    the one of this machine's HERALD_HOME (other machines build theirs at their first start).
    """
    source_url = Settings(database_url=source).resolved_database_url
    target_url = Settings(database_url=target).resolved_database_url
    try:
        counts = _copy_with_progress(source_url, target_url)
    except CopyRefused as exc:
        console.print(f"[red]not copied:[/] {escape(str(exc))}", soft_wrap=True)
        raise typer.Exit(1) from None
    except OperationalError as exc:
        console.print(f"[red]cannot use a database:[/] {escape(_reason(exc))}", soft_wrap=True)
        console.print(ONE_TRANSACTION, soft_wrap=True)
        raise typer.Exit(1) from None
    except DBAPIError as exc:  # a value or row the target refused (the first line: no values)
        console.print(f"[red]not copied:[/] {escape(_reason(exc))}", soft_wrap=True)
        console.print(ONE_TRANSACTION, soft_wrap=True)
        raise typer.Exit(1) from None
    indexed = _rebuild_index(target_url) if index else None
    if as_json:
        print_json(
            {
                "source": describe(source_url),
                "target": describe(target_url),
                "tables": {c.table: c.target_rows for c in counts},
                "indexed_items": indexed,
            }
        )
        return
    _print_counts(counts)
    console.print(
        f"[green]copied[/] {sum(c.target_rows for c in counts)} rows of {len(counts)} tables "
        f"into {escape(describe(target_url))}; every table's row count matches the source",
        soft_wrap=True,
    )
    if indexed is not None:
        console.print(f"search index rebuilt from the target: {indexed} items")


@app.command("backup")
def backup_command(
    path: Annotated[
        str,
        typer.Argument(
            help="A new file for the backup, or a directory to put herald-<UTC time>.db in "
            "(herald-<UTC time>.dump on PostgreSQL); a path ending in / is a directory, made "
            "if missing.",
        ),
    ],
    as_json: JsonOption = False,
) -> None:
    """Back up the database while Herald runs: SQLite with its online backup API, PostgreSQL
    with pg_dump.

    The backup is one consistent, self-contained file, checked before it is kept; Herald keeps
    serving and writing meanwhile. The search indexes are not in it: they are rebuilt from the
    database on restore: `herald db restore` puts a backup back, with Herald stopped. Each
    backup kept is recorded in the database (the metric
    herald_database_backed_up_timestamp_seconds, read by the alert HeraldBackupOld).

    On PostgreSQL the dump is pg_dump's custom format (pg_dump and pg_restore must be on PATH),
    and the command prints the lines that restore it. Without them it makes no backup, exits 1
    and prints the whole procedure to run where they are (docs/operations.md, "Backups and
    restores").
    """
    settings = load_settings()
    stamp = SystemClock().now().strftime("%Y%m%dT%H%M%SZ")
    url = settings.resolved_database_url
    suffix = ".db" if settings.is_sqlite else ".dump"
    destination = Path(path)
    if destination.is_dir() or path.endswith(("/", os.sep)):
        destination = destination / f"herald-{stamp}{suffix}"
    database = Path(make_url(url).database or "")
    try:
        if settings.is_sqlite:
            report = backup_sqlite(database, destination)
        else:
            report = backup_postgresql(url, destination)
    except BackupRefused as exc:
        console.print(f"[red]no backup:[/] {escape(str(exc))}", soft_wrap=True)
        if not settings.is_sqlite and not destination.exists():
            console.print(escape(pg_dump_procedure(url, destination)), soft_wrap=True)
        raise typer.Exit(1) from None
    unrecorded = record_backup_at(url, SystemClock().now())
    if unrecorded is not None:
        console.print(
            f"[yellow]the backup is kept, but the database did not record it[/]: "
            f"{escape(unrecorded)}; herald_database_backed_up_timestamp_seconds will not show it",
            soft_wrap=True,
        )
    if as_json:
        print_json(
            {
                "path": str(report.path),
                "size_bytes": report.size_bytes,
                "schema_revision": report.schema_revision,
                "content_items": report.content_items,
                "seconds": round(report.seconds, 3),
            }
        )
        return
    console.print(
        f"[green]backed up[/] {escape(str(database))} to {escape(str(report.path))}: "
        f"{report.size_bytes:,} bytes, {report.content_items} items, schema "
        f"{report.schema_revision}, in {report.seconds:.1f} s. The search indexes are rebuilt "
        "from it on restore (`herald index rebuild`).",
        soft_wrap=True,
    )
    if not settings.is_sqlite:
        console.print(escape(pg_restore_procedure(url, report.path)), soft_wrap=True)


@app.command("restore")
def restore_command(
    path: Annotated[str, typer.Argument(help="A file `herald db backup` wrote.")],
    index: Annotated[
        bool,
        typer.Option(
            "--index/--no-index",
            help="Rebuild this machine's search index from the restored database afterwards "
            "(--no-index: the index is deleted and the first start or search builds it).",
        ),
    ] = True,
    as_json: JsonOption = False,
) -> None:
    """Put a backup back as the database, with every Herald process stopped.

    SQLite: refused while any process has the database open. The backup is checked whole
    (SQLite's integrity_check, a schema revision this version knows) before anything changes,
    copied beside the database, flushed to disk and renamed into place; the database it
    replaces is kept, with its write-ahead log, as herald.db.replaced-<UTC time>. A leftover
    herald.db-wal is never replayed into the restored file.

    PostgreSQL: the dump is loaded into the database HERALD_DATABASE_URL names, which must be
    new and empty (createdb) with no other session connected, in one transaction.

    Then the database is migrated to this version's schema, and this machine's search index
    (HERALD_HOME/index) is deleted and rebuilt from it: it can never answer with items the
    restored database does not hold.
    """
    settings = load_settings()
    url = settings.resolved_database_url
    known = known_revisions(ScriptDirectory.from_config(alembic_config(url)))
    stamp = SystemClock().now().strftime("%Y%m%dT%H%M%SZ")
    replaced: Path | None = None
    try:
        if settings.is_sqlite:
            database = Path(make_url(url).database or "")
            report = restore_sqlite(Path(path), database, known, stamp)
            revision, items = report.schema_revision, report.content_items
            replaced = report.replaced
        else:
            revision, items = restore_postgresql(Path(path), url, known)
    except RestoreRefused as exc:
        console.print(f"[red]not restored:[/] {escape(str(exc))}", soft_wrap=True)
        raise typer.Exit(1) from None
    shutil.rmtree(settings.index_dir, ignore_errors=True)  # built from other data
    upgrade(url)
    renew_identity_at(url)  # from now on it goes its own way: other machines' indexes rebuild
    indexed = _rebuild_index(url) if index else None
    if as_json:
        print_json(
            {
                "restored": path,
                "schema_revision": revision,
                "content_items": items,
                "replaced": None if replaced is None else str(replaced),
                "indexed_items": indexed,
            }
        )
        return
    console.print(
        f"[green]restored[/] {escape(path)} ({items} items, schema {revision}) into "
        f"{escape(_describe(settings))}, migrated to the latest schema",
        soft_wrap=True,
    )
    if replaced is not None:
        console.print(
            f"the database it replaced is kept as {escape(str(replaced))}: delete it "
            "(and its -wal) once the restore is confirmed",
            soft_wrap=True,
        )
    if indexed is None:
        console.print("search index deleted: it is rebuilt at the first start")
    else:
        console.print(f"search index rebuilt from the restored database: {indexed} items")


def _reason(exc: DBAPIError) -> str:
    said = str(exc.orig if exc.orig is not None else exc).strip().splitlines()
    return said[0] if said else type(exc).__name__


def _copy_with_progress(source_url: str, target_url: str) -> list[TableCount]:
    with progress() as bar:
        tasks: dict[str, object] = {}

        def on_table(table: str, total: int) -> None:
            tasks[table] = bar.add_task(table, total=total)

        def on_rows(table: str, rows: int) -> None:
            bar.advance(tasks[table], rows)  # type: ignore[arg-type]

        return copy_database(source_url, target_url, on_table=on_table, on_rows=on_rows)


def _rebuild_index(target_url: str) -> int:
    """Empty the search index that a process on the target would use and build it again."""
    settings = load_settings()
    configured = target_url == settings.resolved_database_url  # then this home's index
    if not configured and make_url(target_url).get_backend_name() == "sqlite":
        home = Path(make_url(target_url).database or ".").resolve().parent
        settings = Settings(home=home, database_url=target_url)
    else:
        settings = Settings(home=settings.home, database_url=target_url)
    with cli_runtime(settings=settings) as runtime, runtime.sessions.read() as session:
        return get_search(runtime).rebuild(session)


def _print_counts(counts: list[TableCount]) -> None:
    table = Table("table", "rows")
    for count in counts:
        table.add_row(count.table, str(count.target_rows))
    stdout.print(table)


def _describe(settings: object) -> str:
    assert isinstance(settings, Settings)
    if settings.is_sqlite:
        return f"SQLite {settings.home / 'herald.db'}"
    return "PostgreSQL"
