"""The change sequence: how derived indexes learn what changed in content.

Every write that changes what a search index sees (new item, update, enrichment, deletion)
calls :func:`mark_changed` in the same transaction. Indexes remember the highest sequence they
applied and catch up with ``change_seq > watermark``.

PostgreSQL draws from a database sequence. Sequence values are taken at write time but become
visible at commit, so a reader can see 11 before a concurrent transaction commits 10: readers on
PostgreSQL re-read a margin below their watermark, and below the lowest number a transaction
still holds uncommitted (each holds an advisory lock on its numbers; see the search area).
SQLite has a single writer, so ``max + 1`` inside the write transaction is gap-free and
ordered; the maximum covers ``content_removals`` too, where a trigger records each deleted row
with the next number.
"""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import func, select, text, update
from sqlalchemy.orm import Session

from herald.db.models.content import (
    IN_FLIGHT_LOCK_BASE,
    PG_SEQUENCE,
    ContentItem,
    ContentRemoval,
)

__all__ = ["IN_FLIGHT_LOCK_BASE", "PG_SEQUENCE", "mark_changed", "next_change_seq"]
_DRAW = text(
    f"SELECT n, pg_advisory_xact_lock_shared({IN_FLIGHT_LOCK_BASE} + n)"
    f" FROM (SELECT nextval('{PG_SEQUENCE}') AS n) AS drawn"
)


def next_change_seq(session: Session) -> int:
    """A new change sequence number, for rows this transaction writes: stamp them with it as
    they are written (a bulk insert), or use :func:`mark_changed` on rows already written."""
    if session.get_bind().dialect.name == "postgresql":
        return int(session.execute(_DRAW).one()[0])
    session.flush()
    items = session.execute(select(func.max(ContentItem.change_seq))).scalar_one()
    removals = session.execute(select(func.max(ContentRemoval.change_seq))).scalar_one()
    return max(int(items or 0), int(removals or 0)) + 1


def mark_changed(session: Session, content_ids: Sequence[str]) -> int:
    """Give ``content_ids`` a new change sequence number; returns it."""
    if not content_ids:
        return 0
    session.flush()
    value = next_change_seq(session)
    session.execute(
        update(ContentItem)
        .where(ContentItem.id.in_(list(content_ids)))
        .values(change_seq=value)
        .execution_options(synchronize_session=False)
    )
    return value
