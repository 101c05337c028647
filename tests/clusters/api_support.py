"""What the cluster API tests share: the fields of a listed cluster and of a member, and cluster
rows with their member items written straight to the database."""

from __future__ import annotations

import hashlib
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy.orm import Session

from herald.clusters.service import member_id_for, status_for
from herald.core.ids import stable_id
from herald.db.models.clusters import StoryCluster, StoryClusterMember
from herald.db.models.content import ContentItem
from herald.runtime import Runtime

LIST_FIELDS = {
    "cluster_id",
    "cluster_type",
    "status",
    "featured_status",
    "title",
    "abstract",
    "member_count",
    "unique_source_count",
    "source_keys",
    "key_entities",
    "key_ideas",
    "first_published_at",
    "latest_published_at",
    "latest_member_added_at",
    "profile_version",
    "created_at",
    "updated_at",
}
MEMBER_FIELDS = {
    "cluster_member_id",
    "content_id",
    "published_date",
    "assigned_at",
    "link_confidence",
    "source_key",
    "content_item",
}


def _content(session: Session, key: str, *, published_at: datetime, now: datetime) -> ContentItem:
    item = ContentItem(
        id=stable_id("cnt", key),
        canonical_key=key,
        media_type="news",
        url=f"https://example.com/{key}",
        source_name="Example",
        source_domain="example.com",
        title=f"Report {key}",
        authors=[],
        language="en",
        published_at=published_at,
        body="Body.",
        summaries=[],
        key_points=["A point."],
        segments=[],
        word_count=1,
        content_hash=hashlib.sha256(key.encode()).hexdigest(),
        article_id=stable_id("art", key),
        change_seq=0,
        version=1,
        created_at=now,
        updated_at=now,
    )
    session.add(item)
    return item


def make_cluster(
    runtime: Runtime,
    name: str,
    *,
    created_at: datetime,
    members: int = 2,
    sources: int = 2,
) -> str:
    """A cluster row with ``members`` member items (published one minute apart)."""
    cluster_id = stable_id("clu", name)
    first = created_at - timedelta(hours=1)
    with runtime.sessions.write() as session:
        seq = session.query(StoryCluster).count()
        session.add(
            StoryCluster(
                id=cluster_id,
                seq=seq,
                status=status_for(members),
                title=f"Story {name}",
                abstract=f"What happened in {name}.",
                member_count=members,
                unique_source_count=sources,
                source_keys=[f"s{i}.example" for i in range(sources)],
                key_entities=["Hurricane Ana"],
                key_ideas=["storm surge"],
                first_published_at=first,
                latest_published_at=first + timedelta(minutes=members - 1),
                latest_member_added_at=created_at,
                profile_version=members,
                created_at=created_at,
                updated_at=created_at,
                changed_seq=0,
                profile=None,
                index_keys=None,
            )
        )
        session.flush()
        for n in range(members):
            published = first + timedelta(minutes=n)
            item = _content(session, f"{name}-{n}", published_at=published, now=created_at)
            session.flush()
            session.add(
                StoryClusterMember(
                    id=member_id_for(item.id),
                    cluster_id=cluster_id,
                    content_id=item.id,
                    article_id=item.article_id,
                    source_key=f"s{n % max(sources, 1)}.example",
                    published_at=published,
                    assigned_at=created_at,
                    link_confidence="high" if n == 0 else "medium",
                    similarity=1.0,
                )
            )
            item.cluster_id = cluster_id
    return cluster_id


def ids(body: dict[str, Any]) -> list[str]:
    return [c["cluster_id"] for c in body["clusters"]]
