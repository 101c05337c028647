"""Keeping a story true to a member that was updated to a new version.

An item is clustered once: a new version of it (a corrected title, a corrected publication
time, a new source domain) keeps its story. When its clustering job runs again after the new
version is enriched, its membership takes the new publication time and source, and its story
what depends on them: first and latest publication, sources, and the title and abstract when
they came from this item. The working profile's sketches of the item take its new title and
abstract, so a later join does not bring the old ones back. A closed story (no working profile)
is recomputed from its members; its title, if it is no member's title any more, becomes the
updated item's.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

import numpy as np
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from herald.clusters.features import story_item
from herald.clusters.item import StoryItem
from herald.clusters.online import OnlineClusterer
from herald.clusters.profile import ClusterProfile
from herald.db.models.clusters import StoryCluster, StoryClusterMember
from herald.db.models.content import ContentItem

_CHUNK = 500


def text_item(row: ContentItem, entities: Sequence[tuple[str, float]] = ()) -> StoryItem:
    """The item's texts and keys as clustering sees them, without its embedding (what its
    title, abstract and keys are does not depend on it)."""
    return story_item(
        content_id=row.id,
        article_id=row.article_id,
        source_key=row.source_domain,
        published_at=row.published_at,
        title=row.title,
        body=row.body or "",
        summary=row.summary,
        embedding=np.zeros(1, dtype=np.float32),
        entities=[(entity_id, "", float(salience)) for entity_id, salience in entities],
    )


def refresh_members(
    session: Session, clusterer: OnlineClusterer, content_ids: Sequence[str]
) -> tuple[dict[str, ClusterProfile], list[StoryCluster]]:
    """Bring the memberships of ``content_ids`` (already clustered items) and their stories up
    to date with the items' current versions. Returns the live profiles changed and the closed
    story rows changed; the caller writes both with its batch's sequence number."""
    changed: dict[str, ClusterProfile] = {}
    closed: dict[str, StoryCluster] = {}
    ids = list(dict.fromkeys(content_ids))
    for start in range(0, len(ids), _CHUNK):
        rows = session.execute(
            select(StoryClusterMember, ContentItem)
            .join(ContentItem, ContentItem.id == StoryClusterMember.content_id)
            .where(StoryClusterMember.content_id.in_(ids[start : start + _CHUNK]))
            .order_by(StoryClusterMember.content_id)
        ).all()
        for member, row in rows:
            item = text_item(row)
            moved = (member.published_at, member.source_key) != (
                item.published_at,
                item.source_key,
            )
            member.published_at = item.published_at
            member.source_key = item.source_key
            profile = clusterer.get(member.cluster_id)
            if profile is not None:
                if _patch(profile, item) or moved:
                    changed[profile.cluster_id] = profile
                continue
            story = session.get(StoryCluster, member.cluster_id)
            if story is None:
                continue
            if story.title.strip() not in _member_titles(session, story.id):
                story.title, story.abstract = item.title, item.abstract
                moved = True
            if moved:
                closed[story.id] = story
    if changed or closed:
        session.flush()
    for cluster_id, profile in changed.items():
        first, latest, sources = _span(session, cluster_id)
        profile.first_published_at, profile.latest_published_at = first, latest
        profile.source_counts = sources
    for story in closed.values():
        first, latest, sources = _span(session, story.id)
        story.first_published_at, story.latest_published_at = first, latest
        story.source_keys = sorted(sources)
        story.unique_source_count = len(sources)
    return changed, list(closed.values())


def _patch(profile: ClusterProfile, item: StoryItem) -> bool:
    """Give the profile's sketches of ``item`` its current texts; True if any changed."""
    texts = (item.title, item.abstract)
    changed = False
    for representative in profile.representatives:
        if representative.content_id == item.content_id:
            changed |= (representative.title, representative.abstract) != texts
            representative.title, representative.abstract = texts
    for sketch in profile.sample:
        for copy in sketch.copies:
            if copy.content_id == item.content_id:
                copy.published_at, copy.source_key = item.published_at, item.source_key
        if sketch.content_id == item.content_id:
            changed |= (sketch.title, sketch.abstract) != texts
            sketch.title, sketch.abstract = texts
    if profile.representatives:
        profile.title = profile.representatives[0].title
        profile.abstract = profile.representatives[0].abstract
    return changed


def _member_titles(session: Session, cluster_id: str) -> set[str]:
    titles = session.scalars(
        select(ContentItem.title)
        .join(StoryClusterMember, StoryClusterMember.content_id == ContentItem.id)
        .where(StoryClusterMember.cluster_id == cluster_id)
    )
    return {title.strip() for title in titles}


def _span(session: Session, cluster_id: str) -> tuple[datetime, datetime, dict[str, int]]:
    """First and latest publication of a story's members, and its members per source."""
    first, latest = session.execute(
        select(
            func.min(StoryClusterMember.published_at), func.max(StoryClusterMember.published_at)
        ).where(StoryClusterMember.cluster_id == cluster_id)
    ).one()
    sources = dict(
        session.execute(
            select(StoryClusterMember.source_key, func.count())
            .where(StoryClusterMember.cluster_id == cluster_id)
            .group_by(StoryClusterMember.source_key)
        ).all()
    )
    return first, latest, {str(k): int(v) for k, v in sources.items()}
