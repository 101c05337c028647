"""The content item as the API shows it (a stable shape clients rely on).

Two forms: the search form (search results, monitor results, cluster members) and the full form
(GET /v1/content/{id}). Fields that do not apply to an item's media type are omitted (the builders
set only what applies and routes serialise with ``exclude_unset``); fields that apply but are not
known yet (``language`` before enrichment) are null. Never a body or transcript.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from herald.api.schemas.common import ResponseModel, UtcTimestamp
from herald.api.schemas.match import MatchOut
from herald.content.repository import LinkedEntity
from herald.db.models.content import ContentItem


class Source(ResponseModel):
    name: str
    domain: str | None = None


class Segment(ResponseModel):
    index: int
    start_seconds: float
    end_seconds: float
    speaker: str | None
    title: str
    summary: str
    key_points: list[str]


class Summary(ResponseModel):
    style: str = Field(description="`brief` or `detailed`")
    text: str


class ContentEntityOut(ResponseModel):
    entity_id: str
    display_name: str
    entity_kind: str
    mention_count: int
    salience: float
    confidence: float


class PodcastShow(ResponseModel):
    title: str | None
    publisher: str | None


class ContentItemOut(ResponseModel):
    id: str
    media_type: str
    published_date: UtcTimestamp
    title: str
    source: Source
    key_points: list[str]
    language: str | None = None
    article_id: str | None = None
    episode_id: str | None = None
    podcast_id: str | None = None
    segments: list[Segment] | None = None
    # Full form only:
    url: str | None = None
    authors: list[str] | None = None
    summary: str | None = None
    summaries: list[Summary] | None = None
    entities: list[ContentEntityOut] | None = None
    word_count: int | None = None
    enriched_at: UtcTimestamp | None = None
    cluster_id: str | None = None
    podcast: PodcastShow | None = None
    duration_seconds: int | None = None
    audio_url: str | None = None


def search_form(item: ContentItem) -> ContentItemOut:
    """The item as search results show it: metadata, key points, no summaries or entities."""
    fields: dict[str, Any] = {
        "id": item.id,
        "media_type": item.media_type,
        "published_date": item.published_at,
        "title": item.title,
        "source": Source(name=item.source_name, domain=item.source_domain),
        "key_points": list(item.key_points or []),
        "language": item.language,
    }
    if item.media_type == "podcast":
        fields["episode_id"] = item.episode_id
        fields["podcast_id"] = item.podcast_id
        fields["segments"] = [Segment.model_validate(s) for s in item.segments or []]
    else:
        fields["article_id"] = item.article_id
    return ContentItemOut(**fields)


def full_form(item: ContentItem, entities: list[LinkedEntity]) -> ContentItemOut:
    """Everything GET /v1/content/{id} returns (never the body or transcript)."""
    base = search_form(item)
    fields: dict[str, Any] = {name: getattr(base, name) for name in base.model_fields_set}
    fields["source"] = Source(name=item.source_name, domain=item.source_domain)
    fields |= {
        "url": item.url,
        "authors": list(item.authors or []),
        "summary": item.summary,
        "summaries": [Summary.model_validate(s) for s in item.summaries or []],
        "entities": [
            ContentEntityOut(
                entity_id=e.entity_id,
                display_name=e.display_name,
                entity_kind=e.entity_kind,
                mention_count=e.mention_count,
                salience=e.salience,
                confidence=e.confidence,
            )
            for e in entities
        ],
        "word_count": item.word_count,
        "enriched_at": item.enriched_at,
    }
    if item.media_type == "podcast":
        fields |= {
            "podcast": PodcastShow(title=item.podcast_title, publisher=item.podcast_publisher),
            "duration_seconds": item.duration_seconds,
            "audio_url": item.audio_url,
        }
    else:
        fields["cluster_id"] = item.cluster_id
    return ContentItemOut(**fields)


class SearchResult(ResponseModel):
    score: float = Field(ge=0, le=1, description="The rerank score that orders results.")
    content_item: ContentItemOut
    match: MatchOut | None = Field(
        default=None, description="Why the item matched: only with `explain=true`."
    )
