"""News story clusters: the list of regular clusters and one cluster with its members.

Clusters are shared by all workspaces (any valid key reads the same). Rules are in
``herald.clusters.queries`` and docs/clusters.md.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query
from sqlalchemy.orm import Session

from herald.api.deps import ReaderDep, RuntimeDep
from herald.api.schemas.common import DateText, Meta, ResponseModel, UtcTimestamp, current_meta
from herald.api.schemas.content import ContentItemOut, search_form
from herald.clusters.queries import (
    LIST_DEFAULT_LIMIT,
    LIST_MAX_LIMIT,
    cluster_detail,
    featured_status,
    list_clusters,
    list_window,
)
from herald.core.dates import parse_optional_date_input
from herald.core.pagination import MAX_OFFSET, Page, PageRequest
from herald.db.models.clusters import StoryCluster, StoryClusterMember
from herald.db.models.content import ContentItem

router = APIRouter(prefix="/v1/news/clusters", tags=["clusters"])


class ClusterOut(ResponseModel):
    cluster_id: str
    cluster_type: str
    status: str
    featured_status: str
    title: str
    abstract: str
    member_count: int
    unique_source_count: int
    source_keys: list[str]
    key_entities: list[str]
    key_ideas: list[str]
    first_published_at: UtcTimestamp
    latest_published_at: UtcTimestamp
    latest_member_added_at: UtcTimestamp
    profile_version: int
    created_at: UtcTimestamp
    updated_at: UtcTimestamp


class ClusterMemberOut(ResponseModel):
    cluster_member_id: str
    content_id: str
    published_date: UtcTimestamp
    assigned_at: UtcTimestamp
    link_confidence: str
    source_key: str
    content_item: ContentItemOut


class ClusterListResponse(ResponseModel):
    clusters: list[ClusterOut]
    limit: int
    offset: int
    next_offset: int | None
    has_more: bool
    meta: Meta


class ClusterDetailResponse(ResponseModel):
    cluster: ClusterOut
    members: list[ClusterMemberOut]
    meta: Meta


def cluster_out(row: StoryCluster) -> ClusterOut:
    return ClusterOut(
        cluster_id=row.id,
        cluster_type="cluster",
        status=row.status,
        featured_status=featured_status(row.unique_source_count),
        title=row.title,
        abstract=row.abstract,
        member_count=row.member_count,
        unique_source_count=row.unique_source_count,
        source_keys=list(row.source_keys),
        key_entities=list(row.key_entities),
        key_ideas=list(row.key_ideas),
        first_published_at=row.first_published_at,
        latest_published_at=row.latest_published_at,
        latest_member_added_at=row.latest_member_added_at,
        profile_version=row.profile_version,
        created_at=row.created_at,
        updated_at=row.updated_at,
    )


def member_out(member: StoryClusterMember, item: ContentItem) -> ClusterMemberOut:
    return ClusterMemberOut(
        cluster_member_id=member.id,
        content_id=member.content_id,
        published_date=member.published_at,
        assigned_at=member.assigned_at,
        link_confidence=member.link_confidence,
        source_key=member.source_key,
        content_item=search_form(item),
    )


@router.get(
    "",
    response_model=ClusterListResponse,
    response_model_exclude_unset=True,
    summary="List story clusters, newest first",
    description=(
        "Regular clusters (two or more member articles; stubs are left out) created in the "
        "window, newest first. Default window: created in the last 7 days."
    ),
)
def list_story_clusters(
    reader: ReaderDep,
    runtime: RuntimeDep,
    start_date: Annotated[
        DateText | None,
        Query(description="Start of the creation window (date or datetime); default 7 days ago."),
    ] = None,
    end_date: Annotated[
        DateText | None,
        Query(description="End of the creation window (a date is inclusive); default now."),
    ] = None,
    limit: Annotated[
        int, Query(ge=1, le=LIST_MAX_LIMIT, description="Default 25, maximum 100.")
    ] = LIST_DEFAULT_LIMIT,
    offset: Annotated[int, Query(ge=0, le=MAX_OFFSET, description="Default 0.")] = 0,
) -> ClusterListResponse:
    # Clusters are shared by all workspaces.
    start = parse_optional_date_input(start_date, field="start_date")
    end = parse_optional_date_input(end_date, field="end_date")
    window = list_window(start, end, now=runtime.clock.now())
    page = PageRequest.checked(limit, offset, max_limit=LIST_MAX_LIMIT)

    def read(session: Session) -> tuple[Page[StoryCluster], list[ClusterOut]]:
        result = list_clusters(session, window, page)
        return result, [cluster_out(row) for row in result.items]

    result, clusters = reader.run(read)
    return ClusterListResponse(
        clusters=clusters,
        limit=result.limit,
        offset=result.offset,
        next_offset=result.next_offset,
        has_more=result.has_more,
        meta=current_meta(),
    )


@router.get(
    "/{cluster_id}",
    response_model=ClusterDetailResponse,
    response_model_exclude_unset=True,
    summary="One story cluster and its member articles",
    description=(
        "Every list field plus the members, newest published first (at most 500). "
        "Stub clusters (a single member) are returned too."
    ),
    responses={404: {"description": "No such cluster"}},
)
def get_story_cluster(
    cluster_id: str,
    reader: ReaderDep,
) -> ClusterDetailResponse:
    def read(session: Session) -> tuple[ClusterOut, list[ClusterMemberOut]]:
        detail = cluster_detail(session, cluster_id)
        return cluster_out(detail.cluster), [member_out(m, item) for m, item in detail.members]

    cluster, members = reader.run(read)
    return ClusterDetailResponse(cluster=cluster, members=members, meta=current_meta())
