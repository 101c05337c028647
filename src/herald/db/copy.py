"""Copying a whole Herald database to another one, SQLite or PostgreSQL, in either direction.

The tables come from the models' metadata, so a table added later is copied without a change
here; they are written parents first (foreign-key order). What is copied must arrive unchanged:

- **One snapshot of the source.** Every table is read in one read transaction (``REPEATABLE
  READ`` on PostgreSQL; one SQLite read transaction sees one state of the WAL), so the copy is
  consistent even if a process wrote meanwhile (such writes are not copied).
- **All or nothing on the target.** Every row is written in one transaction, and the row count
  of each table is compared with the source's before it commits: a failure leaves the target
  empty (migrated), ready for another try.
- **Values, not text.** Rows pass through the models' column types, which map JSON, binary
  embeddings, booleans and UTC timestamps to each backend's own form. In JSON columns SQL
  ``NULL`` and the JSON value ``null`` stay apart.
- **COPY into PostgreSQL.** A PostgreSQL target loads each batch of rows with one ``COPY`` in
  its text format (:mod:`herald.db.bulk`), each value written as its column's type binds it;
  a SQLite target takes an ``INSERT`` per batch.
- **Numbering continues.** Identity columns keep their values; on PostgreSQL the sequences
  behind them and the content change sequence are moved past the copied values, so the next
  row, job or change gets a new number.
- **Search indexes follow the change sequence.** ``content_items.change_seq`` and
  ``content_removals`` are copied as they are; the projections kept inside the database (the
  PostgreSQL lexical table and its watermark, :data:`DERIVED_TABLES`) are not copied and are
  rebuilt from the copied rows, like every index on disk.
- **A new identity.** The target keeps an identity of its own (:mod:`herald.db.identity`), never
  the source's: from the copy on, the two go their own ways, and an index built from one is
  rebuilt when pointed at the other.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy import (
    JSON,
    Column,
    Connection,
    Engine,
    MetaData,
    Table,
    bindparam,
    func,
    inspect,
    select,
    text,
    update,
)
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.engine import make_url
from sqlalchemy.types import TypeEngine

from herald.db import models  # noqa: F401  (every table is known to the metadata)
from herald.db.base import Base
from herald.db.bulk import copy_target, copy_text, line_formatter
from herald.db.engine import WRITE_OPTION, make_engine
from herald.db.identity import renew_identity
from herald.db.migrate import SchemaAhead, is_up_to_date, refuse_ahead, upgrade

BATCH = 1000
_SQL_NULL = "__herald_sql_null__"  # label of the flag read beside each JSON column

# Projections of other tables that the search indexes rebuild from the copied rows; copying them
# from SQLite (where they stay empty) would only tell PostgreSQL its lexical index is current.
DERIVED_TABLES = {
    "content_search_documents": "the PostgreSQL lexical index, rebuilt from content_items",
    "search_projections": "how far each in-database index has applied changes",
}
# The target's own, never copied, and not a sign that Herald used the target: its migration
# wrote it (herald.db.identity); the copy gives the target a new one.
KEPT_TABLES = {"database_identity": "which database this is (a random id)"}
CHANGE_SEQUENCE = "content_change_seq"  # PostgreSQL only (herald.content.changes)
ENTITY_REMOVAL_SEQUENCE = "entity_removal_seq"  # PostgreSQL only (migration 0024)


class CopyRefused(Exception):
    """The copy cannot start (or did not verify); nothing was written to the target."""


@dataclass(frozen=True)
class TableCount:
    table: str
    source_rows: int
    target_rows: int


# Called with (table, rows in the source) when a table starts, then (table, rows written).
ProgressHook = Callable[[str, int], None]


def copied_tables() -> list[Table]:
    """Every table of the schema but the derived and kept ones, parents before children."""
    skipped = DERIVED_TABLES.keys() | KEPT_TABLES.keys()
    return [t for t in Base.metadata.sorted_tables if t.name not in skipped]


def _checked_tables() -> list[Table]:
    """The tables that hold rows once Herald used a database (what a copy target must not)."""
    return [t for t in Base.metadata.sorted_tables if t.name not in KEPT_TABLES]


def describe(url: str) -> str:
    """The URL without its password (after the user name or as a parameter), for messages."""
    parsed = make_url(url).difference_update_query(["password"])
    return parsed.render_as_string(hide_password=True)


def nonempty_tables(engine: Engine) -> list[str]:
    """Herald's tables that already hold rows in ``engine``'s database."""
    existing = set(inspect(engine).get_table_names())
    found = []
    with engine.connect() as connection:
        for table in _checked_tables():
            if table.name in existing and _has_rows(connection, table):
                found.append(table.name)
    return found


def copy_database(
    source_url: str,
    target_url: str,
    *,
    on_table: ProgressHook | None = None,
    on_rows: ProgressHook | None = None,
    batch: int = BATCH,
    use_copy: bool = True,
) -> list[TableCount]:
    """Copy every row of the source into the empty target (migrated to the latest schema first);
    returns the verified row counts per table. Raises :class:`CopyRefused` before writing
    anything when the source is behind or the target holds data. ``use_copy=False`` writes a
    PostgreSQL target with ``INSERT`` as a SQLite one is (for comparisons)."""
    if make_url(source_url) == make_url(target_url):
        raise CopyRefused("the source and the target are the same database")
    _refuse_missing_sqlite(source_url)
    source = make_engine(source_url, pool_size=1)
    target = make_engine(target_url, pool_size=1)
    try:
        try:
            refuse_ahead(source, source_url)
        except SchemaAhead as exc:
            raise CopyRefused(f"the source: {exc}") from None
        if not is_up_to_date(source, source_url):
            raise CopyRefused(
                f"the source database {describe(source_url)} is not at the latest schema: run "
                "`herald db upgrade` with HERALD_DATABASE_URL set to it first"
            )
        _refuse_nonempty(target, target_url)
        target.dispose()
        upgrade(target_url)
        with _snapshot(source) as reader, _write_transaction(target) as writer:
            _refuse_nonempty_in(writer, target_url)
            counts = []
            for table in copied_tables():
                total = _count(reader, table)
                if on_table is not None:
                    on_table(table.name, total)
                _copy_table(reader, writer, table, batch=batch, on_rows=on_rows, use_copy=use_copy)
                counts.append(TableCount(table.name, total, _count(writer, table)))
            wrong = [c for c in counts if c.source_rows != c.target_rows]
            if wrong:
                listed = ", ".join(f"{c.table} {c.target_rows}/{c.source_rows}" for c in wrong)
                raise CopyRefused(f"row counts differ after the copy ({listed}); nothing written")
            if writer.dialect.name == "postgresql":
                _advance_sequences(writer)
            renew_identity(writer)
        return counts
    finally:
        source.dispose()
        target.dispose()


def _refuse_missing_sqlite(url: str) -> None:
    """Opening a SQLite file that is not there would create it: say so instead."""
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite" and not Path(parsed.database or "").is_file():
        raise CopyRefused(f"there is no SQLite database at {parsed.database or '(no path)'}")


def _refuse_nonempty(engine: Engine, url: str) -> None:
    found = nonempty_tables(engine)
    if found:
        raise CopyRefused(_nonempty_message(url, found))


def _refuse_nonempty_in(connection: Connection, url: str) -> None:
    found = [t.name for t in _checked_tables() if _has_rows(connection, t)]
    if found:
        raise CopyRefused(_nonempty_message(url, found))


def _nonempty_message(url: str, tables: list[str]) -> str:
    shown = ", ".join(tables[:5]) + (", ..." if len(tables) > 5 else "")
    return (
        f"the target database {describe(url)} is not empty ({shown} hold rows): copy into a new, "
        "empty database (one Herald has not started on yet)"
    )


def _has_rows(connection: Connection, table: Table) -> bool:
    return connection.execute(select(1).select_from(table).limit(1)).first() is not None


def _count(connection: Connection, table: Table) -> int:
    return int(connection.execute(select(func.count()).select_from(table)).scalar_one())


@contextmanager
def _snapshot(engine: Engine) -> Iterator[Connection]:
    options: dict[str, Any] = {}
    if engine.dialect.name == "postgresql":
        options["isolation_level"] = "REPEATABLE READ"
    with engine.connect().execution_options(**options) as connection, connection.begin():
        yield connection


@contextmanager
def _write_transaction(engine: Engine) -> Iterator[Connection]:
    connection = engine.connect().execution_options(**{WRITE_OPTION: True})
    with connection, connection.begin():
        yield connection


def _copy_table(
    reader: Connection,
    writer: Connection,
    table: Table,
    *,
    batch: int,
    on_rows: ProgressHook | None,
    use_copy: bool,
) -> None:
    """Stream the table's rows in primary-key order; a column referring to the same table (a
    run's parent run) is written after every row exists, so the order of rows never matters."""
    write = _batch_writer(writer, table, use_copy=use_copy)
    self_refs = [fk.parent.name for fk in table.foreign_keys if fk.column.table is table]
    json_columns = [c for c in table.columns if isinstance(c.type, JSON)]
    later: list[dict[str, Any]] = []
    query = select(table, *(c.is_(None).label(_SQL_NULL + c.name) for c in json_columns))
    # Streamed (a server-side cursor on PostgreSQL) for this statement only, not every later
    # one on the connection, and closed however the reading ends.
    with reader.execute(
        query.order_by(*table.primary_key.columns).execution_options(yield_per=batch)
    ) as result:
        keys = [c.name for c in table.primary_key.columns]
        names = list(result.keys())
        for rows in result.partitions(batch):
            # Dicts made from the plain rows cost less than converting each row's mapping.
            values = [dict(zip(names, row, strict=True)) for row in rows]
            values = [_json_nulls_kept(row, json_columns) for row in values]
            if self_refs:
                later += [
                    {name: row[name] for name in keys + self_refs}
                    for row in values
                    if any(row[name] is not None for name in self_refs)
                ]
                values = [row | dict.fromkeys(self_refs) for row in values]
            write(values)
            if on_rows is not None:
                on_rows(table.name, len(values))
    _restore_self_references(writer, table, self_refs, later, batch=batch)


