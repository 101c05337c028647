"""GET /v1/content/{content_id}: one content item in its full form (docs/ingestion.md)."""

from __future__ import annotations

from fastapi import APIRouter
from sqlalchemy.orm import Session

from herald.api.deps import ReaderDep
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
    reader: ReaderDep,
) -> ContentItemResponse:
    # Content is shared by all workspaces; a valid key is enough.
    def read(session: Session) -> ContentItemOut:
        item = get_item(session, content_id)
        if item is None:
            raise NotFound(f"no content item {content_id!r}")
        return full_form(item, linked_entities(session, content_id))

    item = reader.run(read)
    return ContentItemResponse(content_item=item, meta=current_meta())
