"""Bulk writes on PostgreSQL: many rows in one ``COPY`` stream instead of a statement per row."""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from datetime import date
from typing import Any

import psycopg
from sqlalchemy import (
    JSON,
    Boolean,
    Connection,
    Date,
    DateTime,
    Float,
    Integer,
    LargeBinary,
    Numeric,
    String,
    Table,
    TypeDecorator,
)
from sqlalchemy.engine import Dialect
from sqlalchemy.exc import DBAPIError
from sqlalchemy.schema import ColumnDefault
from sqlalchemy.types import TypeEngine

_COPY_BLOCK = 1 << 20  # characters sent per write
NULL = "\\N"  # COPY text format's SQL NULL


Formatter = Callable[[Any], str]


def copy_text(connection: Connection, target: str, chunks: Iterable[str]) -> None:
    """``COPY target FROM STDIN`` in the connection's transaction (PostgreSQL), with data already
    in COPY's text format: columns separated by tabs, one line per row, every value escaped by the
    caller (rows of integers and plain identifiers need no escaping; :func:`line_formatter`
    escapes any row of a table).

    ``target`` is ``table (column, ...)``. COPY checks constraints as an INSERT does: a duplicate
    key fails the statement (and the transaction), so callers send only rows they know to be new.
    Writing the text directly costs a fraction of adapting every value of every row."""
    raw = connection.connection.driver_connection
    assert isinstance(raw, psycopg.Connection)
    statement = f"COPY {target} FROM STDIN"
    try:
        with raw.cursor() as cursor, cursor.copy(statement) as copy:
            buffer: list[str] = []
            size = 0
            for chunk in chunks:
                buffer.append(chunk)
                size += len(chunk)
                if size >= _COPY_BLOCK:
                    copy.write("".join(buffer))
                    buffer, size = [], 0
            if buffer:
                copy.write("".join(buffer))
    except psycopg.Error as exc:
        # As SQLAlchemy raises a statement's error (OperationalError for a dropped connection,
        # IntegrityError for a duplicate key), so callers handle COPY like any statement.
        raise DBAPIError.instance(statement, None, exc, psycopg.Error) from exc


def copy_rows(connection: Connection, table: Table, rows: Sequence[Mapping[str, Any]]) -> None:
    """Insert ``rows`` (values keyed by column name, every row naming the same columns) with one
    ``COPY``, storing what a Core ``INSERT`` of them stores: the columns the rows leave out get
    their model default (a constant, or a function called for each row), else the database's
    own. Values are written as :func:`column_formatter` writes their column's type."""
    if not rows:
        return
    dialect = connection.dialect
    named = list(rows[0])
    given = set(named)
    for row in rows:
        if len(row) != len(named) or not given.issuperset(row):
            raise ValueError("every row must name the same columns")
    defaulted: list[tuple[str, Callable[[], Any]]] = []
    for column in table.columns:
        default = column.default
        if column.name in given or default is None:
            continue
        if isinstance(default, ColumnDefault) and default.is_scalar:
            defaulted.append((column.name, functools.partial(_constant, default.arg)))
        elif isinstance(default, ColumnDefault) and default.is_callable:
            defaulted.append((column.name, functools.partial(default.arg, None)))
        else:
            raise TypeError(f"no COPY for the default of {table.name}.{column.name}")
    names = named + [name for name, _ in defaulted]
    written = [column_formatter(table.c[name].type, dialect) for name in names]
    makers = [make for _, make in defaulted]
    target = copy_target(table, dialect, names)

    def lines() -> Iterator[str]:
        for row in rows:
            values = [row[name] for name in named]
            values.extend(make() for make in makers)
            yield "\t".join([fmt(value) for fmt, value in zip(written, values, strict=True)]) + "\n"

    copy_text(connection, target, lines())


def _constant(value: Any) -> Any:
    return value


