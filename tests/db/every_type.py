"""Every copied table filled with awkward values of each of its columns' types.

Three rows per table, each value chosen by the column's type: text with astral characters,
combining marks, right-to-left and bidirectional controls, a byte-order mark, COPY's special
characters and a three-hour transcript's length; instants at year 1, a microsecond before
midnight UTC and the end of year 9999; the ends of 32- and 64-bit integers; the smallest
subnormal, negative zero and the largest float; binary of every byte value and of 1 MiB; JSON
``null``, SQL ``NULL``, empty arrays and nested objects with unicode keys and integers beyond
64 bits. Foreign keys point at rows of their tables (a table referring to itself: at its first
row), so both databases accept every row.
"""

from __future__ import annotations

from datetime import UTC, date, datetime
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    Column,
    Date,
    Float,
    Integer,
    LargeBinary,
    String,
    Table,
    Text,
    create_engine,
    insert,
    null,
)

from herald.db.base import UTCDateTime
from herald.db.copy import copied_tables
from herald.db.migrate import upgrade

ROWS = 3
AWKWARD = (
    "\U0001d573 🎉 👨\u200d👩\u200d👧 e\u0301 ﷽ שלום عربي \u202e\u200f\ufeff\u2028 tab\t"
    "newline\n back\\slash \\N \"double\" 'single'"
)
TRANSCRIPT = (
    " ".join(
        f"[{hour:02d}:{minute:02d}] Speaker {minute % 3}: what was said then, ünïcödé 🎙."
        for hour in range(3)
        for minute in range(60)
    )
    * 40
)  # about 300,000 characters
INSTANTS = [
    datetime(1, 1, 1, tzinfo=UTC),
    datetime(2026, 11, 29, 23, 59, 59, 999999, tzinfo=UTC),
    datetime(9999, 12, 31, 23, 59, 59, 999999, tzinfo=UTC),
]
DAYS = [date(1, 1, 1), date(2024, 2, 29), date(9999, 12, 31)]
BLOBS = [bytes(range(256)) * 4 + b"\x00", b"", bytes(range(251)) * 4178]
NESTED = {
    "é🎉": [[], {}, None, 2**63, 2**70, -1.5, 0.1, "e\u0301\u202e"],
    "": {"a": {"b": [True, False, ""]}},
}


def value(
    table: Table, column: Column[Any], row: int, written: dict[str, list[dict[str, Any]]]
) -> Any:
    """The value of ``column`` in row ``row`` (0, 1 or 2) of ``table``."""
    type_ = column.type
    for key in column.foreign_keys:
        if key.column.table is table:
            return None if row == 0 else written[table.name][0][key.column.name]
        return written[key.column.table.name][row][key.column.name]
    if row == 1 and column.nullable and not column.primary_key:
        return null() if isinstance(type_, JSON) else None  # SQL NULL
    if isinstance(type_, UTCDateTime):
        return INSTANTS[row]
    if isinstance(type_, Date):
        return DAYS[row]
    if isinstance(type_, Boolean):
        return row != 1
    if isinstance(type_, BigInteger):
        return 2**53 + row if column.primary_key else [2**63 - 1, 0, -(2**63)][row]
    if isinstance(type_, Integer):
        return row + 1 if column.primary_key else [2**31 - 1, 0, -(2**31)][row]
    if isinstance(type_, Float):
        return [5e-324, -0.0, 1.7976931348623157e308][row]
    if isinstance(type_, LargeBinary):
        return BLOBS[row]
    if isinstance(type_, JSON):
        return [JSON.NULL, [], NESTED][row]  # the JSON value null, an empty array, nesting
    if isinstance(type_, Text):
        return [f"{row}{TRANSCRIPT}", f"{row}{AWKWARD}", f"{row}"][row]
    if isinstance(type_, String):
        text = f"{row}{AWKWARD}"
        return text[: type_.length] if type_.length else text
    raise TypeError(f"{table.name}.{column.name}: no awkward value for {type_!r}")


def fill_every_table(url: str) -> None:
    """Migrate the database of ``url`` and write :data:`ROWS` rows into every copied table."""
    upgrade(url)
    engine = create_engine(url)
    written: dict[str, list[dict[str, Any]]] = {}
    try:
        with engine.begin() as connection:
            if engine.dialect.name == "sqlite":
                connection.exec_driver_sql("PRAGMA foreign_keys=ON")
            for table in copied_tables():
                rows: list[dict[str, Any]] = []
                written[table.name] = rows
                for row in range(ROWS):
                    rows.append({c.name: value(table, c, row, written) for c in table.columns})
                connection.execute(insert(table), rows)
    finally:
        engine.dispose()
