"""What the in-memory entity views (:mod:`herald.entities.views`) read to catch up with the
entity table: a signature of the table, the versions written at recent timestamps, the removal
log, and which ids are stored or were merged away."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from sqlalchemy import case, func, select
from sqlalchemy.orm import Session

from herald.db.models.entity import Entity, EntityRedirect, EntityRemoval

_CHUNK = 500


Signature = tuple[int, datetime | None, int, datetime | None, int, int, int]


def entity_signature(session: Session) -> Signature:
    """(row count, latest ``updated_at``, redirect count, latest redirect, active count,
    rejected count, latest removal), in one query: changes whenever an entity is written, merged
    into another, deleted, or changes status (also when its new ``updated_at`` is not the
    latest)."""
    redirects = select(func.count()).select_from(EntityRedirect).scalar_subquery()
    merged = select(func.max(EntityRedirect.created_at)).scalar_subquery()
    removed = select(func.max(EntityRemoval.seq)).scalar_subquery()
    active = func.sum(case((Entity.status == "active", 1), else_=0))
    rejected = func.sum(case((Entity.status == "rejected", 1), else_=0))
    count, latest, redirect_count, merged_at, actives, rejects, removal = session.execute(
        select(
            func.count(), func.max(Entity.updated_at), redirects, merged, active, rejected, removed
        ).select_from(Entity)
    ).one()
    return (
        int(count),
        latest,
        int(redirect_count),
        merged_at,
        int(actives or 0),
        int(rejects or 0),
        int(removal or 0),
    )


def entity_removals_since(session: Session, after: int) -> list[tuple[str, int]]:
    """``(entity_id, seq)`` of the entities deleted with a number above ``after``."""
    query = select(EntityRemoval.entity_id, EntityRemoval.seq).where(EntityRemoval.seq > after)
    return [(str(eid), int(seq)) for eid, seq in session.execute(query)]


def entity_stamp_counts_since(session: Session, since: datetime | None) -> dict[datetime, int]:
    """How many entities carry each ``updated_at`` at or after ``since`` (all when ``None``).

    A write stamps all its rows with one time (the 40,000-entity seed is one stamp), so this is
    a handful of rows where the versions themselves would be tens of thousands."""
    query = select(Entity.updated_at, func.count()).group_by(Entity.updated_at)
    if since is not None:
        query = query.where(Entity.updated_at >= since)
    return {stamp: int(count) for stamp, count in session.execute(query)}


def entity_versions_at(session: Session, stamps: Sequence[datetime]) -> dict[str, datetime]:
    """``id -> updated_at`` of the entities stamped with one of ``stamps``."""
    versions: dict[str, datetime] = {}
    for start in range(0, len(stamps), _CHUNK):
        chunk = list(stamps[start : start + _CHUNK])
        query = select(Entity.id, Entity.updated_at).where(Entity.updated_at.in_(chunk))
        versions.update({row.id: row.updated_at for row in session.execute(query)})
    return versions


def stored_ids(session: Session, entity_ids: Sequence[str]) -> set[str]:
    """Those of ``entity_ids`` stored now, whatever their status."""
    found: set[str] = set()
    for start in range(0, len(entity_ids), _CHUNK):
        chunk = list(entity_ids[start : start + _CHUNK])
        found.update(session.scalars(select(Entity.id).where(Entity.id.in_(chunk))))
    return found


def redirected_ids(session: Session) -> list[str]:
    """The ids of every entity merged into another (they are no longer entities)."""
    return list(session.scalars(select(EntityRedirect.from_id)))
