"""Numbers PostgreSQL draws before commit, and the lowest one a running transaction still holds.

A reader that catches up with ``number > last read`` misses a transaction that drew its number
early and committed late. Each such transaction holds a shared advisory lock on its number until
it ends (key ``base + number``, a bigint: ``classid`` holds its high 32 bits, ``objid`` its low
ones), so a reader can find the lowest number still uncommitted and read again from there. Each
kind of number has its own ``base``, 2**48 apart.
"""

from __future__ import annotations

from sqlalchemy import text
from sqlalchemy.orm import Session

# The entity removal log (``entity_removals.seq``); migration 0029 makes its trigger take it.
ENTITY_REMOVAL_LOCK_BASE = 0x4846_0000_0000_0000

_IN_FLIGHT = text(
    "SELECT min(((classid::bigint - :high) << 32) + objid::bigint) FROM pg_locks"
    " WHERE locktype = 'advisory' AND objsubid = 1"
    " AND classid::bigint >= :high AND classid::bigint < :high + 65536"
    " AND database = (SELECT oid FROM pg_database WHERE datname = current_database())"
)


def lowest_in_flight(session: Session, base: int) -> int | None:
    """PostgreSQL: the lowest number under ``base`` locked by a transaction still running, None
    when none is; None on SQLite, whose writers commit in the order of their numbers."""
    if session.get_bind().dialect.name != "postgresql":
        return None
    value = session.execute(_IN_FLIGHT, {"high": base >> 32}).scalar_one()
    return None if value is None else int(value)
