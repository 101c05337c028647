"""How an incoming item is stored: its row of ``content_items`` and its content hash.

The content hash says what makes two versions of an item different: an item received again
with the same hash is a duplicate and nothing is written.
"""

from __future__ import annotations

import hashlib
from typing import Any

import orjson

from herald.db.content_limits import SOURCE_NAME_MAX
from herald.ingest.articles import word_count
from herald.ingest.model import IncomingItem

__all__ = ["content_hash", "stored_row"]


def stored_row(
    item: IncomingItem,
    digest: str,
    article_id: str | None,
    source_id: str | None,
    words: int | None,
) -> dict[str, Any]:
    """The columns of ``item`` as stored (``digest``: its :func:`content_hash`; ``words``: its
    word count when already counted)."""
    text = item.text
    podcast = item.podcast
    return {
        "id": item.content_id,
        "canonical_key": item.canonical_key,
        "media_type": item.media_type,
        "url": item.url,
        "external_id": item.external_id,
        "source_id": source_id,
        "source_name": item.source.name[:SOURCE_NAME_MAX],
        "source_domain": item.source.domain,
        "title": item.title,
        "authors": list(item.authors),
        "language": item.language,
        "language_provided": item.language is not None,
        "published_at": item.published_date,
        # For podcasts the body column holds the transcript text (never shown by the API).
        "body": text,
        "transcript_segments": [
            {"start": s.start, "end": s.end, "speaker": s.speaker, "text": s.text}
            for s in item.transcript_segments
        ]
        or None,
        "summary": item.summary,
        "summary_provided": item.summary is not None,
        "word_count": words if words is not None else word_count(text),
        "content_hash": digest,
        "article_id": article_id,
        "podcast_id": item.resolved_podcast_id,
        "podcast_title": podcast.title if podcast else None,
        "podcast_publisher": podcast.publisher if podcast else None,
        "episode_id": item.resolved_episode_id,
        "audio_url": item.audio_url,
        "duration_seconds": (
            round(item.duration_seconds) if item.duration_seconds is not None else None
        ),
    }


def content_hash(item: IncomingItem) -> str:
    """What makes two versions of an item different (an estimated date never does)."""
    payload = {
        "media_type": item.media_type,
        "title": item.title,
        "url": item.url,
        "external_id": item.external_id,
        "source": [item.source.name, item.source.domain],
        "authors": list(item.authors),
        "language": item.language,
        "published": None if item.published_is_estimate else item.published_date.isoformat(),
        "summary": item.summary,
        "body": item.body,
        "transcript": item.transcript,
        "segments": [[s.start, s.end, s.speaker, s.text] for s in item.transcript_segments],
        "podcast": [item.resolved_podcast_id, item.podcast.title, item.podcast.publisher]
        if item.podcast
        else None,
        "episode_id": item.episode_id,
        "audio_url": item.audio_url,
        "duration": item.duration_seconds,
    }
    return hashlib.sha256(orjson.dumps(payload, option=orjson.OPT_SORT_KEYS)).hexdigest()
