"""Reading content items and their linked entities (all SQL for content reads lives here)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.orm import Session

from herald.db.models.content import ContentEntity, ContentItem
from herald.db.models.entity import Entity


@dataclass(frozen=True, slots=True)
class LinkedEntity:
    entity_id: str
    display_name: str
    entity_kind: str
    mention_count: int
    salience: float
    confidence: float


def get_item(session: Session, content_id: str) -> ContentItem | None:
    item = session.get(ContentItem, content_id)
    if item is None or item.deleted_at is not None:
        return None
    return item


def get_items(session: Session, content_ids: Iterable[str]) -> dict[str, ContentItem]:
    """Live items by id (deleted ones are absent); callers keep their own order."""
    ids = list(dict.fromkeys(content_ids))
    found: dict[str, ContentItem] = {}
    for start in range(0, len(ids), 900):  # stay under SQLite's bound-parameter limit
        chunk = ids[start : start + 900]
        rows = session.scalars(
            select(ContentItem).where(ContentItem.id.in_(chunk), ContentItem.deleted_at.is_(None))
        )
        found.update({row.id: row for row in rows})
    return found


def linked_entities(session: Session, content_id: str) -> list[LinkedEntity]:
    """The item's entities, most salient first."""
    rows = session.execute(
        select(ContentEntity, Entity)
        .join(Entity, Entity.id == ContentEntity.entity_id)
        .where(ContentEntity.content_id == content_id)
        .order_by(ContentEntity.salience.desc(), Entity.display_name)
    ).all()
    return [
        LinkedEntity(
            entity_id=entity.id,
            display_name=entity.display_name,
            entity_kind=entity.entity_kind,
            mention_count=link.mention_count,
            salience=link.salience,
            confidence=link.confidence,
        )
        for link, entity in rows
    ]
