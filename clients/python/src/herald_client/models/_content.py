"""Content items and content search (interface section "Content")."""

from __future__ import annotations

from datetime import datetime

from herald_client.models._base import DateInput, HeraldModel, Meta, RequestModel
from herald_client.models._enums import MediaType
from herald_client.models._match import Match

__all__ = [
    "ContentItem",
    "ContentItemResponse",
    "ContentSearchRequest",
    "ContentSearchResponse",
    "LinkedEntity",
    "PodcastShow",
    "SearchResult",
    "Segment",
    "Source",
    "Summary",
]


class Source(HeraldModel):
    name: str
    domain: str | None = None


class Segment(HeraldModel):
    """A podcast segment: metadata only, never transcript text."""

    index: int
    start_seconds: float
    end_seconds: float
    speaker: str | None = None
    title: str
    summary: str
    key_points: list[str]


class Summary(HeraldModel):
    style: str  # "brief" or "detailed"
    text: str


class LinkedEntity(HeraldModel):
    """An entity linked to a content item (most salient first)."""

    entity_id: str
    display_name: str
    entity_kind: str
    mention_count: int
    salience: float
    confidence: float


class PodcastShow(HeraldModel):
    title: str | None = None
    publisher: str | None = None


class ContentItem(HeraldModel):
    """A news, wire or podcast item.

    Search results carry the search form (metadata and key points); ``client.content.get``
    returns the full form with ``url``, ``summary``, ``summaries``, ``entities`` and the
    media-specific fields. Fields that do not apply to the item's media type are None.
    """

    id: str
    media_type: str  # "news", "wire" or "podcast"
    published_date: datetime
    title: str
    source: Source
    key_points: list[str]
    language: str | None = None
    article_id: str | None = None
    episode_id: str | None = None
    podcast_id: str | None = None
    segments: list[Segment] | None = None
    url: str | None = None
    authors: list[str] | None = None
    summary: str | None = None
    summaries: list[Summary] | None = None
    entities: list[LinkedEntity] | None = None
    word_count: int | None = None
    enriched_at: datetime | None = None
    cluster_id: str | None = None
    podcast: PodcastShow | None = None
    duration_seconds: int | None = None
    audio_url: str | None = None


class SearchResult(HeraldModel):
    score: float
    content_item: ContentItem
    match: Match | None = None  # only with explain=True (monitor store search)


class ContentSearchResponse(HeraldModel):
    results: list[SearchResult]
    meta: Meta | None = None


class ContentItemResponse(HeraldModel):
    content_item: ContentItem
    meta: Meta | None = None


class ContentSearchRequest(RequestModel):
    """Body of POST /v1/content/search and POST /v1/monitors/{id}/search."""

    query: str
    start_date: DateInput | None = None
    end_date: DateInput | None = None
    media_types: list[MediaType] | None = None
    include_domains: list[str] | None = None
    exclude_domains: list[str] | None = None
    entity_ids: list[str] | None = None
    limit: int | None = None
