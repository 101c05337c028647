"""The change sequence: how derived indexes learn what changed in content.

Every write that changes what a search index sees (new item, update, enrichment, deletion)
calls :func:`mark_changed` in the same transaction. Indexes remember the highest sequence they
applied and catch up with ``change_seq > watermark``.

PostgreSQL draws from a database sequence. Sequence values are taken at write time but become
visible at commit, so a reader can see 11 before a concurrent transaction commits 10: readers on
PostgreSQL must re-read a margin below their watermark (see the search area). SQLite has a single
writer, so ``max + 1`` inside the write transaction is gap-free and ordered.
"""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import func, select, text, update
from sqlalchemy.orm import Session

from herald.db.models.content import ContentItem

PG_SEQUENCE = "content_change_seq"


def mark_changed(session: Session, content_ids: Sequence[str]) -> int:
    """Give ``content_ids`` a new change sequence number; returns it."""
    if not content_ids:
        return 0
    session.flush()
    if session.get_bind().dialect.name == "postgresql":
        value = int(session.execute(text(f"SELECT nextval('{PG_SEQUENCE}')")).scalar_one())
    else:
        current = session.execute(select(func.max(ContentItem.change_seq))).scalar_one()
        value = int(current or 0) + 1
    session.execute(
        update(ContentItem)
        .where(ContentItem.id.in_(list(content_ids)))
        .values(change_seq=value)
        .execution_options(synchronize_session=False)
    )
    return value
