"""GET /v1/content/{content_id}: one content item in its full form (docs/ingestion.md)."""

from __future__ import annotations

from fastapi import APIRouter

from herald.api.deps import PrincipalDep, SessionsDep
from herald.api.schemas.common import Meta, ResponseModel, current_meta
from herald.api.schemas.content import ContentItemOut, full_form
from herald.content.repository import get_item, linked_entities
from herald.errors import NotFound

router = APIRouter(tags=["content"])


class ContentItemResponse(ResponseModel):
    content_item: ContentItemOut
    meta: Meta


@router.get(
    "/v1/content/{content_id}",
    response_model=ContentItemResponse,
    response_model_exclude_unset=True,
    summary="Fetch one content item",
    description=(
        "Metadata, summaries, key points, linked entities and media-specific fields. Enrichment "
        "fields are empty until the item is enriched. Never a body or transcript."
    ),
    responses={404: {"description": "No such content item"}},
)
def get_content_item(
    content_id: str,
    principal: PrincipalDep,
    sessions: SessionsDep,
) -> ContentItemResponse:
    del principal  # content is shared by all workspaces; a valid key is enough
    with sessions.read() as session:
        item = get_item(session, content_id)
        if item is None:
            raise NotFound(f"no content item {content_id!r}")
        entities = linked_entities(session, content_id)
    return ContentItemResponse(content_item=full_form(item, entities), meta=current_meta())
