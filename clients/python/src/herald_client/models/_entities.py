"""Entities: search and timeline (interface section "Entities")."""

from __future__ import annotations

from datetime import datetime

from herald_client.models._base import DateInput, HeraldModel, Meta, RequestModel
from herald_client.models._enums import EntityKind, MediaType

__all__ = [
    "Entity",
    "EntitySearchRequest",
    "EntitySearchResponse",
    "EntitySearchResult",
    "EntityTag",
    "EntityTimeline",
    "TimelineItem",
    "TimelineQuery",
    "TimelineSource",
]


class EntityTag(HeraldModel):
    key: str  # e.g. "ticker", "country"
    value: str


class Entity(HeraldModel):
    id: str
    entity_id: str
    display_name: str
    entity_kind: str  # person, company, organization, product, place, event
    description: str | None = None
    aliases: list[str]
    tags: list[EntityTag]


class EntitySearchResult(HeraldModel):
    score: float
    entity: Entity


class EntitySearchResponse(HeraldModel):
    results: list[EntitySearchResult]
    meta: Meta | None = None


class TimelineSource(HeraldModel):
    name: str


class TimelineItem(HeraldModel):
    id: str
    media_type: str
    published_date: datetime
    title: str
    source: TimelineSource


class EntityTimeline(HeraldModel):
    entity_id: str
    timeline: list[TimelineItem]
    limit: int
    offset: int
    next_offset: int | None
    has_more: bool
    meta: Meta | None = None


class EntitySearchRequest(RequestModel):
    query: str
    entity_kinds: list[EntityKind] | None = None
    limit: int | None = None


class TimelineQuery(RequestModel):
    start_date: DateInput | None = None
    end_date: DateInput | None = None
    media_types: list[MediaType] | None = None
    limit: int | None = None
    offset: int | None = None
