"""New names are staged: a discovered entity is a candidate until it is confirmed.

Linking makes an entity of its own for a confident name the knowledge base lacks (a discovered
entity, its id fixed by its kind and name). It is stored as a *candidate*: the items that name it
link to it, but the knowledge base linking consults (in every process) holds only active
entities, so a candidate never changes how another item is linked. A candidate becomes active
(confirmed) when live items from enough distinct sources name it (:class:`ConfirmRule`:
``HERALD_ENTITY_CONFIRM_ITEMS`` items from ``HERALD_ENTITY_CONFIRM_SOURCES`` sources), or when
an operator accepts it (``herald entities review --accept``); an operator may also reject it,
and a rejected entity is never linked again.

When an entity becomes active, every item linked to an entity of one of its names (the
candidate itself, or a candidate of another kind under the same name: one item may have guessed
"person" where the others said "company") is enriched again by a durable job queued in the same
transaction, now with the entity in the knowledge base. So the links an item ends with depend on
the set of items stored, not on the order they arrived in nor on the process that read them.

Counting is serialised (an advisory lock on PostgreSQL, the single writer on SQLite), so two
batches committing at once cannot each count the other's items as missing.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import ColumnElement, delete, func, select, text
from sqlalchemy.orm import Session

from herald.content.changes import mark_changed
from herald.core.clock import Clock
from herald.db.dialect import insert_for
from herald.db.models.content import ContentEntity, ContentItem
from herald.db.models.entity import ContentName, Entity, EntityAlias
from herald.enrich.queueing import queue_enrichment
from herald.errors import NotFound

ACTIVE = "active"
CANDIDATE = "candidate"
REJECTED = "rejected"

_CHUNK = 500
# The PostgreSQL advisory lock that serialises counting and confirming candidates.
_COUNT_LOCK = 0x6865_7261_6C64_0002


@dataclass(frozen=True, slots=True)
class ConfirmRule:
    """A candidate is confirmed once ``items`` live items from ``sources`` distinct sources
    link to it (a source is the item's domain, or its source name when it has none)."""

    items: int = 3
    sources: int = 2

    def met(self, items: int, sources: int) -> bool:
        return items >= self.items and sources >= self.sources


@dataclass(frozen=True, slots=True)
class Candidate:
    """A staged name, with what confirms it so far."""

    id: str
    display_name: str
    entity_kind: str
    status: str
    items: int  # live items linked to it
    sources: int  # distinct sources of those items
    first_seen: datetime

    def as_dict(self) -> dict[str, object]:
        return {
            "id": self.id,
            "display_name": self.display_name,
            "entity_kind": self.entity_kind,
            "status": self.status,
            "items": self.items,
            "sources": self.sources,
            "first_seen": self.first_seen.isoformat(),
        }


def _source() -> ColumnElement[str]:
    return func.coalesce(func.nullif(ContentItem.source_domain, ""), ContentItem.source_name)


def counts(session: Session, entity_ids: Iterable[str]) -> dict[str, tuple[int, int]]:
    """``id -> (items, sources)``: the live items linked to each entity and their sources."""
    ids = sorted(set(entity_ids))
    found: dict[str, tuple[int, int]] = {}
    for start in range(0, len(ids), _CHUNK):
        query = (
            select(
                ContentEntity.entity_id,
                func.count(func.distinct(ContentEntity.content_id)),
                func.count(func.distinct(_source())),
            )
            .join(ContentItem, ContentItem.id == ContentEntity.content_id)
            .where(
                ContentEntity.entity_id.in_(ids[start : start + _CHUNK]),
                ContentItem.deleted_at.is_(None),
            )
            .group_by(ContentEntity.entity_id)
        )
        found.update({eid: (int(n), int(s)) for eid, n, s in session.execute(query)})
    return found


def confirm_reached(
    session: Session, entity_ids: Iterable[str], rule: ConfirmRule, *, clock: Clock
) -> list[str]:
    """Confirm those of ``entity_ids`` that are candidates meeting ``rule`` (in the caller's
    transaction, after it wrote its links); returns the ids confirmed."""
    ids = sorted(set(entity_ids))
    if not ids:
        return []
    _lock(session)
    staged = [
        eid
        for start in range(0, len(ids), _CHUNK)
        for eid in session.scalars(
            select(Entity.id).where(
                Entity.id.in_(ids[start : start + _CHUNK]), Entity.status == CANDIDATE
            )
        )
    ]
    if not staged:
        return []
    reached = [eid for eid, (n, s) in counts(session, staged).items() if rule.met(n, s)]
    _activate(session, sorted(reached), clock=clock)
    return sorted(reached)


def accept(session: Session, entity_id: str, *, clock: Clock) -> Candidate:
    """An operator confirms a candidate (or restores a rejected entity): it becomes active and
    the items naming it are enriched again."""
    row = _staged(session, entity_id)
    _lock(session)
    if row.status != ACTIVE:
        _activate(session, [entity_id], clock=clock)
    return _describe(session, [entity_id])[0]


def reject(session: Session, entity_id: str, *, clock: Clock) -> Candidate:
    """An operator refuses a discovered entity (a candidate, or one confirmed by mistake): its
    links are removed, the items that held them are enriched again, and linking never links it
    again."""
    row = _staged(session, entity_id)
    if row.origin != "discovered":
        raise ValueError(f"{entity_id} is in the knowledge base, not discovered: edit it there")
    _lock(session)
    linked = _linked_items(session, [entity_id])
    _set_status(session, [entity_id], REJECTED, clock=clock)
    session.execute(delete(ContentEntity).where(ContentEntity.entity_id == entity_id))
    if linked:
        mark_changed(session, linked)  # search indexes re-read the items' entities
    _relink(session, linked, clock=clock)
    return _describe(session, [entity_id])[0]


def list_candidates(
    session: Session, *, status: str = CANDIDATE, limit: int = 50
) -> list[Candidate]:
    """Entities of ``status`` that linking discovered, those named by the most sources and items
    first (one query, however many candidates there are)."""
    live = (
        select(
            ContentEntity.entity_id,
            ContentEntity.content_id,
            _source().label("source"),
        )
        .join(ContentItem, ContentItem.id == ContentEntity.content_id)
        .where(ContentItem.deleted_at.is_(None))
        .subquery()
    )
    items = func.count(func.distinct(live.c.content_id))
    sources = func.count(func.distinct(live.c.source))
    columns = (Entity.id, Entity.display_name, Entity.entity_kind, Entity.status, Entity.created_at)
    query = (
        select(*columns, items, sources)
        .outerjoin(live, live.c.entity_id == Entity.id)
        .where(Entity.origin == "discovered", Entity.status == status)
        .group_by(*columns)
        .order_by(sources.desc(), items.desc(), Entity.created_at, Entity.id)
        .limit(limit)
    )
    return [
        Candidate(eid, name, kind, state, first_seen=created, items=int(n), sources=int(s))
        for eid, name, kind, state, created, n, s in session.execute(query)
    ]


def _describe(session: Session, entity_ids: Sequence[str]) -> list[Candidate]:
    numbers = counts(session, entity_ids)
    out = []
    for start in range(0, len(entity_ids), _CHUNK):
        chunk = list(entity_ids[start : start + _CHUNK])
        for row in session.scalars(select(Entity).where(Entity.id.in_(chunk))):
            items, sources = numbers.get(row.id, (0, 0))
            out.append(
                Candidate(
                    row.id,
                    row.display_name,
                    row.entity_kind,
                    row.status,
                    items,
                    sources,
                    row.created_at,
                )
            )
    return out


def linked_candidates(session: Session, content_ids: Sequence[str]) -> list[str]:
    """The candidates the items link to (before the items are deleted: see
    :func:`drop_unnamed_candidates`)."""
    return sorted(
        set(
            session.scalars(
                select(ContentEntity.entity_id)
                .join(Entity, Entity.id == ContentEntity.entity_id)
                .where(ContentEntity.content_id.in_(list(content_ids)), Entity.status == CANDIDATE)
            )
        )
    )


def drop_unnamed_candidates(session: Session, entity_ids: Sequence[str]) -> list[str]:
    """Delete those of the candidates no item links to any more (the items naming them were
    deleted): a name found only in deleted items goes with them. Returns the ids deleted.

    Each row is locked first and its links read after, so a link another transaction has just
    written is seen; a row being linked right now (locked) is kept. Every process's entity
    search drops a deleted row at its next catch-up."""
    if not entity_ids:
        return []
    locked = list(
        session.scalars(
            select(Entity.id)
            .where(Entity.id.in_(list(entity_ids)), Entity.status == CANDIDATE)
            .order_by(Entity.id)
            .with_for_update(skip_locked=True)
        )
    )
    if not locked:
        return []
    named = set(
        session.scalars(
            select(ContentEntity.entity_id).where(ContentEntity.entity_id.in_(locked)).distinct()
        )
    )
    unnamed = [eid for eid in locked if eid not in named]
    if unnamed:
        session.execute(delete(Entity).where(Entity.id.in_(unnamed)))
    return unnamed


def _staged(session: Session, entity_id: str) -> Entity:
    row = session.get(Entity, entity_id)
    if row is None:
        raise NotFound(f"no entity {entity_id}")
    return row


def _lock(session: Session) -> None:
    if session.get_bind().dialect.name == "postgresql":
        session.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": _COUNT_LOCK})


def _activate(session: Session, entity_ids: Sequence[str], *, clock: Clock) -> None:
    """Make the entities active (every process's knowledge base picks them up by their new
    ``updated_at``) and queue enrichment of the items naming them."""
    if not entity_ids:
        return
    _set_status(session, entity_ids, ACTIVE, clock=clock)
    linked = _linked_items(session, _same_names(session, entity_ids))
    _relink(session, sorted({*linked, *_naming_items(session, entity_ids)}), clock=clock)


def _set_status(session: Session, entity_ids: Sequence[str], status: str, *, clock: Clock) -> None:
    """Set the entities' status with a newer ``updated_at`` than they had (by a microsecond at
    least: the views of the knowledge base see a row change by its ``updated_at``)."""
    now = clock.now()
    for row in session.scalars(select(Entity).where(Entity.id.in_(list(entity_ids)))):
        row.status = status
        row.updated_at = max(now, row.updated_at + timedelta(microseconds=1))
    session.flush()


def write_names(session: Session, content_id: str, keys: Sequence[str]) -> None:
    """Replace the item's unlinked name keys (see :class:`ContentName`)."""
    session.execute(delete(ContentName).where(ContentName.content_id == content_id))
    wanted = sorted({key[:300] for key in keys if key})
    if wanted:
        session.execute(
            insert_for(session, ContentName)
            .values([{"content_id": content_id, "name_key": key} for key in wanted])
            .on_conflict_do_nothing()
        )


def _naming_items(session: Session, entity_ids: Sequence[str]) -> list[str]:
    """The items holding an unlinked name that is a name key of one of the entities."""
    keys = select(EntityAlias.alias_norm).where(EntityAlias.entity_id.in_(list(entity_ids)))
    query = select(ContentName.content_id).where(ContentName.name_key.in_(keys))
    return sorted(set(session.scalars(query)))


def _same_names(session: Session, entity_ids: Sequence[str]) -> list[str]:
    """``entity_ids`` and the candidates sharing one of their name keys."""
    keys = select(EntityAlias.alias_norm).where(EntityAlias.entity_id.in_(list(entity_ids)))
    query = (
        select(EntityAlias.entity_id)
        .join(Entity, Entity.id == EntityAlias.entity_id)
        .where(EntityAlias.alias_norm.in_(keys), Entity.status == CANDIDATE)
    )
    return sorted({*entity_ids, *session.scalars(query)})


def _linked_items(session: Session, entity_ids: Sequence[str]) -> list[str]:
    found: set[str] = set()
    for start in range(0, len(entity_ids), _CHUNK):
        found.update(
            session.scalars(
                select(ContentEntity.content_id).where(
                    ContentEntity.entity_id.in_(list(entity_ids[start : start + _CHUNK]))
                )
            )
        )
    return sorted(found)


def _relink(session: Session, content_ids: Sequence[str], *, clock: Clock) -> None:
    if content_ids:
        queue_enrichment(session, content_ids, clock=clock)
