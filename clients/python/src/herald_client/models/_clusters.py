"""News story clusters (interface section "News clusters")."""

from __future__ import annotations

from datetime import datetime

from herald_client.models._base import DateInput, HeraldModel, Meta, RequestModel
from herald_client.models._content import ContentItem

__all__ = ["Cluster", "ClusterDetail", "ClusterList", "ClusterListQuery", "ClusterMember"]


class Cluster(HeraldModel):
    cluster_id: str
    cluster_type: str  # "cluster"
    status: str  # "regular" or "stub"
    featured_status: str  # "featured" (5+ unique sources) or "standard"
    title: str
    abstract: str | None = None
    member_count: int
    unique_source_count: int
    source_keys: list[str]
    key_entities: list[str]
    key_ideas: list[str]
    first_published_at: datetime
    latest_published_at: datetime
    latest_member_added_at: datetime
    profile_version: int
    created_at: datetime
    updated_at: datetime


class ClusterMember(HeraldModel):
    cluster_member_id: str
    content_id: str
    published_date: datetime
    assigned_at: datetime
    link_confidence: str  # "high", "medium" or "low"
    source_key: str
    content_item: ContentItem


class ClusterList(HeraldModel):
    clusters: list[Cluster]
    limit: int
    offset: int
    next_offset: int | None
    has_more: bool
    meta: Meta | None = None


class ClusterDetail(HeraldModel):
    cluster: Cluster
    members: list[ClusterMember]  # newest first, at most 500
    meta: Meta | None = None


class ClusterListQuery(RequestModel):
    start_date: DateInput | None = None
    end_date: DateInput | None = None
    limit: int | None = None
    offset: int | None = None
