"""What the cluster endpoints read: the list window, list pages, one cluster with its members.

Rules (docs/clusters.md): the list shows regular clusters (two or
more members), newest ``created_at`` first; its default window is the last 7 days through now;
a lone ``start_date`` runs through now and a lone ``end_date`` covers the 7 days before it.
A cluster is ``featured`` with at least 5 unique sources. The detail returns any cluster, stubs
included, with at most 500 members, newest published first.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy.orm import Session

from herald.clusters import repository
from herald.core.dates import DateInput, Window, lookback_window
from herald.core.pagination import Page, PageRequest
from herald.db.models.clusters import StoryCluster, StoryClusterMember
from herald.db.models.content import ContentItem
from herald.errors import NotFound

LIST_DEFAULT_DAYS = 7
LIST_MAX_LIMIT = 100
LIST_DEFAULT_LIMIT = 25
MAX_MEMBERS = 500
FEATURED_MIN_SOURCES = 5


def featured_status(unique_source_count: int) -> str:
    return "featured" if unique_source_count >= FEATURED_MIN_SOURCES else "standard"


def list_window(start: DateInput | None, end: DateInput | None, *, now: datetime) -> Window:
    """The creation window of a cluster list (half-open, UTC)."""
    return lookback_window(start, end, now=now, days=LIST_DEFAULT_DAYS, from_midnight=False)


def list_clusters(session: Session, window: Window, page: PageRequest) -> Page[StoryCluster]:
    return Page.from_overfetch(repository.list_regular(session, window, page), page)


@dataclass(frozen=True, slots=True)
class ClusterDetail:
    cluster: StoryCluster
    members: list[tuple[StoryClusterMember, ContentItem]]  # newest first


def cluster_detail(session: Session, cluster_id: str) -> ClusterDetail:
    cluster = repository.get_cluster(session, cluster_id)
    if cluster is None:
        raise NotFound(f"no cluster {cluster_id!r}")
    return ClusterDetail(cluster, repository.newest_members(session, cluster_id, MAX_MEMBERS))