def _batch_writer(
    writer: Connection, table: Table, *, use_copy: bool
) -> Callable[[list[dict[str, Any]]], None]:
    """One ``COPY`` per batch on PostgreSQL, else one ``INSERT`` of the batch's rows."""
    if use_copy and writer.dialect.name == "postgresql":
        target = copy_target(table, writer.dialect)
        line = line_formatter(table, writer.dialect)

        def copy(rows: list[dict[str, Any]]) -> None:
            copy_text(writer, target, map(line, rows))

        return copy
    insert = _writable(table).insert()

    def execute(rows: list[dict[str, Any]]) -> None:
        writer.execute(insert, rows)

    return execute


def _restore_self_references(
    writer: Connection, table: Table, columns: list[str], rows: list[dict[str, Any]], *, batch: int
) -> None:
    if not rows:
        return
    keys = [c.name for c in table.primary_key.columns]
    statement = (
        update(table)
        .where(*(table.c[k] == bindparam(f"key_{k}") for k in keys))
        .values({c: bindparam(f"value_{c}") for c in columns})
    )
    params = [
        {f"key_{k}": row[k] for k in keys} | {f"value_{c}": row[c] for c in columns} for row in rows
    ]
    for start in range(0, len(params), batch):
        writer.execute(statement, params[start : start + batch])


