"""POST /v1/content/search: ranked content search (rules in herald.search.request)."""

from __future__ import annotations

from fastapi import APIRouter
from pydantic import Field
from sqlalchemy.orm import Session

from herald.api.deps import ReaderDep, RuntimeDep
from herald.api.schemas.common import DateText, Meta, RequestModel, ResponseModel, current_meta
from herald.api.schemas.content import SearchResult, search_form
from herald.api.schemas.search_fields import QUERY_SCHEMA, Domains, EntityIds, MediaTypes
from herald.content.repository import get_items
from herald.search.request import DEFAULT_LIMIT, MAX_LIMIT, MAX_QUERY_CHARS, build_content_search
from herald.search.service import get_search

router = APIRouter(tags=["content"])


class ContentSearchRequest(RequestModel):
    query: str = Field(
        description=(
            'Search text. Natural language works as is; `"quoted phrase"` must appear, '
            "`-word` excludes, `A OR B` makes quoted items alternatives (docs/search.md)."
        ),
        max_length=MAX_QUERY_CHARS,
        json_schema_extra=QUERY_SCHEMA,
    )
    start_date: DateText | None = Field(
        default=None, description="YYYY-MM-DD or ISO 8601 datetime; needs end_date."
    )
    end_date: DateText | None = Field(
        default=None,
        description="Needs start_date; a date is inclusive through its end; at most 60 days.",
    )
    media_types: MediaTypes | None = Field(
        default=None, description="Any of news, wire, podcast.", max_length=3
    )
    include_domains: Domains | None = Field(
        default=None, description="Source domains (subdomains included); at most 10."
    )
    exclude_domains: Domains | None = Field(
        default=None, description="Source domains to leave out; at most 10; not with include."
    )
    entity_ids: EntityIds | None = Field(
        default=None, description="Items linked to at least one of these entities."
    )
    limit: int = Field(default=DEFAULT_LIMIT, ge=1, le=MAX_LIMIT, description="Default 10.")


class ContentSearchResponse(ResponseModel):
    results: list[SearchResult]
    meta: Meta


@router.post(
    "/v1/content/search",
    response_model=ContentSearchResponse,
    response_model_exclude_unset=True,
    summary="Search content",
    description=(
        "Hybrid (BM25 + embedding) retrieval with a second-stage relevance score in [0, 1]. "
        "Results are ordered by `score`; results scoring under the threshold are omitted. "
        "Without dates the window is the last 60 days through today (UTC)."
    ),
)
def search_content(
    body: ContentSearchRequest, reader: ReaderDep, runtime: RuntimeDep
) -> ContentSearchResponse:
    # Content is shared by all workspaces; a valid key is enough.
    request = build_content_search(
        query=body.query,
        start_date=body.start_date,
        end_date=body.end_date,
        media_types=body.media_types,
        include_domains=body.include_domains,
        exclude_domains=body.exclude_domains,
        entity_ids=body.entity_ids,
        limit=body.limit,
        clock=runtime.clock,
    )
    search = get_search(runtime)

    def read(session: Session) -> list[SearchResult]:
        hits = search.search(session, request)
        items = get_items(session, [hit.content_id for hit in hits])
        return [
            SearchResult(score=hit.score, content_item=search_form(items[hit.content_id]))
            for hit in hits
            if hit.content_id in items
        ]

    results = reader.run(read)
    return ContentSearchResponse(results=results, meta=current_meta())
