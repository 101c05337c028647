"""Entities: search the knowledge base, and the content timeline of one entity.

Entities and content are shared by every workspace, so both endpoints answer the same for any key.
"""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import APIRouter, Query
from pydantic import Field, field_validator
from sqlalchemy.orm import Session

from herald.api.deps import PrincipalDep, ReaderDep, RuntimeDep
from herald.api.schemas.common import (
    NOT_BLANK_SCHEMA,
    DateText,
    MediaTypeList,
    Meta,
    RequestModel,
    ResponseModel,
    UtcTimestamp,
    current_meta,
)
from herald.core.dates import lookback_window, parse_optional_date_input
from herald.core.pagination import MAX_OFFSET, Page, PageRequest
from herald.db.models.content import ContentItem
from herald.entities.model import EntityRecord
from herald.entities.service import (
    SEARCH_MAX_LIMIT,
    TIMELINE_DEFAULT_DAYS,
    TIMELINE_MAX_LIMIT,
    entity_timeline,
    search_entities,
)
from herald.errors import FieldIssue, InvalidRequest, field_path

router = APIRouter(prefix="/v1/entities", tags=["entities"])

EntityKindName = Literal["person", "company", "organization", "product", "place", "event"]
MEDIA_TYPES = ("news", "wire", "podcast")


class EntitySearchRequest(RequestModel):
    query: str = Field(
        description="Entity name, alias or description text.",
        max_length=500,
        json_schema_extra=NOT_BLANK_SCHEMA,
    )
    entity_kinds: list[EntityKindName] | None = Field(
        default=None, description="Restrict results to these kinds.", max_length=6
    )
    limit: int = Field(default=10, ge=1, le=SEARCH_MAX_LIMIT, description="Default 10, max 100.")

    @field_validator("query")
    @classmethod
    def _not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("query must not be empty")
        return value


class TagOut(ResponseModel):
    key: str
    value: str


class EntityOut(ResponseModel):
    id: str
    entity_id: str = Field(description="Same as `id`.")
    display_name: str
    entity_kind: str
    description: str
    aliases: list[str]
    tags: list[TagOut]


class EntitySearchResult(ResponseModel):
    score: float = Field(description="Match score in [0, 1]; exact and alias matches first.")
    entity: EntityOut


class EntitySearchResponse(ResponseModel):
    results: list[EntitySearchResult]
    meta: Meta


class TimelineSource(ResponseModel):
    name: str


class TimelineItem(ResponseModel):
    id: str
    media_type: str
    published_date: UtcTimestamp
    title: str
    source: TimelineSource


class TimelineResponse(ResponseModel):
    entity_id: str
    timeline: list[TimelineItem]
    limit: int
    offset: int
    next_offset: int | None
    has_more: bool
    meta: Meta


def entity_out(record: EntityRecord) -> EntityOut:
    return EntityOut(
        id=record.id,
        entity_id=record.id,
        display_name=record.display_name,
        entity_kind=record.entity_kind,
        description=record.description,
        aliases=list(record.aliases),
        tags=[TagOut(key=t.key, value=t.value) for t in record.tags],
    )


@router.post("/search", summary="Search entities by name, alias and description")
def search(
    body: EntitySearchRequest, principal: PrincipalDep, runtime: RuntimeDep
) -> EntitySearchResponse:
    hits = search_entities(runtime, body.query, entity_kinds=body.entity_kinds, limit=body.limit)
    return EntitySearchResponse(
        results=[EntitySearchResult(score=h.score, entity=entity_out(h.entity)) for h in hits],
        meta=current_meta(),
    )


@router.get("/{entity_id}/timeline", summary="Content in which an entity appears, newest first")
def timeline(
    entity_id: str,
    reader: ReaderDep,
    runtime: RuntimeDep,
    start_date: Annotated[
        DateText | None,
        Query(description="Date or datetime; default 60 days before the end date, 00:00Z."),
    ] = None,
    end_date: Annotated[
        DateText | None, Query(description="Date or datetime; default now.")
    ] = None,
    media_types: Annotated[
        MediaTypeList | None, Query(description="Repeat or comma-separate: news, wire, podcast.")
    ] = None,
    limit: Annotated[int, Query(ge=1, le=TIMELINE_MAX_LIMIT)] = 25,
    offset: Annotated[int, Query(ge=0, le=MAX_OFFSET)] = 0,
) -> TimelineResponse:
    start = parse_optional_date_input(start_date, field="start_date")
    end = parse_optional_date_input(end_date, field="end_date")
    window = lookback_window(
        start, end, now=runtime.clock.now(), days=TIMELINE_DEFAULT_DAYS, from_midnight=True
    )
    kinds = _media_types(media_types)
    page = PageRequest.checked(limit, offset, max_limit=TIMELINE_MAX_LIMIT)

    def read(session: Session) -> tuple[str, Page[ContentItem], list[TimelineItem]]:
        found, result = entity_timeline(
            session, entity_id, window=window, media_types=kinds, page=page
        )
        return (
            found,
            result,
            [
                TimelineItem(
                    id=row.id,
                    media_type=row.media_type,
                    published_date=row.published_at,
                    title=row.title,
                    source=TimelineSource(name=row.source_name),
                )
                for row in result.items
            ],
        )

    entity_id, result, items = reader.run(read)
    return TimelineResponse(
        entity_id=entity_id,
        timeline=items,
        limit=result.limit,
        offset=result.offset,
        next_offset=result.next_offset,
        has_more=result.has_more,
        meta=current_meta(),
    )


def _media_types(values: list[str] | None) -> list[str] | None:
    if not values:
        return None
    out: list[str] = []
    for index, value in enumerate(values):
        for part in value.split(","):
            part = part.strip()
            if part not in MEDIA_TYPES:
                # Named by the query value holding it, the n-th ``media_types`` (from 0).
                raise InvalidRequest(
                    f"unknown media type {part!r}",
                    details=[
                        FieldIssue(
                            field_path("media_types", index), "each must be news, wire or podcast"
                        )
                    ],
                )
            if part not in out:
                out.append(part)
    return out