def _json_nulls_kept(row: dict[str, Any], json_columns: list[Column[Any]]) -> dict[str, Any]:
    """Both SQL ``NULL`` and the JSON value ``null`` read as ``None``; the flag read beside each
    JSON column tells them apart, and each is written back as it was."""
    for column in json_columns:
        was_sql_null = row.pop(_SQL_NULL + column.name)
        if row[column.name] is None and not was_sql_null:
            row[column.name] = JSON.NULL
    return row


def _writable(table: Table) -> Table:
    """The table as inserts see it: ``None`` in a JSON column is SQL ``NULL`` (the models write
    it as the JSON value ``null``, which :data:`JSON.NULL` now says explicitly)."""
    columns = [
        Column(c.name, _sql_null_json(c.type), primary_key=c.primary_key) for c in table.columns
    ]
    return Table(table.name, MetaData(), *columns)


def _sql_null_json(type_: TypeEngine[Any]) -> TypeEngine[Any]:
    if not isinstance(type_, JSON):
        return type_
    adapted: TypeEngine[Any] = JSON(none_as_null=True)
    variants: dict[str, TypeEngine[Any]] = getattr(type_, "_variant_mapping", {})
    for dialect, variant in variants.items():
        if isinstance(variant, JSONB):
            variant = JSONB(none_as_null=True)
        adapted = adapted.with_variant(variant, dialect)
    return adapted


def _advance_sequences(writer: Connection) -> None:
    """Move PostgreSQL's sequences past the copied values: identity columns, the content
    change sequence (whose next number must exceed every copied ``change_seq``) and the entity
    removal sequence (every copied ``entity_removals.seq``)."""
    for table in copied_tables():
        for column in table.primary_key.columns:
            sequence = writer.execute(
                text("SELECT pg_get_serial_sequence(:table, :column)"),
                {"table": table.name, "column": column.name},
            ).scalar_one()
            if sequence is None:
                continue
            highest = writer.execute(select(func.max(column))).scalar_one()
            if highest is not None:
                writer.execute(
                    text("SELECT setval(:seq, :value)"), {"seq": sequence, "value": highest}
                )
    highest_change = writer.execute(
        text(
            "SELECT greatest((SELECT max(change_seq) FROM content_items), "
            "(SELECT max(change_seq) FROM content_removals))"
        )
    ).scalar_one()
    if highest_change is not None and highest_change > 0:
        writer.execute(
            text(f"SELECT setval('{CHANGE_SEQUENCE}', :value)"), {"value": int(highest_change)}
        )
    highest_removal = writer.execute(text("SELECT max(seq) FROM entity_removals")).scalar_one()
    if highest_removal is not None and highest_removal > 0:
        writer.execute(
            text(f"SELECT setval('{ENTITY_REMOVAL_SEQUENCE}', :value)"),
            {"value": int(highest_removal)},
        )
