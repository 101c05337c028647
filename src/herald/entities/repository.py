"""All SQL of the entity area: entities, their alias keys, and timelines; what the in-memory
views read to catch up with the table is in :mod:`herald.entities.table_changes`."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import and_, delete, select, text, update
from sqlalchemy.orm import Session

from herald.core.dates import Window
from herald.db.dialect import insert_for
from herald.db.models.content import ContentEntity, ContentItem
from herald.db.models.entity import (
    Entity,
    EntityAlias,
    EntityRedirect,
    EntitySeedLoad,
)
from herald.entities.model import EntityKind, EntityRecord, Tag, is_entity_kind
from herald.entities.names import name_keys

_CHUNK = 500


def to_record(row: Entity) -> EntityRecord:
    kind: EntityKind = row.entity_kind if is_entity_kind(row.entity_kind) else "organization"  # type: ignore[assignment]
    return EntityRecord(
        id=row.id,
        display_name=row.display_name,
        entity_kind=kind,
        description=row.description or "",
        aliases=tuple(row.aliases or ()),
        tags=tuple(Tag(str(t["key"]), str(t["value"])) for t in row.tags or () if "key" in t),
        origin=row.origin,
        status=row.status,
    )


def get_entity(session: Session, entity_id: str) -> EntityRecord | None:
    row = session.get(Entity, entity_id)
    return to_record(row) if row is not None else None


def seed_loaded(session: Session, digest: str) -> bool:
    return session.get(EntitySeedLoad, digest) is not None


def record_seed_load(
    session: Session, *, digest: str, source: str, written: int, now: datetime
) -> None:
    """Remember a seed file as loaded (a second process loading it at once is a no-op)."""
    row = {"digest": digest, "source": source, "written": written, "loaded_at": now}
    session.execute(insert_for(session, EntitySeedLoad).values(row).on_conflict_do_nothing())


def entities_by_ids(session: Session, entity_ids: Sequence[str]) -> list[EntityRecord]:
    found: list[EntityRecord] = []
    for start in range(0, len(entity_ids), _CHUNK):
        chunk = list(entity_ids[start : start + _CHUNK])
        found.extend(
            to_record(row) for row in session.scalars(select(Entity).where(Entity.id.in_(chunk)))
        )
    return found


def upsert_entities(
    session: Session,
    records: Sequence[EntityRecord],
    *,
    now: datetime,
    replace: bool = True,
) -> int:
    """Insert entities, or (``replace``) overwrite existing ones with the same id.

    With ``replace=False`` existing rows are left alone (seeding and discovery must never undo
    an operator's import), except that a seed's record (origin ``seed``) corrects a row still as
    a seed wrote it: a newer seed corrects its own entities, never an operator's. Alias keys are
    rewritten for every entity written. Returns how many entities were written.
    """
    written = 0
    for start in range(0, len(records), _CHUNK):
        chunk = list({r.id: r for r in records[start : start + _CHUNK]}.values())
        values = [_row_values(r, now) for r in chunk]
        statement = insert_for(session, Entity).values(values)
        if replace:
            statement = statement.on_conflict_do_update(
                index_elements=["id"],
                set_={
                    "display_name": statement.excluded.display_name,
                    "entity_kind": statement.excluded.entity_kind,
                    "description": statement.excluded.description,
                    "aliases": statement.excluded.aliases,
                    "tags": statement.excluded.tags,
                    "origin": statement.excluded.origin,
                    "status": statement.excluded.status,
                    "updated_at": statement.excluded.updated_at,
                },
            )
            chosen = chunk
        else:
            existing = {
                row.id: row
                for row in session.scalars(
                    select(Entity).where(Entity.id.in_([r.id for r in chunk]))
                )
            }
            chosen = [r for r in chunk if r.id not in existing]
            statement = statement.on_conflict_do_nothing(index_elements=["id"])
            chosen += _refresh_seed_rows(session, chunk, existing, now)
        session.execute(statement)
        if not chosen:
            continue
        ids = [r.id for r in chosen]
        session.execute(delete(EntityAlias).where(EntityAlias.entity_id.in_(ids)))
        alias_rows = [
            {"alias_norm": key[:300], "entity_id": r.id}
            for r in chosen
            for key in sorted(_alias_keys(r))
        ]
        if alias_rows:
            alias_insert = insert_for(session, EntityAlias).values(alias_rows)
            session.execute(alias_insert.on_conflict_do_nothing())
        written += len(chosen)
    return written


def _alias_keys(record: EntityRecord) -> set[str]:
    keys: set[str] = set()
    for name in (record.display_name, *record.aliases):
        keys |= name_keys(name)
    keys.discard("")
    return keys


def _refresh_seed_rows(
    session: Session, records: list[EntityRecord], rows: dict[str, Entity], now: datetime
) -> list[EntityRecord]:
    """Rewrite the ``rows`` still as a seed wrote them whose content differs from the seed's
    record of the same id; returns the records written."""
    written = []
    for record in records:
        row = rows.get(record.id)
        if row is None or row.origin != "seed" or record.origin != "seed":
            continue
        values = _row_values(record, now)
        if all(getattr(row, k) == values[k] for k in _CONTENT):
            continue
        del values["id"], values["created_at"]
        session.execute(
            update(Entity).where(Entity.id == record.id, Entity.origin == "seed").values(values)
        )
        written.append(record)
    return written


# What a seed's correction compares: the row's content, not its bookkeeping.
_CONTENT = ("display_name", "entity_kind", "description", "aliases", "tags")


def _row_values(record: EntityRecord, now: datetime) -> dict[str, Any]:
    return {
        "id": record.id,
        "display_name": record.display_name[:300],
        "entity_kind": record.entity_kind,
        "description": record.description,
        "aliases": list(record.aliases),
        "tags": [tag.as_dict() for tag in record.tags],
        "origin": record.origin,
        "status": record.status,
        "created_at": now,
        "updated_at": now,
    }


def discovered_after(session: Session, after_id: str, limit: int) -> list[EntityRecord]:
    """Discovered entities in id order, after ``after_id`` (``""``: from the first)."""
    query = (
        select(Entity)
        .where(Entity.origin == "discovered", Entity.id > after_id)
        .order_by(Entity.id)
        .limit(limit)
    )
    return [to_record(row) for row in session.scalars(query)]


def known_by_keys(session: Session, keys: Iterable[str]) -> dict[str, list[EntityRecord]]:
    """The entities not discovered by linking (seeded or imported) having each name key."""
    wanted = sorted({key[:300] for key in keys if key})
    found: dict[str, list[EntityRecord]] = {}
    for start in range(0, len(wanted), _CHUNK):
        query = (
            select(EntityAlias.alias_norm, Entity)
            .join(Entity, Entity.id == EntityAlias.entity_id)
            .where(
                EntityAlias.alias_norm.in_(wanted[start : start + _CHUNK]),
                Entity.origin != "discovered",
            )
        )
        for key, row in session.execute(query):
            found.setdefault(key, []).append(to_record(row))
    return found


# The PostgreSQL advisory lock between merges and the writes that link content to entities.
_MERGE_LOCK = 0x6865_7261_6C64_0001


def lock_for_merging(session: Session) -> None:
    """Hold off, until this transaction ends, every write that links content to entities (and
    wait for those in progress): a write that had read no redirect yet could otherwise bring a
    merged entity back. SQLite's single writer already serialises them."""
    if session.get_bind().dialect.name == "postgresql":
        session.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": _MERGE_LOCK})


def hold_off_merges(session: Session) -> None:
    """Keep merges from starting until this transaction ends (writes that link content take
    this first; any number of them hold it at once)."""
    if session.get_bind().dialect.name == "postgresql":
        session.execute(text("SELECT pg_advisory_xact_lock_shared(:key)"), {"key": _MERGE_LOCK})


def merge_entity(session: Session, from_id: str, to_id: str, *, now: datetime) -> list[str]:
    """Merge entity ``from_id`` into ``to_id``: its content links move (an item linked to both
    keeps one link, its mentions added up), it is deleted, and its id redirects to ``to_id``
    (as do the ids that redirected to it). Returns the content ids whose links changed."""
    moved = list(
        session.scalars(select(ContentEntity.content_id).where(ContentEntity.entity_id == from_id))
    )
    both = {
        row.content_id: row
        for start in range(0, len(moved), _CHUNK)
        for row in session.scalars(
            select(ContentEntity).where(
                ContentEntity.entity_id == to_id,
                ContentEntity.content_id.in_(moved[start : start + _CHUNK]),
            )
        )
    }
    if both:
        for row in session.scalars(
            select(ContentEntity).where(
                ContentEntity.entity_id == from_id, ContentEntity.content_id.in_(list(both))
            )
        ):
            kept = both[row.content_id]
            kept.mention_count += row.mention_count
            kept.salience = max(kept.salience, row.salience)
            kept.confidence = max(kept.confidence, row.confidence)
        session.flush()
        session.execute(
            delete(ContentEntity).where(
                ContentEntity.entity_id == from_id, ContentEntity.content_id.in_(list(both))
            )
        )
    session.execute(
        update(ContentEntity)
        .where(ContentEntity.entity_id == from_id)
        .values(entity_id=to_id)
        .execution_options(synchronize_session=False)
    )
    session.execute(
        update(EntityRedirect)
        .where(EntityRedirect.to_id == from_id)
        .values(to_id=to_id)
        .execution_options(synchronize_session=False)
    )
    redirect = {"from_id": from_id, "to_id": to_id, "created_at": now}
    session.execute(insert_for(session, EntityRedirect).values(redirect).on_conflict_do_nothing())
    session.execute(delete(Entity).where(Entity.id == from_id))
    return moved


def current_ids(session: Session, entity_ids: Iterable[str]) -> list[str]:
    """``entity_ids`` with each merged entity's id replaced by the id it was merged into (in
    order, without repeats)."""
    ids = list(entity_ids)
    redirects = redirects_of(session, ids)
    return list(dict.fromkeys(redirects.get(i, i) for i in ids))


def redirects_of(session: Session, entity_ids: Iterable[str]) -> dict[str, str]:
    """``old id -> id`` for those of ``entity_ids`` that were merged into another entity."""
    ids = sorted(set(entity_ids))
    found: dict[str, str] = {}
    for start in range(0, len(ids), _CHUNK):
        query = select(EntityRedirect.from_id, EntityRedirect.to_id).where(
            EntityRedirect.from_id.in_(ids[start : start + _CHUNK])
        )
        found.update({row.from_id: row.to_id for row in session.execute(query)})
    return found


def existing_ids(session: Session, entity_ids: Iterable[str]) -> set[str]:
    """Those of ``entity_ids`` content may link to: stored and not rejected by an operator."""
    ids = list(dict.fromkeys(entity_ids))
    found: set[str] = set()
    for start in range(0, len(ids), _CHUNK):
        found.update(
            session.scalars(
                select(Entity.id).where(
                    Entity.id.in_(ids[start : start + _CHUNK]), Entity.status != "rejected"
                )
            )
        )
    return found


def timeline_rows(
    session: Session,
    entity_id: str,
    *,
    window: Window,
    media_types: Sequence[str] | None,
    offset: int,
    limit: int,
) -> list[ContentItem]:
    """Live items linked to the entity, published in the window, newest first."""
    conditions = [
        ContentEntity.entity_id == entity_id,
        ContentEntity.published_at >= window.start,
        ContentEntity.published_at < window.end,
        ContentItem.deleted_at.is_(None),
    ]
    if media_types:
        conditions.append(ContentEntity.media_type.in_(list(media_types)))
    query = (
        select(ContentItem)
        .join(ContentEntity, ContentEntity.content_id == ContentItem.id)
        .where(and_(*conditions))
        .order_by(ContentEntity.published_at.desc(), ContentItem.id)
        .offset(offset)
        .limit(limit)
    )
    return list(session.scalars(query))
