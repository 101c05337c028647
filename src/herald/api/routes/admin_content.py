"""Deleting content (admin keys only; member keys get 404, as for every operator endpoint).

``DELETE /v1/admin/content/{content_id}`` removes the item for good: from every read (the item,
search, entity timelines, story clusters, monitor results and feeds) at once, and its text from
the database and index files after compaction (``herald content purge``; docs/operations.md).
Deleting an id that does not exist (or no longer exists) is a 404. The deletion leaves a
tombstone, so ingestion skips the item from then on (:mod:`herald.content.tombstones`).
"""

from __future__ import annotations

from fastapi import APIRouter
from pydantic import Field

from herald.api.deps import AdminDep, ClockDep, SessionsDep
from herald.api.schemas.common import Meta, ResponseModel, current_meta
from herald.content.deletion import ContentSelector, delete_content
from herald.errors import NotFound

router = APIRouter(tags=["operator"])


class ContentDeleted(ResponseModel):
    content_id: str
    deletion_id: str = Field(description="The deletion's record (who, when, what; no content).")
    deleted_count: int = Field(description="Items deleted: 1.")
    meta: Meta


@router.delete(
    "/v1/admin/content/{content_id}",
    response_model=ContentDeleted,
    summary="Delete a content item for good",
    description=(
        "Removes the item from every read path at once (the item, search, entity timelines, "
        "story clusters, monitor results and feeds) and records who deleted it. Its text leaves "
        "the database and index files at the next compaction (`herald content purge`). "
        "Ingestion skips the item from then on, even if its source still lists it "
        "(`herald content allow` lifts this)."
    ),
    responses={404: {"description": "No such content item"}},
)
def delete_content_item(
    content_id: str, admin: AdminDep, sessions: SessionsDep, clock: ClockDep
) -> ContentDeleted:
    report = delete_content(
        sessions,
        ContentSelector(content_id=content_id),
        actor=f"key:{admin.key_id} (team {admin.team_id})",
        clock=clock,
    )
    if report.deletion_id is None:
        raise NotFound(f"no content item {content_id!r}")
    return ContentDeleted(
        content_id=content_id,
        deletion_id=report.deletion_id,
        deleted_count=report.deleted,
        meta=current_meta(),
    )
