"""Reading content changes for the search projections (all SQL that search runs on content).

The feed is ``content_items.change_seq``: every write that changes what an index sees gives the
item a new, higher sequence number; a tombstoned item keeps its row with ``deleted_at`` set. A
row deleted outright is in ``content_removals`` (written by a database trigger) with the number
of its removal: the feed is both tables, and an id with no row left is a removal.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from sqlalchemy import select, text
from sqlalchemy.orm import Session

from herald.db.in_flight import lowest_in_flight
from herald.db.models.content import (
    IN_FLIGHT_LOCK_BASE,
    ContentEmbedding,
    ContentEntity,
    ContentItem,
    ContentRemoval,
)
from herald.search.documents import IndexedItem

_CHUNK = 900  # SQLite's bound-parameter limit is 999


@dataclass(frozen=True, slots=True)
class ChangeSummary:
    """Rows with ``change_seq > low``: how many, the sum of their sequences, the highest one.

    On PostgreSQL a transaction can commit a sequence number lower than one already visible, so a
    projection watches a margin below its watermark: any commit landing there changes the count
    or the sum, even when the highest sequence does not move.
    """

    low: int
    count: int
    total: int
    top: int


@dataclass(frozen=True, slots=True)
class Change:
    content_id: str
    seq: int
    item: IndexedItem | None  # None: the item is deleted


_SUMMARY = text(
    "SELECT count(*), coalesce(sum(change_seq), 0), coalesce(max(change_seq), 0) FROM ("
    "SELECT change_seq FROM content_items WHERE change_seq > :low UNION ALL "
    "SELECT change_seq FROM content_removals WHERE change_seq > :low) AS changes"
)


def summarize(session: Session, low: int) -> ChangeSummary:
    """Two indexed range reads in one statement; every search runs it (the projections'
    freshness check)."""
    count, total, top = session.execute(_SUMMARY, {"low": low}).one()
    return ChangeSummary(low, int(count), int(total), max(int(top), low))


_LATEST = text(
    "SELECT coalesce(max(seq), 0) FROM ("
    "SELECT max(change_seq) AS seq FROM content_items UNION ALL "
    "SELECT max(change_seq) FROM content_removals) AS latest"
)


def latest_change(session: Session) -> int:
    """The highest change sequence number in the database (two index lookups). An index that
    applied a higher one was built from another state of the data, newer than this one: the
    database was restored from a backup or copied from an earlier state since."""
    return int(session.execute(_LATEST).scalar_one())


def in_flight_floor(session: Session) -> int | None:
    """PostgreSQL: the lowest change number drawn by a transaction still running (it holds an
    advisory lock on it until it ends, :data:`herald.db.models.content.IN_FLIGHT_LOCK_BASE`), None
    when none is; None on SQLite, whose writers commit in sequence order."""
    return lowest_in_flight(session, IN_FLIGHT_LOCK_BASE)


def changed_since(session: Session, low: int) -> list[tuple[str, int]]:
    """``(content_id, change_seq)`` of every row and removal above ``low``, oldest change
    first."""
    items = select(ContentItem.id, ContentItem.change_seq).where(ContentItem.change_seq > low)
    removals = select(ContentRemoval.content_id, ContentRemoval.change_seq).where(
        ContentRemoval.change_seq > low
    )
    found = [(str(cid), int(seq)) for cid, seq in session.execute(items)]
    found += [(str(cid), int(seq)) for cid, seq in session.execute(removals)]
    found.sort(key=lambda change: (change[1], change[0]))
    return found


def load_changes(
    session: Session, content_ids: Sequence[str], *, embedding_model: str | None
) -> list[Change]:
    """The current state of each item as the indexes need it (its vector only if it was made by
    ``embedding_model``, the model that embeds queries; ``None`` accepts any). An id whose row
    was deleted outright is a removal, at the sequence number its removal was recorded with."""
    out: list[Change] = []
    for start in range(0, len(content_ids), _CHUNK):
        chunk = list(content_ids[start : start + _CHUNK])
        rows = session.execute(  # the columns indexes need, not whole ORM objects
            select(
                ContentItem.id,
                ContentItem.title,
                ContentItem.summary,
                ContentItem.key_points,
                ContentItem.body,
                ContentItem.published_at,
                ContentItem.media_type,
                ContentItem.source_domain,
                ContentItem.language,
                ContentItem.deleted_at,
                ContentItem.change_seq,
            ).where(ContentItem.id.in_(chunk))
        ).all()
        entities: dict[str, list[str]] = {}
        for cid, eid in session.execute(
            select(ContentEntity.content_id, ContentEntity.entity_id)
            .where(ContentEntity.content_id.in_(chunk))
            .order_by(ContentEntity.content_id, ContentEntity.entity_id)
        ):
            entities.setdefault(cid, []).append(eid)
        vectors: dict[str, np.ndarray] = {}
        for cid, model, vector in session.execute(
            select(
                ContentEmbedding.content_id, ContentEmbedding.model, ContentEmbedding.vector
            ).where(ContentEmbedding.content_id.in_(chunk))
        ):
            if embedding_model is None or model == embedding_model:
                vectors[cid] = np.frombuffer(vector, dtype="<f4").astype(np.float32)
        for row in rows:
            if row.deleted_at is not None:
                out.append(Change(row.id, int(row.change_seq), None))
                continue
            item = IndexedItem(
                content_id=row.id,
                title=row.title,
                summary=row.summary or "",
                key_points=tuple(row.key_points or ()),
                body=row.body or "",  # podcasts: the transcript text
                published=row.published_at,
                media_type=row.media_type,
                domain=row.source_domain,
                language=row.language,
                entity_ids=tuple(entities.get(row.id, ())),
                vector=vectors.get(row.id),
                seq=int(row.change_seq),
            )
            out.append(Change(row.id, item.seq, item))
        gone = set(chunk) - {row.id for row in rows}
        if gone:
            for cid, seq in session.execute(
                select(ContentRemoval.content_id, ContentRemoval.change_seq).where(
                    ContentRemoval.content_id.in_(sorted(gone))
                )
            ):
                out.append(Change(cid, int(seq), None))
    out.sort(key=lambda c: (c.seq, c.content_id))
    return out