def copy_target(table: Table, dialect: Dialect, names: Sequence[str] | None = None) -> str:
    """``table (column, ...)`` for :func:`copy_text` (``names``, or every column in the table's
    order), every name quoted where it needs it."""
    quote = dialect.identifier_preparer.quote
    columns = ", ".join(quote(n) for n in (names or [c.name for c in table.columns]))
    return f"{dialect.identifier_preparer.format_table(table)} ({columns})"


def line_formatter(table: Table, dialect: Dialect) -> Callable[[Mapping[str, Any]], str]:
    """Writes a row (values as the models read them, keyed by column name) as one line of COPY's
    text format, the columns in the table's order (:func:`copy_target`). Values are written as
    the column's type binds them on ``dialect``: JSON serialized (``JSON.NULL`` is the JSON value
    ``null``, ``None`` SQL ``NULL``), bytes as ``bytea`` hex, UTC instants with their offset,
    floats in their shortest exact form, text with its backslashes, tabs and newlines escaped."""
    columns = [(c.name, column_formatter(c.type, dialect)) for c in table.columns]

    def line(row: Mapping[str, Any]) -> str:
        return "\t".join([fmt(row[name]) for name, fmt in columns]) + "\n"

    return line


def column_formatter(type_: TypeEngine[Any], dialect: Dialect) -> Formatter:
    """How a value of ``type_`` is written in COPY's text format; a type this module does not
    know is refused here, before any row is sent."""
    impl = type_.dialect_impl(dialect)
    if isinstance(impl, TypeDecorator):
        decorator = impl
        inner = column_formatter(decorator.load_dialect_impl(dialect), dialect)

        def decorated(value: Any) -> str:
            return inner(decorator.process_bind_param(value, dialect))

        return decorated
    if isinstance(impl, JSON):
        return _json_formatter(getattr(dialect, "_json_serializer", None) or json.dumps)
    for kind, formatter in _FORMATTERS:
        if isinstance(impl, kind):
            return formatter
    raise TypeError(f"no COPY text format for the column type {impl!r}")


def _json_formatter(serialize: Callable[[Any], str]) -> Formatter:
    def formatter(value: Any) -> str:
        if value is None:
            return NULL
        if value is JSON.NULL:
            return "null"
        return escape(serialize(value))

    return formatter


def escape(value: str) -> str:
    """``value`` as COPY's text format reads it back: a backslash starts an escape, a tab ends a
    column, a newline (or carriage return) ends a row; every other character stands for itself.
    (``str.replace`` returns the string itself when the character is absent: four scans cost
    less than one ``str.translate``.)"""
    return (
        value.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n").replace("\r", "\\r")
    )


# One function per type, each writing SQL NULL itself: a wrapper would double the calls per value.
def _boolean(value: Any) -> str:
    return NULL if value is None else ("t" if value else "f")


def _integer(value: Any) -> str:
    return NULL if value is None else str(int(value))


def _float(value: Any) -> str:
    # The shortest text that reads back as the same double (inf and nan as PostgreSQL reads them).
    return NULL if value is None else repr(float(value))


def _numeric(value: Any) -> str:
    return NULL if value is None else str(value)


def _text(value: Any) -> str:
    return NULL if value is None else escape(value)


def _binary(value: Any) -> str:
    return NULL if value is None else "\\\\x" + bytes(value).hex()  # bytea's hex form, escaped


def _timestamp(value: Any) -> str:
    # With its UTC offset when it has one (timestamptz), to the microsecond.
    return NULL if value is None else value.isoformat(sep=" ")


def _date(value: Any) -> str:
    return NULL if value is None else date.isoformat(value)


# Order matters: Boolean before Integer, Float before Numeric, DateTime before Date.
_FORMATTERS: list[tuple[type[TypeEngine[Any]], Formatter]] = [
    (Boolean, _boolean),
    (Integer, _integer),
    (Float, _float),
    (Numeric, _numeric),
    (String, _text),
    (LargeBinary, _binary),
    (DateTime, _timestamp),
    (Date, _date),
]
