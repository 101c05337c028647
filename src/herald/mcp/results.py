"""Compact tool results: what a model needs to answer and cite, and nothing heavier.

Every item carries its id and URL (the source a user can open) with title, source, date and a
few key points; bodies and transcripts never appear (the API does not return them either). Keys
are omitted when empty, so a result costs only what it says.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from herald_client.models import (
    Cluster,
    ClusterMember,
    ContentItem,
    Entity,
    Monitor,
    QueuedTask,
    TimelineItem,
)

from herald.core.clock import isoformat_z

# Key points per item in lists: enough to answer from, small enough for a page of 10 or more.
LIST_KEY_POINTS = 3

Urls = Mapping[str, str | None]


def compact(fields: dict[str, Any]) -> dict[str, Any]:
    """Drop empty values (None, "", [], {}); zero and False stay."""
    return {k: v for k, v in fields.items() if v is not None and v != "" and v != [] and v != {}}


def when(value: datetime | None) -> str | None:
    return None if value is None else isoformat_z(value)


def listed_item(item: ContentItem, url: str | None, score: float | None = None) -> dict[str, Any]:
    """A content item in a list (search, monitor results): cite-ready, with its key points."""
    return compact(
        {
            "id": item.id,
            "title": item.title,
            "url": url,
            "source": item.source.name,
            "domain": item.source.domain,
            "media_type": item.media_type,
            "published": when(item.published_date),
            "score": None if score is None else round(score, 3),
            "key_points": item.key_points[:LIST_KEY_POINTS],
            "podcast_id": item.podcast_id,
            "episode_id": item.episode_id,
        }
    )


def full_item(item: ContentItem) -> dict[str, Any]:
    """One content item in detail: summary, key points, linked entities, media fields."""
    segments = [
        compact(
            {
                "index": s.index,
                "start_seconds": s.start_seconds,
                "end_seconds": s.end_seconds,
                "speaker": s.speaker,
                "title": s.title,
                "summary": s.summary,
            }
        )
        for s in item.segments or []
    ]
    entities = [
        {"id": e.entity_id, "name": e.display_name, "kind": e.entity_kind}
        for e in item.entities or []
    ]
    return compact(
        {
            "id": item.id,
            "title": item.title,
            "url": item.url,
            "source": item.source.name,
            "domain": item.source.domain,
            "media_type": item.media_type,
            "published": when(item.published_date),
            "authors": item.authors,
            "language": item.language,
            "summary": item.summary,
            "key_points": item.key_points,
            "entities": entities,
            "story_id": item.cluster_id,
            "word_count": item.word_count,
            "podcast": None if item.podcast is None else compact(item.podcast.model_dump()),
            "podcast_id": item.podcast_id,
            "episode_id": item.episode_id,
            "duration_seconds": item.duration_seconds,
            "audio_url": item.audio_url,
            "segments": segments,
        }
    )


def entity(found: Entity, score: float | None = None) -> dict[str, Any]:
    return compact(
        {
            "id": found.id,
            "name": found.display_name,
            "kind": found.entity_kind,
            "description": found.description,
            "aliases": found.aliases,
            "tags": {t.key: t.value for t in found.tags},
            "score": None if score is None else round(score, 3),
        }
    )


def timeline_item(item: TimelineItem, url: str | None) -> dict[str, Any]:
    return compact(
        {
            "id": item.id,
            "title": item.title,
            "url": url,
            "source": item.source.name,
            "media_type": item.media_type,
            "published": when(item.published_date),
        }
    )


def story(cluster: Cluster) -> dict[str, Any]:
    """A story (a news cluster) in a list or as the head of its detail."""
    return compact(
        {
            "id": cluster.cluster_id,
            "title": cluster.title,
            "abstract": cluster.abstract,
            "status": cluster.status,
            "featured": cluster.featured_status == "featured",
            "member_count": cluster.member_count,
            "source_count": cluster.unique_source_count,
            "key_entities": cluster.key_entities,
            "key_ideas": cluster.key_ideas,
            "first_published": when(cluster.first_published_at),
            "latest_published": when(cluster.latest_published_at),
        }
    )


def story_member(member: ClusterMember, url: str | None) -> dict[str, Any]:
    item = member.content_item
    return compact(
        {
            "id": member.content_id,
            "title": item.title,
            "url": url,
            "source": item.source.name,
            "domain": item.source.domain,
            "published": when(member.published_date),
            "link_confidence": member.link_confidence,
            "key_points": item.key_points[:LIST_KEY_POINTS],
        }
    )


def monitor(found: Monitor) -> dict[str, Any]:
    schedule = found.schedule
    return compact(
        {
            "id": found.id,
            "name": found.name,
            "description": found.description,
            "status": found.status,
            "search": compact(found.search.model_dump()),
            "schedule": compact(schedule.model_dump()),
            "next_run_at": when(found.next_run_at),
            "created_at": when(found.created_at),
        }
    )


def queued_task(task: QueuedTask) -> dict[str, Any]:
    return {
        "task_id": task.task_id,
        "status": task.status,
        "queued_dates": [job.published_date.isoformat() for job in task.queued],
        "summary": task.summary.model_dump(),
    }


def page(key: str, items: Sequence[dict[str, Any]], next_offset: int | None) -> dict[str, Any]:
    """A list page; ``next_offset`` only when there is more to fetch."""
    return compact({key: list(items), "next_offset": next_offset}) | {key: list(items)}
